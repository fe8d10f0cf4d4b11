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
      /toCallTool was called before agent-verdict finished loading its matchers: call it inside a test or hook/,
    )
    const code = await fresh.loadMatcherCode()
    expect(fresh.loadedMatcherCode()).toBe(code)
    expect(await fresh.loadMatcherCode()).toBe(code) // one load, shared
    // Now it reaches the real matcher, which answers (here: a usage error for a received value that is no trace).
    expect(() => (lazy.toCallTool as (...a: unknown[]) => unknown).call({ isNot: false }, 42, 'search')).toThrow(
      /toCallTool/,
    )
    expect(() => (lazy.toCallTool as (...a: unknown[]) => unknown).call({ isNot: false }, 42, 'search')).not.toThrow(
      /before agent-verdict finished loading/,
    )
  })
})
