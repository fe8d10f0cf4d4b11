/** The parts of a Vitest task tree the setup entry reads (structural, so no runner import is needed). */
export interface SuiteLike {
  type?: string
  mode?: string
  filepath?: string
  result?: { state?: string }
  tasks?: SuiteLike[]
}

/**
 * True for `vitest -u`: the snapshot state of the running test says `all`, or the worker config does.
 *
 * @example
 * isVitestUpdateRun(expect.getState())
 */
export function isVitestUpdateRun(state: { snapshotState?: unknown }): boolean {
  const snapshot = state.snapshotState as { _updateSnapshot?: string } | undefined
  if (snapshot?._updateSnapshot !== undefined) return snapshot._updateSnapshot === 'all'
  const worker = (globalThis as { __vitest_worker__?: { config?: { snapshotOptions?: { updateSnapshot?: string } } } }).__vitest_worker__
  return worker?.config?.snapshotOptions?.updateSnapshot === 'all'
}

/**
 * True when every test of the file ran and passed: only then is an unused cassette entry really
 * obsolete (a skipped, filtered or failed test may not have reached its matchers).
 *
 * @example
 * afterAll((_ctx, suite) => suiteRanCompletely(suite))
 */
export function suiteRanCompletely(suite: SuiteLike): boolean {
  return (suite.tasks ?? []).every((task) => {
    if (task.mode !== 'run') return false
    if (task.type === 'test') return task.result?.state === 'pass'
    return suiteRanCompletely(task)
  })
}
