// `agent-verdict/jest` — a Jest `setupFilesAfterEnv` entry: registers the matchers, writes each
// test's verdicts to the worker's verdict log, guards against un-awaited matchers, adds the types.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from '@jest/globals'
import { matchers } from './index'
import {
  appendVerdictLine,
  jestFileRanCompletely,
  jestFileRun,
  jestTimedOut,
  jestTimeLimit,
} from '../runner/jest-state'
import type { MatcherContext } from '../runner/context'
import { takeBufferedVerdicts, takeFileBufferedVerdicts } from '../runner/attach-verdicts'
import { configureRuntime, testKeyOf, testNameOf } from '../runner/runtime'
import { finishFile } from '../runner/test-judge'
import { notAwaitedError, settleUnawaited } from '../runner/unawaited-guard'
import type { AgentVerdictMatchers } from './types'
import { useCoordinator } from '../src/judges/run-limit'
import { loadRecorder, recordingWanted } from '../runner/record-runtime'

type JestState = MatcherContext & { snapshotState?: { _updateSnapshot?: string } }
const state = () => expect.getState() as JestState

expect.extend(matchers)
// Workers learn the run-wide judge limit's address from AGENT_VERDICT_COORDINATOR (set by agent-verdict/global-setup).
useCoordinator(undefined, undefined, 'jest')
// Jest runs beforeEach again for each retry (`jest.retryTimes`): the count is the test's attempt.
const attempts = new Map<string, number>()
configureRuntime({
  runner: 'jest',
  isUpdate: () => state().snapshotState?._updateSnapshot === 'all',
  matcherState: state,
  testTimeLimit: () => jestTimeLimit(),
  attemptOf: (ctx) => String(attempts.get(testNameOf(ctx) ?? '') ?? 0),
})

// Agent recordings, when this file asked for them (`agent-verdict/record` in setupFilesAfterEnv or the test file, or
// AGENT_VERDICT_RECORDINGS=all). The running test is Jest's own: `currentConcurrentTestName` under test.concurrent.
let recorder: Awaited<ReturnType<typeof loadRecorder>> | undefined
const attemptOfName = (name: string) => String(attempts.get(name) ?? 0)
beforeAll(async () => {
  const { testPath } = state()
  const options = testPath ? recordingWanted({ evalFile: false }) : undefined
  if (!options || !testPath) return
  recorder = await loadRecorder()
  recorder.beginFileRecording(
    testPath,
    options,
    () => {
      const name = testNameOf(state())
      return name ? { test: name, attempt: attemptOfName(name) } : undefined
    },
    { update: state().snapshotState?._updateSnapshot === 'all' },
  )
})

beforeEach(() => {
  const name = testNameOf(state()) ?? ''
  attempts.set(name, (attempts.get(name) ?? -1) + 1)
})

afterEach(async () => {
  const current = state()
  const { testPath } = current
  const fullName = testNameOf(current)
  // A matcher still running now was not awaited: let it finish so its verdict is logged, then fail.
  const unawaited = await settleUnawaited(testKeyOf(current))
  const meta = takeBufferedVerdicts(testPath, fullName)
  if (meta && testPath) appendVerdictLine({ testPath, fullName: fullName ?? '', ...meta })
  // A test stopped at its timeout never returned, so its pending calls may well have been awaited.
  if (unawaited.length > 0 && !jestTimedOut()) throw notAwaitedError(unawaited)
  // A replayed test that made a call with no recording fails, even if the agent swallowed its SDK's error.
  const missed =
    fullName === undefined ? undefined : await recorder?.endTestRecording(fullName, attemptOfName(fullName))
  if (missed) throw missed
})

afterAll(async () => {
  const { testPath } = state()
  if (!testPath) return
  // Jest runs no afterEach for test.concurrent: their verdicts (attributed through Jest's own
  // per-test async context, `currentConcurrentTestName`) are logged here, once the file's tests are done.
  for (const [fullName, meta] of takeFileBufferedVerdicts(testPath)) appendVerdictLine({ testPath, fullName, ...meta })
  const complete = jestFileRanCompletely()
  const missed = await recorder?.endFileRecording({ complete })
  recorder = undefined
  await finishFile(testPath, { complete, run: jestFileRun() })
  if (missed) throw missed
})

declare module 'expect' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends AgentVerdictMatchers<Promise<void>, R> {}
}

declare global {
  // For `@types/jest` users, whose `expect` reads the global `jest.Matchers`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // biome-ignore lint/complexity/noBannedTypes: the augmentation must repeat Jest's own `T = {}`
    interface Matchers<R, T = {}> extends AgentVerdictMatchers<Promise<void>, R> {}
  }
}

// The entry's API, by name (shared with the other runner entry).
export * from './api'
