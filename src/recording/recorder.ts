// What a runner integration calls: start a test file's recording, tell which test a request belongs to, end a test
// (its replay misses fail it) and end the file. One file at a time per process, as runners run them.
import { resolveCassetteSettings } from '../cassette/modes'
import { hostRecorded, type RecordingOptions } from '../config/recording'
import { replayCauseFromEnv } from '../config/cassette-mode'
import { startIntercepting, stopIntercepting } from './intercept'
import { RecordingSession } from './session'
import { recordingPathFor } from './store'

/** The running test as the runner knows it, read in the async context of the request. */
export type CurrentTest = () => { test: string; attempt: string } | undefined

let session: RecordingSession | undefined

/**
 * Starts recording the agent calls of `testFile`'s tests into `__recordings__/<file>.json` beside it, in the cassette
 * mode in force (`live` records nothing). Returns the session, or `undefined` in live mode.
 *
 * @example
 * beginFileRecording('/repo/evals/refund.eval.ts', {}, () => ({ test: 'refund › answers', attempt: '0.0' }), { update: false })
 */
export function beginFileRecording(
  testFile: string,
  options: RecordingOptions,
  currentTest: CurrentTest,
  runner: { update: boolean },
): RecordingSession | undefined {
  const settings = resolveCassetteSettings()
  if (settings.mode === 'live') return undefined
  const cause = replayCauseFromEnv()
  session = new RecordingSession(recordingPathFor(testFile), {
    mode: settings.mode,
    update: settings.update || runner.update,
    ignoreBodyFields: options.ignoreBodyFields ?? [],
    because: cause === 'CI' ? 'replay mode, because CI is set' : 'replay mode (AGENT_VERDICT_MODE=replay)',
  })
  const current = session
  startIntercepting(() => {
    const at = currentTest()
    return at ? { session: current, ...at, records: (url) => hostRecorded(url, options) } : undefined
  })
  return session
}

/**
 * A test's attempt ended: resolves to the replay misses it had (an error to fail it with), or `undefined`.
 *
 * @example
 * const error = await endTestRecording('refund › answers', '0.0'); if (error) throw error
 */
export async function endTestRecording(test: string, attempt: string): Promise<Error | undefined> {
  return missError((await session?.finishTest(test, attempt)) ?? [])
}

/**
 * The file ended: waits for its writes, prunes on a complete update run, stops intercepting. Resolves to the misses
 * of tests whose end was never reported (an error to fail the file with), or `undefined`.
 *
 * @example
 * const error = await endFileRecording({ complete: true }); if (error) throw error
 */
export async function endFileRecording(options: { complete: boolean }): Promise<Error | undefined> {
  const ending = session
  session = undefined
  stopIntercepting()
  if (!ending) return undefined
  const misses = await ending.unreportedMisses()
  await ending.finishFile({ complete: options.complete && misses.length === 0 })
  return missError(misses)
}

function missError(misses: string[]): Error | undefined {
  if (misses.length === 0) return undefined
  const error = new Error(
    misses.length === 1 ? misses[0] : `${misses.length} agent calls had no recording:\n\n${misses.join('\n\n')}`,
  )
  error.name = 'RecordingMissError'
  return error
}

/**
 * The recording of the running file, if any (for reports and the bench).
 *
 * @example
 * activeRecording()?.stats.replayed
 */
export function activeRecording(): RecordingSession | undefined {
  return session
}
