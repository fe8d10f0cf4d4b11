// Agent recordings as the runner entries turn them on: which test files record (eval files with the Vitest plugin,
// files that call `recordAgentCalls`, or all with AGENT_VERDICT_RECORDINGS=all), and the recording code loaded only
// for those files (interceptors and zod cost a test file that records nothing nothing, decision 0031).
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
  if (scope === 'off') return undefined
  const requested = requestedRecording()
  if (requested) return requested
  const fromPlugin = file.plugin === false ? undefined : (file.plugin ?? {})
  if (scope === 'all') return fromPlugin ?? {}
  return file.evalFile ? fromPlugin : undefined
}

/** The recording code, loaded on first use. */
export const loadRecorder = () => import('../src/recording/recorder')
