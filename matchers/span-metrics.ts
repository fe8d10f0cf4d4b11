import * as z from 'zod'
import { failingLeaves, traceVerdict } from '../src/diagnosis/localize'
import { propagate } from '../src/diagnosis/propagate'
import { SPAN_CATEGORY_METRIC, SPAN_METRICS, type Diagnosis } from '../src/diagnosis/types'
import type { Trace } from '../src/trace/trace'
import type { Verdict } from '../src/verdict/verdict'

/**
 * Which span verdicts may fail a span: the judge's aspects, its error category, and `detectors` (every
 * deterministic finding).
 *
 * @example
 * SpanMetricNameSchema.parse('span.reasoning_integrity')
 */
export const SpanMetricNameSchema = z.enum([...SPAN_METRICS, SPAN_CATEGORY_METRIC, 'detectors'])
export type SpanMetricName = z.infer<typeof SpanMetricNameSchema>

const counts = (v: Verdict, metrics: readonly SpanMetricName[]) =>
  v.metric.startsWith('detector:') ? metrics.includes('detectors') : (metrics as readonly string[]).includes(v.metric)

/**
 * The diagnosis as if only `metrics` had been asked for: other span verdicts are dropped, then the
 * diagnosis's own propagation, localization and trace verdict run again on what is left, under the same
 * policy. The judge calls are the same either way (one multi-aspect call per span), so nothing is re-judged.
 *
 * @example
 * const strict = restrictToMetrics(trace, diagnosis, ['span.reasoning_integrity', 'detectors'])
 */
export function restrictToMetrics(trace: Trace, diagnosis: Diagnosis, metrics: readonly SpanMetricName[]): Diagnosis {
  const kept = new Map<string, Verdict[]>()
  for (const s of diagnosis.spans) {
    const verdicts = s.verdicts.filter((v) => counts(v, metrics))
    if (verdicts.length > 0) kept.set(s.spanId, verdicts)
  }
  const spans = propagate(trace, kept, diagnosis.policy)
  const leaves = failingLeaves(trace, spans, diagnosis.policy)
  return {
    ...diagnosis,
    spans,
    failingLeaves: leaves,
    verdict: traceVerdict(trace, spans, leaves, diagnosis.policy, diagnosis.mode),
  }
}
