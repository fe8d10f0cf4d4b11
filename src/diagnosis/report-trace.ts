// A diagnosis as the report artifact holds it: its span tree and its verdicts, shared by the trace matchers
// and `agent-verdict diagnose --otlp`.
import type { Trace } from '../trace/trace'
import type { Diagnosis } from './types'
import { canonicalView } from './canonical'
import type { ReportTrace } from '../verdict/report'
import type { Verdict } from '../verdict/verdict'

/**
 * The span tree of a diagnosis as the report artifact stores it: every span with its parent, whether
 * it failed after propagation, the ids of its own verdicts (which travel in the test's verdicts) and,
 * given the trace, its positional id (what `report diff` matches spans of two runs by).
 *
 * @example
 * attachVerdicts(this, verdictsOfDiagnosis(d), [reportTraceOf(d, trace)])
 */
export function reportTraceOf(diagnosis: Diagnosis, trace?: Trace): ReportTrace {
  const view = trace ? canonicalView(trace) : undefined
  return {
    id: diagnosis.traceId,
    spans: diagnosis.spans.map((s) => ({
      id: s.spanId,
      parentId: s.parentId,
      name: s.name,
      kind: s.kind,
      failed: s.state === 'fail',
      verdictIds: s.verdicts.flatMap((v) => (v.id === undefined ? [] : [v.id])),
      ...(view && view.position(s.spanId) !== '' ? { position: view.position(s.spanId) } : {}),
    })),
  }
}

/** Every span verdict of a diagnosis, then its agent-level verdicts. */
export function verdictsOfDiagnosis(diagnosis: Diagnosis): Verdict[] {
  return [...diagnosis.spans.flatMap((s) => s.verdicts), ...diagnosis.agent.verdicts]
}

/**
 * The spans a diagnosis wanted a verdict for but could not get one, each with the cause its
 * unjudgeable verdict gives.
 *
 * @example
 * unjudgeableSpans(d).map((u) => u.cause)
 */
export function unjudgeableSpans(
  diagnosis: Diagnosis,
): Array<{ spanId: string; kind: string; name: string; cause: string }> {
  return diagnosis.spans
    .filter((s) => s.own === 'unjudgeable')
    .map((s) => {
      const causes = [...new Set(s.verdicts.filter((v) => v.outcome === 'unjudgeable').map((v) => v.reason))]
      return { spanId: s.spanId, kind: s.kind, name: s.name, cause: causes.join('; ') || 'no verdict was obtained' }
    })
}
