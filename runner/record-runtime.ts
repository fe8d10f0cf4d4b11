// Agent recordings as the runner entries turn them on: which test files record (eval files with the Vitest plugin,
// files that call `recordAgentCalls`, or all with AGENT_VERDICT_RECORDINGS=all), and the recording code loaded only
// for those files (interceptors and zod cost a test file that records nothing nothing, decision 0031).
import { readCassetteSettings } from '../src/config/cassette-mode'
import { readRecordingsScope, type RecordingOptions } from '../src/config/recording'
import { requestedRecording } from '../src/recording/enable'

/**
 * The options to record this test file with, or `undefined` when it records nothing.
 *
 * @example
 * recordingWanted({ evalFile: true, plugin: {} }) // {}
 */
export function recordingWanted(file: {
  evalFile: boolean
  /** The plugin's `recordings` option (`false` turns eval files' recordings off); absent without the plugin. */
  plugin?: RecordingOptions | false
}): RecordingOptions | undefined {
  const scope = readRecordingsScope()
  if (scope === 'off' || liveRun()) return undefined
  const requested = requestedRecording()
  if (requested) return requested
  const fromPlugin = file.plugin === false ? undefined : (file.plugin ?? {})
  if (scope === 'all') return fromPlugin ?? {}
  return file.evalFile ? fromPlugin : undefined
}

/**
 * A live run records and replays nothing: the recording code (the interceptors, which load Node's fetch
 * implementation) is then not loaded at all. A mode that does not parse is left to the recorder to report.
 */
function liveRun(): boolean {
  try {
    return readCassetteSettings().mode === 'live'
  } catch {
    return false
  }
}

/** The recording code, loaded on first use. */
export const loadRecorder = () => import('../src/recording/recorder')
