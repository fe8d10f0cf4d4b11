import type { Trace } from '../../trace/trace'
import {
  blankEchoedCode,
  classifyErrorText,
  OUTPUT_ERROR_MARKER,
  OUTPUT_HEAD_CHARS,
  ruleForHttpStatus,
} from './error-patterns'
import { quoteEvidence, type Finding } from './finding'
import { forEachSpan } from './scan'
import { hasErrorSignal } from './signals'

export const TOOL_OUTPUT_DETECTOR = 'tool-output'

/**
 * Findings for tool calls that "succeeded" but returned a failure: a browser tool that fetched a page
 * titled "Error 403", an HTTP tool whose result is `{"error": {"code": 503, …}}`. Only the start of a
 * text output is searched, and only lines that read as an error report, so pages that merely mention
 * errors are not flagged. Spans that record an error themselves are left to the error-status detector.
 *
 * @example
 * detectToolOutputErrors(trace) // [{ category: 'Authentication Errors', evidence: 'Title: Error 403', … }]
 */
export function detectToolOutputErrors(trace: Trace): Finding[] {
  const out: Finding[] = []
  forEachSpan(trace.spans, (span) => {
    if (span.kind !== 'tool' || hasErrorSignal(span) || span.output === undefined) return
    const hit = typeof span.output === 'string' ? fromText(span.output) : fromObject(span.output)
    if (!hit) return
    out.push({
      spanId: span.id,
      category: hit.category,
      detector: TOOL_OUTPUT_DETECTOR,
      evidence: hit.evidence,
      reason: `the tool returned an error instead of a result: ${hit.reason}`,
      severity: 'medium',
    })
  })
  return out
}

type Hit = Pick<Finding, 'category' | 'evidence' | 'reason'>

function fromText(output: string): Hit | undefined {
  const head = output.slice(0, OUTPUT_HEAD_CHARS)
  // Cheap test first: nearly every output has neither word, and this runs on every tool span.
  if (!head.includes('Error') && !head.includes('HTTP/')) return undefined
  const marker = OUTPUT_ERROR_MARKER.exec(head)
  if (!marker) return undefined
  // The marker says "this is an error page"; the words from there on say which kind ("Error 403", "Connection aborted").
  const from = marker.index
  const hit = classifyErrorText(blankEchoedCode(head.slice(from)))
  if (!hit) return undefined
  return { category: hit.rule.category, reason: hit.rule.reason, evidence: quoteEvidence(output, from + hit.index) }
}

/** A structured result that is an error envelope: `{ error: "…" }`, `{ error: { message, code } }`, `{ status: 503 }`. */
function fromObject(output: unknown): Hit | undefined {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return undefined
  const o = output as Record<string, unknown>
  const error = o.error
  const errorObj = error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : undefined
  if (error === undefined && o.status === undefined && o.status_code === undefined && o.statusCode === undefined)
    return undefined
  // Classify everything the envelope says; quote its message, which is what a person reads.
  const all = typeof error === 'string' ? error : errorObj ? JSON.stringify(errorObj) : ''
  const message = typeof error === 'string' ? error : typeof errorObj?.message === 'string' ? errorObj.message : ''
  const hit = all !== '' ? classifyErrorText(all) : undefined
  const codes = [o.status_code, o.statusCode, o.status, errorObj?.code, errorObj?.status]
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= 400)
  const rule = hit?.rule ?? codes.map(ruleForHttpStatus).find((r) => r !== undefined)
  if (!rule) return undefined
  const evidence =
    message !== ''
      ? quoteEvidence(message, message === all ? (hit?.index ?? 0) : 0)
      : quoteEvidence(JSON.stringify(output))
  return { category: rule.category, reason: rule.reason, evidence }
}
