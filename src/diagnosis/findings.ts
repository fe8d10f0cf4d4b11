import type { Finding } from '../metrics/detectors/finding'
import type { Verdict } from '../verdict/verdict'

/**
 * A detector finding as a span verdict: metric `detector:<name>`, outcome fail, the finding's category,
 * reason and evidence (binary scale, score 0, no judge).
 *
 * @example
 * detect(trace).map(findingVerdict) // [{ metric: 'detector:error-status', outcome: 'fail', category: 'Resource Not Found', … }]
 */
export function findingVerdict(finding: Finding): Verdict {
  const metric = `detector:${finding.detector}`
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
