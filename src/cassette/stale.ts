// Which cassette entries a test file's run shows to be stale, and who may prune them (decision 0043): the rule the
// runner glue applies at the end of each test file, kept here as pure functions so it is tested without a runner.
import type { CassetteEntry, CassetteFile } from './store'

/** What a test file's run says about its tests: enough to tell which unused entries no test needs any more. */
export interface FileRun {
  /** Full names (`describe › test`) of the tests that ran and passed: each reached every judge call it makes. */
  passed: ReadonlySet<string>
  /** Full names of every test the file declares, run or not (skipped and filtered ones included). */
  declared: ReadonlySet<string>
  /** Every declared test ran (no `.skip`, `.only`, `.todo` or `-t` filter), passed or not. */
  allRan: boolean
  /** Every declared test ran and passed. */
  complete: boolean
}

/**
 * Whether an entry is this run's to prune: a run in a named Vitest project owns the entries that name its
 * project; a run outside named projects owns every entry. Another project's entries are never touched.
 */
export function ownedBy(entry: CassetteEntry, project: string | undefined): boolean {
  return project === undefined || (entry.projects?.includes(project) ?? false)
}

/**
 * The keys of the entries this run shows to be stale, sorted: owned by the run (see {@link ownedBy}), used by no
 * judge call of it, and either labelled with a test that ran and passed (it reached all its judge calls), or
 * labelled with a test the file no longer declares while every test of the file ran, or unlabelled (recorded outside
 * a matcher: whose it is is unknown) while every test of the file ran and passed. An entry of a test that failed,
 * was skipped or was filtered out (`-t`, `.only`, another file) is never stale: that test may not have reached it.
 *
 * @example
 * staleKeys(cassette.entries, judge.usedKeys, { passed: new Set(['refund']), declared, allRan: false, complete: false })
 */
export function staleKeys(
  entries: Record<string, CassetteEntry>,
  used: ReadonlySet<string>,
  run: FileRun,
  project?: string,
): string[] {
  return Object.entries(entries)
    .filter(([key, entry]) => {
      if (used.has(key) || !ownedBy(entry, project)) return false
      // Every test ran and passed: each labelled test either passed or is gone, and nothing unlabelled was missed.
      if (run.complete) return true
      if (entry.test === undefined) return false
      return run.passed.has(entry.test) || (run.allRan && !run.declared.has(entry.test))
    })
    .map(([key]) => key)
    .sort()
}

/**
 * Applies a run's bookkeeping to a fresh copy of the cassette: a named project adds itself to the entries it used
 * (so another project's `-u` leaves them alone), and `prune` keys are removed — for a named project, its name is
 * taken off the entry, which goes only when no project is left on it. Returns the keys removed or released.
 *
 * @example
 * await updateCassette(file, (c) => settleEntries(c, { used, prune: stale, project: 'unit' }))
 */
export function settleEntries(
  cassette: CassetteFile,
  options: { used: ReadonlySet<string>; prune: readonly string[]; project?: string },
): string[] {
  const { used, prune, project } = options
  if (project !== undefined)
    for (const key of used) {
      const entry = cassette.entries[key]
      if (entry && !entry.projects?.includes(project)) entry.projects = [...(entry.projects ?? []), project].sort()
    }
  const removed: string[] = []
  for (const key of prune) {
    const entry = cassette.entries[key]
    // Checked again on the fresh copy: another worker may have changed the entry since the run read it.
    if (!entry || used.has(key) || !ownedBy(entry, project)) continue
    removed.push(key)
    const others = project === undefined ? [] : (entry.projects ?? []).filter((p) => p !== project)
    if (others.length > 0) entry.projects = others
    else delete cassette.entries[key]
  }
  return removed
}

/**
 * The notice for a run that left stale entries in place: how many, for which tests, and the command that prunes them.
 *
 * @example
 * staleNotice('test/__verdicts__/a.test.ts.json', entries, keys, 'vitest') // 'agent-verdict: test/__verdicts__/… holds 2 stale …'
 */
export function staleNotice(
  file: string,
  entries: Record<string, CassetteEntry>,
  keys: readonly string[],
  runner: 'vitest' | 'jest' = 'vitest',
): string {
  const tests = [...new Set(keys.map((k) => entries[k]?.test).filter((t): t is string => t !== undefined))].sort()
  const shown = tests
    .slice(0, 3)
    .map((t) => JSON.stringify(t))
    .join(', ')
  const more = tests.length > 3 ? ` and ${tests.length - 3} more` : ''
  const of = tests.length ? ` (of ${shown}${more})` : ''
  const n = keys.length
  return `agent-verdict: ${file} holds ${n} stale verdict ${n === 1 ? 'entry' : 'entries'}${of} that no judge call of this run used — \`${runner === 'jest' ? 'jest' : 'vitest'} -u <this test file>\` prunes them (the tests they belong to must pass in that run); review and commit the diff`
}
