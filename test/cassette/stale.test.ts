// Decision 0043: which unused entries a run shows to be stale, and which a named Vitest project may prune.
import { describe, expect, it } from 'vitest'
import { settleEntries, staleKeys, staleNotice, type FileRun } from '../../src/cassette/stale'
import type { CassetteFile } from '../../src/cassette/store'
import { storedEntry } from './helpers'

const entry = storedEntry
const key = (c: string) => c.repeat(64)
const run = (r: Partial<FileRun>): FileRun => ({
  passed: new Set(),
  declared: new Set(),
  allRan: false,
  complete: false,
  ...r,
})

describe('staleKeys', () => {
  const entries = {
    [key('a')]: entry({ test: 'passes' }), // used this run
    [key('b')]: entry({ test: 'passes' }), // the passing test no longer asks this
    [key('c')]: entry({ test: 'fails' }),
    [key('d')]: entry({ test: 'filtered out' }),
    [key('e')]: entry({ test: 'deleted test' }),
    [key('f')]: entry(), // recorded outside a matcher: whose, unknown
  }
  const used = new Set([key('a')])

  it('a test that passed gives up the entries it no longer uses, whatever other tests did', () => {
    const r = run({ passed: new Set(['passes']), declared: new Set(['passes', 'fails', 'filtered out']) })
    expect(staleKeys(entries, used, r)).toEqual([key('b')])
  })

  it('a deleted test’s entries are stale only when every test of the file ran (no -t, .only, .skip)', () => {
    const declared = new Set(['passes', 'fails', 'filtered out'])
    expect(staleKeys(entries, used, run({ passed: new Set(['passes']), declared, allRan: true }))).toEqual([
      key('b'),
      key('e'),
    ])
  })

  it('a filtered run (-t, one file) never names entries of tests that did not run', () => {
    const r = run({ passed: new Set(['passes']), declared: new Set(['passes', 'fails', 'filtered out']) })
    const stale = staleKeys(entries, used, r)
    expect(stale).not.toContain(key('c'))
    expect(stale).not.toContain(key('d'))
    expect(stale).not.toContain(key('f'))
  })

  it('a file whose every test ran and passed gives up every unused entry, unlabelled ones too', () => {
    expect(staleKeys(entries, used, run({ complete: true, allRan: true }))).toEqual(['b', 'c', 'd', 'e', 'f'].map(key))
  })

  it('a named project considers only the entries that name it', () => {
    const shared = {
      [key('a')]: entry({ test: 't', projects: ['unit'] }),
      [key('b')]: entry({ test: 't', projects: ['e2e'] }),
      [key('c')]: entry({ test: 't', projects: ['e2e', 'unit'] }),
      [key('d')]: entry({ test: 't' }),
    }
    const complete = run({ complete: true, allRan: true, passed: new Set(['t']), declared: new Set(['t']) })
    expect(staleKeys(shared, new Set(), complete, 'unit')).toEqual([key('a'), key('c')])
    expect(staleKeys(shared, new Set(), complete, 'e2e')).toEqual([key('b'), key('c')])
  })
})

describe('settleEntries', () => {
  const cassette = (): CassetteFile => ({
    version: 2,
    entries: {
      [key('a')]: entry({ test: 't', projects: ['unit'] }),
      [key('b')]: entry({ test: 't', projects: ['e2e'] }),
      [key('c')]: entry({ test: 't', projects: ['e2e', 'unit'] }),
      [key('d')]: entry({ test: 't' }),
    },
  })

  it("one project's prune never removes another project's entry; a shared one loses only the pruning project", () => {
    const c = cassette()
    const removed = settleEntries(c, { used: new Set(), prune: [key('a'), key('b'), key('c')], project: 'unit' })
    expect(removed).toEqual([key('a'), key('c')])
    expect(Object.keys(c.entries).sort()).toEqual([key('b'), key('c'), key('d')])
    expect(c.entries[key('c')].projects).toEqual(['e2e'])
  })

  it('a project claims the entries it used, so the other project’s prune keeps them', () => {
    const c = cassette()
    settleEntries(c, { used: new Set([key('b'), key('d')]), prune: [], project: 'unit' })
    expect(c.entries[key('b')].projects).toEqual(['e2e', 'unit'])
    expect(c.entries[key('d')].projects).toEqual(['unit'])
    settleEntries(c, { used: new Set(), prune: [key('b')], project: 'e2e' })
    expect(c.entries[key('b')].projects).toEqual(['unit'])
  })

  it('outside named projects a prune removes the entry, and a used key is never removed', () => {
    const c = cassette()
    expect(settleEntries(c, { used: new Set([key('b')]), prune: [key('a'), key('b')] })).toEqual([key('a')])
    expect(Object.keys(c.entries).sort()).toEqual([key('b'), key('c'), key('d')])
    expect(c.entries[key('b')].projects).toEqual(['e2e'])
  })
})

it('the notice says how many entries are stale, of which tests, and the command that prunes them', () => {
  const entries = { [key('a')]: entry({ test: 'refund is right' }), [key('b')]: entry() }
  expect(staleNotice('test/__verdicts__/a.test.ts.json', entries, [key('a'), key('b')], 'jest')).toBe(
    'agent-verdict: test/__verdicts__/a.test.ts.json holds 2 stale verdict entries (of "refund is right") that no judge call of this run used — `jest -u <this test file>` prunes them (the tests they belong to must pass in that run); review and commit the diff',
  )
})
