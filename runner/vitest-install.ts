// What a Vitest setup entry wires into each test file: the running test carried through its awaits, the
// runtime hooks, an eval file's concurrency and timeout, the un-awaited guard and the cassette's end.
// Called from the top level of `agent-verdict/vitest` and `agent-verdict/vitest-setup`, which Vitest runs
// again for every test file, so the hooks land on each file.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi } from 'vitest'
import { COORDINATOR_PROVIDE_KEY, COORDINATOR_TOKEN_PROVIDE_KEY } from '../src/judges/coordinator'
import { useCoordinator } from '../src/judges/run-limit'
import { isEvalFile, PLUGIN_SETTINGS_KEY, type PluginSettings } from './eval-files'
import { loadRecorder, recordingWanted } from './record-runtime'
import { clearRecordingRequest } from '../src/recording/enable'
import { configureRuntime } from './runtime'
import type { finishFile } from './test-judge'
import { notAwaitedError, settleUnawaited } from './unawaited-guard'
import {
  isVitestUpdateRun,
  suiteRanCompletely,
  vitestFileRun,
  vitestProjectName,
  vitestTimedOut,
  vitestTimeLimit,
  type SuiteLike,
  type TimedTaskLike,
} from './vitest-state'

/** The parts of the `vitest` module the entry passes in (imported there, so the runner's own instance is used). */
export interface VitestApi {
  afterAll: typeof afterAll
  afterEach: typeof afterEach
  aroundEach: typeof aroundEach
  expect: typeof expect
  inject: typeof inject
  TestRunner: typeof TestRunner
  vi: typeof vi
}

export interface InstallOptions {
  /** The cassette's end of file, when the judge code is loaded (no judge call ran in this file otherwise). */
  finishFile: () => typeof finishFile | undefined
  /** Called for a test file the plugin marks as an evaluation, before the file is collected. */
  onEvalFile?: () => void
}

type Task = NonNullable<ReturnType<typeof TestRunner.getCurrentTest>>

/**
 * Registers agent-verdict's hooks on the test file being loaded and points the runtime at its tests.
 *
 * @example
 * installVitestRuntime({ afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi }, { finishFile: () => finishFile })
 */
export function installVitestRuntime(api: VitestApi, options: InstallOptions): void {
  const { afterAll, afterEach, aroundEach, expect, inject, TestRunner, vi } = api
  // The run-wide judge limit, when `agent-verdict/global-setup` started a coordinator for this run.
  useCoordinator(
    inject(COORDINATOR_PROVIDE_KEY as never) as string | undefined,
    inject(COORDINATOR_TOKEN_PROVIDE_KEY as never) as string | undefined,
  )

  // The test whose code is running, carried through its awaits. The global `expect` binds `this.task` to
  // the test that started last, which under `test.concurrent` is often another one; this store is not.
  const running = new AsyncLocalStorage<Task>()
  const attemptOfTask = (task: unknown) => {
    const result = (task as { result?: { retryCount?: number; repeatCount?: number } } | undefined)?.result
    return `${result?.retryCount ?? 0}.${result?.repeatCount ?? 0}`
  }
  // Agent recordings start at the file's first test, after its beforeAll: a user's msw is set up by then.
  const plugin = inject(PLUGIN_SETTINGS_KEY as never) as PluginSettings | undefined
  const testFile = expect.getState().testPath
  const evalFile = Boolean(plugin && testFile && isEvalFile(testFile, plugin))
  clearRecordingRequest() // a request is per test file; the worker may have run another one before
  let recording: Promise<typeof import('../src/recording/recorder') | undefined> | undefined
  const startRecording = () =>
    (recording ??= (async () => {
      const options = testFile ? recordingWanted({ evalFile, plugin: plugin?.recordings }) : undefined
      if (!options || !testFile) return undefined
      const recorder = await loadRecorder()
      const current = () => {
        const task = running.getStore() as { fullTestName?: string } | undefined
        return task?.fullTestName ? { test: task.fullTestName, attempt: attemptOfTask(task) } : undefined
      }
      recorder.beginFileRecording(testFile, options, current, { update: isVitestUpdateRun(expect.getState()) })
      return recorder
    })())
  aroundEach(async (runTest, { task }) => {
    await startRecording()
    return running.run(task as Task, runTest)
  })

  configureRuntime({
    runner: 'vitest',
    isUpdate: () => isVitestUpdateRun(expect.getState()),
    project: vitestProjectName,
    matcherState: () => expect.getState(),
    runningTask: () => running.getStore(),
    // An expect called outside any test's async context (a detached callback): the last test started.
    currentTask: () => TestRunner.getCurrentTest(),
    testTimeLimit: (ctx) =>
      vitestTimeLimit((running.getStore() ?? ctx.task ?? TestRunner.getCurrentTest()) as TimedTaskLike | undefined),
    // Vitest counts a test's retries and repeats on its result, set before each attempt runs.
    attemptOf: (ctx) => {
      const task = (running.getStore() ?? ctx.task) as
        | { result?: { retryCount?: number; repeatCount?: number } }
        | undefined
      return `${task?.result?.retryCount ?? 0}.${task?.result?.repeatCount ?? 0}`
    },
  })

  // With `agent-verdict/vitest-plugin`, an eval file's tests run concurrently (as with `sequence.concurrent`,
  // so `.sequential` still opts out) and get the judge-friendly timeout. This runs before the file is
  // collected; Vitest resets the config after each file, so other files are left as they are.
  if (evalFile && plugin) {
    const worker = (globalThis as { __vitest_worker__?: { config?: { sequence?: object } } }).__vitest_worker__
    vi.setConfig({
      sequence: { ...worker?.config?.sequence, concurrent: true },
      ...(plugin.testTimeout !== undefined ? { testTimeout: plugin.testTimeout } : {}),
    } as Parameters<typeof vi.setConfig>[0])
    options.onEvalFile?.()
  }

  // Vitest 4 does not await custom async matchers a test forgot to await: fail the test here instead.
  afterEach(async ({ task }) => {
    const unawaited = await settleUnawaited(task)
    // A test stopped at its timeout never returned, so its pending calls may well have been awaited.
    if (unawaited.length > 0 && !vitestTimedOut(task)) throw notAwaitedError(unawaited)
    // A replayed test that made a call with no recording fails, even if the agent swallowed its SDK's error.
    const recorder = await recording
    const missed = await recorder?.endTestRecording(
      (task as { fullTestName: string }).fullTestName,
      attemptOfTask(task),
    )
    if (missed) throw missed
  })

  // Vitest reads the first parameter as fixtures and requires a destructuring pattern there.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest requires a destructuring pattern for fixtures
  afterAll(async ({}, suite) => {
    const file = (suite as SuiteLike).filepath ?? expect.getState().testPath
    const finish = options.finishFile()
    const complete = suiteRanCompletely(suite as SuiteLike)
    const missed = await (await recording)?.endFileRecording({ complete })
    if (file && finish) await finish(file, { complete, run: vitestFileRun(suite as SuiteLike) })
    if (missed) throw missed
  })
}
