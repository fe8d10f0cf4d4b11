import type { Finding } from '../metrics/detectors/finding'
import type { Verdict } from '../verdict/verdict'

/**
 * A detector finding as a span verdict: metric `detector:<name>`, outcome fail, the finding's category,
 * reason and evidence (binary scale, score 0, no judge); a finding marked `unjudgeable` (a budget that could
 * not be checked) is an unjudgeable verdict instead (score null, never a pass).
 *
 * @example
 * detect(trace).map(findingVerdict) // [{ metric: 'detector:error-status', outcome: 'fail', category: 'Resource Not Found', … }]
 */
export function findingVerdict(finding: Finding): Verdict {
  const metric = `detector:${finding.detector}`
  // A check that could not be made (a latency budget on implausible times) is neither a pass nor a failure.
  if (finding.unjudgeable)
    return {
      id: `${finding.spanId}:${metric}:unjudgeable`,
      metric,
      level: 'span',
      spanId: finding.spanId,
      scale: 'binary',
      raw: null,
      score: null,
      threshold: 1,
      pass: false,
      outcome: 'unjudgeable',
      reason: finding.reason,
      evidence: finding.evidence,
    }
  return {
    id: `${finding.spanId}:${metric}:${finding.category}`,
    metric,
    level: 'span',
    spanId: finding.spanId,
    scale: 'binary',
    raw: 0,
    score: 0,
    threshold: 1,
    pass: false,
    outcome: 'fail',
    reason: finding.reason,
    category: finding.category,
    evidence: finding.evidence,
  }
}
