import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import type { Finding } from './finding'
import { UNRECOGNIZED_ERROR_RULES } from './error-patterns'
import { underProfile } from './frameworks'
import { forEachSpan } from './scan'
import { errorBelow, isLeafKind, producerLlm, sourceLeaf, spanLabel } from './localize'
import { classifySpanError, hasErrorSignal, unrecognizedSpanError } from './signals'

export const ERROR_STATUS_DETECTOR = 'error-status'
export const UNRECOGNIZED_ERROR_DETECTOR = 'unrecognized-error'

/**
 * Findings for spans that record an error (status, exception event, HTTP status), one per root cause:
 * an error that propagated up to a step or agent span is reported once, where it was raised. Each is
 * named on an LLM/TOOL span — the tool or model call that raised it, or for model-output errors
 * (malformed code, tool-call arguments) the LLM span that wrote the output.
 *
 * - `recognized`: errors a rule of `ERROR_RULES` classifies (detector `error-status`);
 * - `unrecognized`: the others, under the fallback categories of `UNRECOGNIZED_ERROR_RULES` (detector
 *   `unrecognized-error`). An error is still a failure: without these a trace whose only error is an
 *   `UnboundLocalError` in a tool would diagnose clean.
 *
 * One walk serves both, so the tree below each span and each span's run are worked out once. `smolagents`
 * (its profile is active) lets the fallback recognize failed model code by smolagents' wording; those findings
 * name the profile.
 *
 * @example
 * const { recognized, unrecognized } = detectErrorSpans(trace)
 * recognized[0] // { spanId: '…', category: 'Formatting Errors', detector: 'error-status', … }
 */
export function detectErrorSpans(trace: Trace, smolagents = false): { recognized: Finding[]; unrecognized: Finding[] } {
  const below = errorBelow(trace, hasErrorSignal)
  const failedRun = runFailed(trace)
  const recognized: Finding[] = []
  const unrecognized: Finding[] = []
  forEachSpan(trace.spans, (span) => {
    // A step/agent whose child failed only carries that child's error up the tree.
    if (!isLeafKind(span) && below.has(span.id)) return
    const known = classifySpanError(span)
    const hit = known ?? unrecognizedSpanError(span, smolagents)
    if (!hit) return
    const target =
      hit.rule.placement === 'producer'
        ? (producerLlm(trace, span) ?? sourceLeaf(trace, span))
        : sourceLeaf(trace, span)
    const moved = target.id !== span.id
    const finding: Finding = {
      spanId: target.id,
      category: hit.rule.category,
      detector: known ? ERROR_STATUS_DETECTOR : UNRECOGNIZED_ERROR_DETECTOR,
      evidence: hit.evidence,
      reason: moved ? `${hit.rule.reason}; raised in ${spanLabel(span)}` : hit.rule.reason,
      severity: failedRun(span) ? 'high' : 'medium',
    }
    if (moved) finding.evidenceSpanId = span.id
    if (hit.rule.id === UNRECOGNIZED_ERROR_RULES.modelCode.id) underProfile([finding], 'smolagents')
    ;(known ? recognized : unrecognized).push(finding)
  })
  return { recognized, unrecognized }
}

/**
 * An error that also failed the enclosing agent run (or the trace root) is high severity. The run of each span
 * is remembered along the way up, so a deep chain of failing calls costs one walk, not one per call.
 */
function runFailed(trace: Trace): (span: Span) => boolean {
  // A span's run: its parent if that is an agent or the root, else its parent's run (none for a root).
  const runOf = new Map<string, Span | undefined>()
  const top = (span: Span): Span | undefined => {
    const path: Span[] = []
    let found: Span | undefined
    for (let cur = span; ; ) {
      if (runOf.has(cur.id)) {
        found = runOf.get(cur.id)
        break
      }
      const parent = trace.parent(cur.id)
      if (!parent) break
      path.push(cur)
      if (parent.kind === 'agent' || !trace.parent(parent.id)) {
        found = parent
        break
      }
      cur = parent
    }
    for (const s of path) runOf.set(s.id, found)
    return found
  }
  return (span) => top(span)?.status === 'error'
}
