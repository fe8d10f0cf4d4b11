// `agent-verdict/vitest` — a Vitest `setupFiles` entry: registers the matchers, wires the runtime
// (cassette per test file, verdicts on task.meta, un-awaited guard) and adds the matcher types.
import { afterAll, afterEach, expect, TestRunner } from 'vitest'
import { matchers } from './index'
import { notAwaitedMessage } from './messages'
import { configureRuntime, finishFile, settleUnawaited } from './runtime'
import type { AgentVerdictMatchers } from './types'
import { isVitestUpdateRun, suiteRanCompletely, vitestTimedOut, vitestTimeLimit, type SuiteLike, type TimedTaskLike } from './vitest-state'

expect.extend(matchers)
// `this.task` is set for every expect bound to a test; getCurrentTest covers an expect that is not.
configureRuntime({
  runner: 'vitest',
  isUpdate: () => isVitestUpdateRun(expect.getState()),
  currentTask: () => TestRunner.getCurrentTest(),
  testTimeLimit: (ctx) => vitestTimeLimit((ctx.task ?? TestRunner.getCurrentTest()) as TimedTaskLike | undefined),
})

// Vitest 4 does not await custom async matchers a test forgot to await: fail the test here instead.
afterEach(async ({ task }) => {
  const unawaited = await settleUnawaited(task)
  // A test stopped at its timeout never returned, so its pending calls may well have been awaited.
  if (unawaited.length > 0 && !vitestTimedOut(task)) throw new Error(notAwaitedMessage(unawaited))
})

// Vitest reads the first parameter as fixtures and requires a destructuring pattern there.
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  const file = (suite as SuiteLike).filepath ?? expect.getState().testPath
  if (file) await finishFile(file, { complete: suiteRanCompletely(suite as SuiteLike) })
})

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {}
}

export { matchers }
export { attachVerdicts } from './runtime'
export type * from './index'
