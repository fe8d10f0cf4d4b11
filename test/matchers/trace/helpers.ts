// Shared bits of the trace matcher tests: the real TRAIL fixtures, OTel SDK runs, and failure capture.
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../../src/verdict/meta'
import { agentRun, createRecorder, type HttpFailure } from '../../helpers/otel'
import { FIXTURE_DIR } from '../../helpers/trail'

/** GAIA run with a sub-agent: a failing inspect_file_as_text tool call (.mp3), final_answer, 9 o3-mini calls. */
export const GAIA_SUBAGENT = join(FIXTURE_DIR, '41bbc898aa7de0f31d2382ff57700a76.json')
/** GAIA run whose Step 1 LLM output could not be parsed (Formatting Errors), then final_answer. */
export const GAIA_FORMAT = join(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')
/** GAIA run that goes straight to final_answer; no detector finding. */
export const GAIA_CLEAN = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')
/** SWE-bench run: six claude-3-7-sonnet steps, no tool spans and no structured tool calls. */
export const SWE_RUN = join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json')

/** The SDK spans of one GenAI-semconv support-agent run (chat → execute_tool lookup_order → chat), via InMemorySpanExporter. */
export function otelRun(failure?: HttpFailure) {
  const recorder = createRecorder({ seed: 7 })
  agentRun(recorder.tracer, failure === undefined ? {} : { failure })
  return recorder
}

/** The runner colours its hint line (this.utils): the tests compare the words. */
function uncoloured(error: Error): Error {
  error.message = stripVTControlCharacters(error.message)
  return error
}

/** The error a synchronous assertion throws (fails the test if it does not throw). */
export function thrownBy(assertion: () => unknown): Error {
  try {
    assertion()
  } catch (error) {
    if (error instanceof Error) return uncoloured(error)
    throw new Error(`expected an Error, got ${String(error)}`)
  }
  throw new Error('expected the assertion to fail, but it passed')
}

/** The error an async assertion rejects with (fails the test if it resolves). */
export async function rejectionOf(assertion: Promise<unknown>): Promise<Error> {
  const error = await assertion.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof Error)) throw new Error('expected the assertion to fail, but it passed')
  return uncoloured(error)
}

/** The agent-verdict meta a test's matchers attached. */
export const metaOf = (task: { meta: object }): TestVerdictMeta =>
  (task.meta as Record<string, TestVerdictMeta>)[VERDICT_META_KEY] ?? { verdicts: [] }
