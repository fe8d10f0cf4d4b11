import { describe, expect, test, vi } from 'vitest'
import { matchers } from '../../matchers/index'

describe('lazyMatchers (agent-verdict/vitest-setup)', () => {
  test('stands in for every matcher of the table, under the same names', async () => {
    const { lazyMatchers } = await import('../../matchers/lazy-matchers')
    const lazy = lazyMatchers()
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(matchers).sort())
    for (const [name, fn] of Object.entries(lazy)) expect(fn.name).toBe(name)
  })

  test('a synchronous matcher called before the code loaded says so; once loaded it answers synchronously', async () => {
    vi.resetModules()
    const fresh = await import('../../matchers/lazy-matchers')
    const lazy = fresh.lazyMatchers()
    expect(fresh.loadedMatcherCode()).toBeUndefined()
    expect(() => (lazy.toCallTool as (...a: unknown[]) => unknown).call({}, {}, 'search')).toThrow(
      /toCallTool was called before agent-verdict loaded its matchers\. .*call it inside a test or hook, and if the call comes from a helper module, add `import 'agent-verdict\/vitest'` to the test file/,
    )
    const code = await fresh.loadMatcherCode()
    expect(fresh.loadedMatcherCode()).toBe(code)
    expect(await fresh.loadMatcherCode()).toBe(code) // one load, shared
    // Now it reaches the real matcher, which answers (here: a usage error for a received value that is no trace).
    expect(() => (lazy.toCallTool as (...a: unknown[]) => unknown).call({ isNot: false }, 42, 'search')).toThrow(
      /toCallTool/,
    )
    expect(() => (lazy.toCallTool as (...a: unknown[]) => unknown).call({ isNot: false }, 42, 'search')).not.toThrow(
      /before agent-verdict loaded its matchers/,
    )
  })

  test('a test file needs the matchers when it names one or mentions agent-verdict (an import)', async () => {
    const { namesMatchers } = await import('../../matchers/lazy-matchers')
    expect(namesMatchers("await expect(answer).toBeCorrect({ reference: 'Paris' })")).toBe(true)
    expect(namesMatchers('expect(trace).toCallTool("search")')).toBe(true)
    expect(namesMatchers("import { runTrials } from 'agent-verdict'")).toBe(true)
    expect(namesMatchers("import { expect, test } from 'vitest'\ntest('adds', () => expect(1 + 1).toBe(2))")).toBe(
      false,
    )
    // A name inside a longer identifier is not a use.
    expect(namesMatchers('const toBeCorrectlyRounded = 1')).toBe(false)
  })
})
