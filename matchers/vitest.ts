// `agent-verdict/vitest` — a Vitest `setupFiles` entry: registers the matchers, wires the runtime
// (cassette per test file, verdicts on task.meta, un-awaited guard) and adds the matcher types.
import { afterAll, afterEach, expect, inject, TestRunner } from 'vitest'
import { COORDINATOR_PROVIDE_KEY } from '../src/judges/coordinator'
import { useCoordinator } from '../src/judges/run-limit'
import { matchers } from './index'
import { notAwaitedMessage } from './messages'
import { configureRuntime, finishFile, settleUnawaited } from './runtime'
import type { AgentVerdictMatchers } from './types'
import { isVitestUpdateRun, suiteRanCompletely, type SuiteLike } from './vitest-state'

expect.extend(matchers)
// The run-wide judge limit, when `agent-verdict/global-setup` started a coordinator for this run.
useCoordinator(inject(COORDINATOR_PROVIDE_KEY as never) as string | undefined)
// `this.task` is set for every expect bound to a test; getCurrentTest covers an expect that is not.
configureRuntime({ runner: 'vitest', isUpdate: () => isVitestUpdateRun(expect.getState()), currentTask: () => TestRunner.getCurrentTest() })

// Vitest 4 does not await custom async matchers a test forgot to await: fail the test here instead.
afterEach(async ({ task }) => {
  const unawaited = await settleUnawaited(task)
  if (unawaited.length > 0) throw new Error(notAwaitedMessage(unawaited))
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
