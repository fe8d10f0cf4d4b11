// The runner entries' hooks into the matchers (which runner, which test is running, its time limit), and
// how a matcher call names its test. The concerns built on them: judge resolution (test-judge.ts),
// verdict attachment (attach-verdicts.ts) and the un-awaited guard (unawaited-guard.ts).
import type { TestTimeLimit } from '../src/judges/deadline'
import { setRunnerJudge } from '../src/judges/runner-judge'
import type { MatcherContext } from './context'

export type TaskLike = NonNullable<MatcherContext['task']>

/** What a runner entry (`agent-verdict/vitest`, `agent-verdict/jest`) plugs into the shared runtime. */
export interface RunnerHooks {
  runner: 'vitest' | 'jest'
  /** True for `vitest -u` / `jest -u`: record misses even in CI, prune obsolete entries. */
  isUpdate(): boolean
  /** The test whose async context the call runs in (an AsyncLocalStorage the entry binds when a test starts); wins over `this.task`, which the global `expect` of concurrent tests gets wrong. */
  runningTask?(): TaskLike | undefined
  /** The running test when the matcher context has none (Vitest's `getCurrentTest`). */
  currentTask?(): TaskLike | undefined
  /** The running test's start and timeout, so judge calls end before it (decision 0017). */
  testTimeLimit?(ctx: MatcherContext): TestTimeLimit | undefined
  /**
   * Which run of the test this is (a retry, a repeat), e.g. `'1.0'`: identical judge calls are numbered per
   * test and per attempt, so a retried test replays the entries its first attempt recorded.
   */
  attemptOf?(ctx: MatcherContext): string | undefined
  /** The named Vitest project (`test.projects`) running the file: cassette entries are owned per project (decision 0043). */
  project?(): string | undefined
  /** The runner's `expect.getState()`: which file and test a programmatic judge call (`evaluate*`) runs in. */
  matcherState?(): MatcherContext
}

let hooks: RunnerHooks | undefined

/** The hooks of the runner entry that loaded the matchers, if any. */
export function runnerHooks(): RunnerHooks | undefined {
  return hooks
}

/**
 * Called once by a runner entry. Without it (matchers registered by hand) verdicts still go to
 * `this.task.meta` in Vitest or to the per-test buffer, and update runs come from `AGENT_VERDICT_UPDATE`.
 *
 * @example
 * configureRuntime({ runner: 'vitest', isUpdate: () => false })
 */
export function configureRuntime(next: RunnerHooks): void {
  hooks = next
  // `evaluate*` and `diagnose` called in a test use the file's cassette too (decision 0043). The judge code loads
  // only when such a call is made, as the matchers' does (decision 0031).
  setRunnerJudge(async (judge, label) => {
    const state = hooks?.matcherState?.()
    if (!state?.testPath) return judge
    return (await import('./test-judge')).apiJudgeFor(state, judge, label)
  })
}

// --- which test a matcher call belongs to ---

/** A per-test key from the file and the test's full name (Jest, whose matcher context has no task). */
export const testBufferKey = (testPath: string | undefined, name: string | undefined) =>
  `${testPath ?? ''}\u0000${name ?? ''}`

export type TestIdentity = Pick<
  MatcherContext,
  'task' | 'testPath' | 'currentTestName' | 'currentConcurrentTestName' | 'currentTestIdentity'
>

/**
 * The running test's full name: in Vitest the test whose async context the call runs in (the global
 * `expect`'s `currentTestName` is the test that started last, another one under concurrency); Jest's
 * concurrent tests only know it through `currentConcurrentTestName`.
 */
export function testNameOf(ctx: TestIdentity): string | undefined {
  const running = hooks?.runningTask?.() as { fullTestName?: unknown } | undefined
  if (typeof running?.fullTestName === 'string') return running.fullTestName
  return ctx.currentConcurrentTestName?.() ?? ctx.currentTestName
}

/** Which test a matcher call belongs to: the task object in Vitest, the test identity (or path + name) in Jest. */
export function testKeyOf(ctx: TestIdentity): unknown {
  return (
    hooks?.runningTask?.() ??
    ctx.task ??
    hooks?.currentTask?.() ??
    ctx.currentTestIdentity?.() ??
    testBufferKey(ctx.testPath, testNameOf(ctx))
  )
}
