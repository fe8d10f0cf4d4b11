import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import type { Finding } from './finding'
import { forEachSpan } from './scan'
import { errorBelow, isLeafKind, producerLlm, sourceLeaf, spanLabel } from './localize'
import { classifySpanError, hasErrorSignal } from './signals'

export const ERROR_STATUS_DETECTOR = 'error-status'

/**
 * Findings for spans that record an error (status, exception event, HTTP status), one per root cause:
 * an error that propagated up to a step or agent span is reported once, where it was raised. Each is
 * named on an LLM/TOOL span — the tool or model call that raised it, or for model-output errors
 * (malformed code, tool-call arguments) the LLM span that wrote the output.
 *
 * @example
 * const findings = detectErrorStatus(trace)
 * findings[0] // { spanId: '…', category: 'Formatting Errors', detector: 'error-status', … }
 */
export function detectErrorStatus(trace: Trace): Finding[] {
  const below = errorBelow(trace, hasErrorSignal)
  const failedRun = runFailed(trace)
  const out: Finding[] = []
  forEachSpan(trace.spans, (span) => {
    // A step/agent whose child failed only carries that child's error up the tree.
    if (!isLeafKind(span) && below.has(span.id)) return
    const hit = classifySpanError(span)
    if (!hit) return
    const target =
      hit.rule.placement === 'producer'
        ? (producerLlm(trace, span) ?? sourceLeaf(trace, span))
        : sourceLeaf(trace, span)
    const moved = target.id !== span.id
    const finding: Finding = {
      spanId: target.id,
      category: hit.rule.category,
      detector: ERROR_STATUS_DETECTOR,
      evidence: hit.evidence,
      reason: moved ? `${hit.rule.reason}; raised in ${spanLabel(span)}` : hit.rule.reason,
      severity: failedRun(span) ? 'high' : 'medium',
    }
    if (moved) finding.evidenceSpanId = span.id
    out.push(finding)
  })
  return out
}

/** An error that also failed the enclosing agent run (or the trace root) is high severity. */
function runFailed(trace: Trace): (span: Span) => boolean {
  return (span) => {
    const ancestors = trace.ancestors(span.id)
    const agent = ancestors.find((a) => a.kind === 'agent')
    const top = agent ?? ancestors[ancestors.length - 1]
    return top !== undefined && top.status === 'error'
  }
}
