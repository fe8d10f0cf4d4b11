import { describe, expect, test, vi } from 'vitest'
import { matchers } from '../../matchers/index'

describe('lazyMatchers (agent-verdict/vitest-setup)', () => {
  test('stands in for every matcher of the table, under the same names', async () => {
    const { lazyMatchers } = await import('../../matchers/lazy-matchers')
    const lazy = lazyMatchers()
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(matchers).sort())
    for (const [name, fn] of Object.entries(lazy)) expect(fn.name).toBe(name)
  })

  test('a synchronous matcher called before its code loaded says so; once loaded it answers synchronously', async () => {
    vi.resetModules()
    const fresh = await import('../../matchers/lazy-matchers')
    const lazy = fresh.lazyMatchers()
    expect(fresh.loadedFinishFile()).toBeUndefined()
    const toCallTool = lazy.toCallTool as (...a: unknown[]) => unknown
    expect(() => toCallTool.call({}, {}, 'search')).toThrow(
      /toCallTool was called before agent-verdict loaded its code\. .*names toCallTool or imports agent-verdict: call it inside a test or hook, and if the call comes from a helper module, add `import 'agent-verdict\/vitest'` to the test file/,
    )
    // The output group alone does not bring the trace matchers' code.
    await fresh.loadMatcherCode(['output'])
    expect(typeof fresh.loadedFinishFile()).toBe('function')
    expect(() => toCallTool.call({}, {}, 'search')).toThrow(/before agent-verdict loaded its code/)
    await fresh.loadMatcherCode(['trace'])
    const finish = fresh.loadedFinishFile()
    await fresh.loadMatcherCode() // both groups again: one load each, shared
    expect(fresh.loadedFinishFile()).toBe(finish)
    // Now it reaches the real matcher, which answers (here: a usage error for a received value that is no trace).
    expect(() => toCallTool.call({ isNot: false }, 42, 'search')).toThrow(/toCallTool/)
    expect(() => toCallTool.call({ isNot: false }, 42, 'search')).not.toThrow(/before agent-verdict loaded/)
  })

  test('an async matcher loads its own group on first use', async () => {
    vi.resetModules()
    const fresh = await import('../../matchers/lazy-matchers')
    const lazy = fresh.lazyMatchers()
    const toHaveNoFailingSpans = lazy.toHaveNoFailingSpans as (
      ...a: unknown[]
    ) => Promise<{ pass: boolean; message: () => string }>
    // No code loaded yet: the stand-in loads the trace group, then the real matcher rejects a received value that is no trace.
    await expect(toHaveNoFailingSpans.call({ isNot: false, equals: () => false }, 42)).rejects.toThrow(
      /toHaveNoFailingSpans/,
    )
    expect(typeof fresh.loadedFinishFile()).toBe('function')
  })

  test('a test file calls for the groups of the matchers it names, both when it mentions agent-verdict (an import)', async () => {
    const { groupsNamedIn } = await import('../../matchers/lazy-matchers')
    expect(groupsNamedIn("await expect(answer).toBeCorrect({ reference: 'Paris' })")).toEqual(['output'])
    expect(groupsNamedIn('expect(trace).toCallTool("search")')).toEqual(['trace'])
    expect(groupsNamedIn('await expect(trace).toHaveNoFailingSpans()')).toEqual(['trace'])
    expect(groupsNamedIn('await expect(a).toHaveQuality(); expect(t).toStayWithinBudget({ tokens: 10 })')).toEqual([
      'output',
      'trace',
    ])
    expect(groupsNamedIn("import { runTrials } from 'agent-verdict'")).toEqual(['output', 'trace'])
    expect(groupsNamedIn("import { expect, test } from 'vitest'\ntest('adds', () => expect(1 + 1).toBe(2))")).toEqual(
      [],
    )
    // A name inside a longer identifier is not a use.
    expect(groupsNamedIn('const toBeCorrectlyRounded = 1')).toEqual([])
  })
})
