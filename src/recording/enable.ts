// The one line that turns agent recordings on for a test file outside the Vitest plugin's eval files (a Jest setup
// file, any Vitest test file): it marks the file; the runner integration starts recording at its first test. A
// global symbol, not module state: the runner integration and this entry may be separate module instances.
import { checkRecordingOptions, type RecordingOptions } from '../config/recording'

const REQUEST = Symbol.for('agent-verdict.recordings.request')

/**
 * Records (or replays) the agent's HTTP calls of the tests of this test file, as eval files do with the Vitest
 * plugin. Call it at the top of a test file or in a setup file (`import 'agent-verdict/record'` does it with defaults).
 *
 * @example
 * import { recordAgentCalls } from 'agent-verdict/record'
 * recordAgentCalls({ skipHosts: ['telemetry.example.com'], ignoreBodyFields: ['metadata.request_id'] })
 */
export function recordAgentCalls(options: RecordingOptions = {}): void {
  ;(globalThis as Record<symbol, unknown>)[REQUEST] = checkRecordingOptions(options, 'recordAgentCalls(options)')
}

/**
 * The options `recordAgentCalls` was called with in this test file, or `undefined`.
 *
 * @example
 * const requested = requestedRecording()
 */
export function requestedRecording(): RecordingOptions | undefined {
  return (globalThis as Record<symbol, RecordingOptions | undefined>)[REQUEST]
}

/**
 * Forgets the request (a new test file starts in the same worker).
 *
 * @example
 * clearRecordingRequest()
 */
export function clearRecordingRequest(): void {
  delete (globalThis as Record<symbol, unknown>)[REQUEST]
}
