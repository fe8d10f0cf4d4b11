// `agent-verdict/vitest` — a Vitest `setupFiles` entry: registers the matchers, wires the runtime
// (cassette per test file, verdicts on task.meta, un-awaited guard) and adds the matcher types.
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi } from 'vitest'
import { isEvalFile, PLUGIN_SETTINGS_KEY, type PluginSettings } from './eval-files'
import { COORDINATOR_PROVIDE_KEY } from '../src/judges/coordinator'
import { prewarmJudge } from '../src/judges/prewarm'
import { useCoordinator } from '../src/judges/run-limit'
import { matchers } from './index'
import { notAwaitedMessage } from './messages'
import { configureRuntime } from './runtime'
import { finishFile } from './test-judge'
import { settleUnawaited } from './unawaited-guard'
import type { AgentVerdictMatchers } from './types'
import {
  isVitestUpdateRun,
  suiteRanCompletely,
  vitestTimedOut,
  vitestTimeLimit,
  type SuiteLike,
  type TimedTaskLike,
} from './vitest-state'

type Task = NonNullable<ReturnType<typeof TestRunner.getCurrentTest>>

expect.extend(matchers)

// The run-wide judge limit, when `agent-verdict/global-setup` started a coordinator for this run.
useCoordinator(inject(COORDINATOR_PROVIDE_KEY as never) as string | undefined)

// The test whose code is running, carried through its awaits. The global `expect` binds `this.task` to
// the test that started last, which under `test.concurrent` is often another one; this store is not.
const running = new AsyncLocalStorage<Task>()
aroundEach(async (runTest, { task }) => running.run(task as Task, runTest))

configureRuntime({
  runner: 'vitest',
  isUpdate: () => isVitestUpdateRun(expect.getState()),
  runningTask: () => running.getStore(),
  // An expect called outside any test's async context (a detached callback): the last test started.
  currentTask: () => TestRunner.getCurrentTest(),
  testTimeLimit: (ctx) =>
    vitestTimeLimit((running.getStore() ?? ctx.task ?? TestRunner.getCurrentTest()) as TimedTaskLike | undefined),
})

// With `agent-verdict/vitest-plugin`, an eval file's tests run concurrently (as with `sequence.concurrent`,
// so `.sequential` still opts out) and get the judge-friendly timeout. This runs before the file is
// collected; Vitest resets the config after each file, so other files are left as they are.
const plugin = inject(PLUGIN_SETTINGS_KEY as never) as PluginSettings | undefined
const testFile = expect.getState().testPath
if (plugin && testFile && isEvalFile(testFile, plugin)) {
  const worker = (globalThis as { __vitest_worker__?: { config?: { sequence?: object } } }).__vitest_worker__
  vi.setConfig({
    sequence: { ...worker?.config?.sequence, concurrent: true },
    ...(plugin.testTimeout !== undefined ? { testTimeout: plugin.testTimeout } : {}),
  } as Parameters<typeof vi.setConfig>[0])
  // This file will call the judge: load its client while Vitest is still loading the file, not in the first test.
  void prewarmJudge()
}

// Vitest 4 does not await custom async matchers a test forgot to await: fail the test here instead.
afterEach(async ({ task }) => {
  const unawaited = await settleUnawaited(task)
  // A test stopped at its timeout never returned, so its pending calls may well have been awaited.
  if (unawaited.length > 0 && !vitestTimedOut(task)) throw new Error(notAwaitedMessage(unawaited))
})

// Vitest reads the first parameter as fixtures and requires a destructuring pattern there.
// biome-ignore lint/correctness/noEmptyPattern: Vitest requires a destructuring pattern for fixtures
afterAll(async ({}, suite) => {
  const file = (suite as SuiteLike).filepath ?? expect.getState().testPath
  if (file) await finishFile(file, { complete: suiteRanCompletely(suite as SuiteLike) })
})

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat Vitest's own `T = any`
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}

// The entry's API, by name: the matcher table and functions, a helper for matchers of your own, and the types.
export { matchers }
export {
  defineJudgeMatcher,
  toBeCorrect,
  toBeCorrectForImage,
  toBeFaithfulTo,
  toBeFaithfulToImage,
  toFollowInstructions,
  toHaveQuality,
  toSatisfyRubric,
  toHaveNoFailingSpans,
  toUseToolsEfficiently,
  toCompleteTask,
  toFollowPlan,
  toCallTool,
  toStayWithinBudget,
} from './index'
export type {
  AgentVerdictMatchers,
  MatchersOf,
  JudgeMatcher,
  JudgeMatcherDefinition,
  JudgeMatcherOptions,
  MatcherContext,
  MatcherResult,
  JudgeCallOptions,
  AgentMatcherOptions,
  TrialsOption,
  ToBeCorrectOptions,
  ToBeCorrectForImageOptions,
  ToBeFaithfulToOptions,
  ToBeFaithfulToImageOptions,
  ToHaveQualityOptions,
  ToSatisfyRubricOptions,
  ToHaveNoFailingSpansOptions,
  ToCompleteTaskOptions,
  ToCallToolOptions,
  ToStayWithinBudgetOptions,
} from './index'
