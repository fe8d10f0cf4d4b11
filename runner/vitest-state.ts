import type { FileRun } from '../src/cassette/stale'
import type { TestTimeLimit } from '../src/judges/deadline'

/** The parts of a Vitest task tree the setup entry reads (structural, so no runner import is needed). */
export interface SuiteLike {
  type?: string
  name?: string
  fullTestName?: string
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
  const worker = (globalThis as { __vitest_worker__?: { config?: { snapshotOptions?: { updateSnapshot?: string } } } })
    .__vitest_worker__
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

/**
 * What the file's run says about its tests, from its task tree after they ran: the full names of those that ran and
 * passed (a name shared with a test that did not pass is left out), every declared name, and whether all ran.
 *
 * @example
 * afterAll((_ctx, suite) => finishFile(file, { complete, run: vitestFileRun(suite) }))
 */
export function vitestFileRun(suite: SuiteLike): FileRun {
  const tests: Array<{ name: string; ran: boolean; passed: boolean }> = []
  const walk = (task: SuiteLike) => {
    for (const child of task.tasks ?? []) {
      if (child.type === 'test')
        tests.push({
          name: child.fullTestName ?? child.name ?? '',
          ran: child.mode === 'run',
          passed: child.mode === 'run' && child.result?.state === 'pass',
        })
      else walk(child)
    }
  }
  walk(suite)
  const failing = new Set(tests.filter((t) => !t.passed).map((t) => t.name))
  return {
    passed: new Set(tests.filter((t) => t.passed && !failing.has(t.name)).map((t) => t.name)),
    declared: new Set(tests.map((t) => t.name)),
    allRan: tests.every((t) => t.ran),
    complete: suiteRanCompletely(suite),
  }
}

/**
 * The name of the Vitest project (`test.projects`) running this worker, or `undefined` outside a named project.
 *
 * @example
 * vitestProjectName() // 'unit'
 */
export function vitestProjectName(): string | undefined {
  const worker = (globalThis as { __vitest_worker__?: { config?: { name?: unknown } } }).__vitest_worker__
  const name = worker?.config?.name
  return typeof name === 'string' && name !== '' ? name : undefined
}

/** The parts of a running Vitest test that give its time limit. */
export interface TimedTaskLike {
  timeout?: number
  result?: { startTime?: number }
}

/**
 * The running test's start and timeout (`testTimeout`, or the per-test timeout argument), or
 * `undefined` when Vitest does not say (no task, no timeout).
 *
 * @example
 * vitestTimeLimit(TestRunner.getCurrentTest()) // { startedAt, timeoutMs: 5000, setting: … }
 */
export function vitestTimeLimit(
  task: TimedTaskLike | undefined,
  now: () => number = Date.now,
): TestTimeLimit | undefined {
  const timeoutMs = task?.timeout
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return undefined
  const startedAt = typeof task?.result?.startTime === 'number' ? task.result.startTime : now()
  return { startedAt, timeoutMs, setting: 'test.testTimeout in vitest.config, or the timeout argument of test()' }
}

/**
 * True when Vitest stopped the test at its timeout ("Test timed out in 5000ms").
 *
 * @example
 * if (!vitestTimedOut(task)) throw new Error(notAwaitedMessage(calls))
 */
export function vitestTimedOut(task: { result?: { errors?: ReadonlyArray<{ message?: string }> } }): boolean {
  return (task.result?.errors ?? []).some((e) => /test timed out in \d+ ?ms/i.test(e?.message ?? ''))
}
