import * as z from 'zod'
import { TRAIL_CATEGORIES } from '../../taxonomy'
import { FrameworkProfileSchema } from './frameworks'

/**
 * Longest evidence quote a finding carries; longer text is cut around the part that matched.
 *
 * @example
 * findings.every((f) => f.evidence.length <= MAX_EVIDENCE_CHARS) // true
 */
export const MAX_EVIDENCE_CHARS = 300

/**
 * One problem a deterministic detector found, localized to one span (an LLM or TOOL span whenever the
 * trace has one that caused it, as in TRAIL's gold annotations).
 *
 * - `evidence` is quoted verbatim from the span named by `evidenceSpanId` (or `spanId` when absent),
 *   at most {@link MAX_EVIDENCE_CHARS} characters. Budget findings quote the measured figures instead.
 * - `unjudgeable` marks a budget that could not be checked (a latency budget on implausible times): it is no
 *   problem of the agent, but no pass either.
 * - `evidenceSpanId` is set when the error was recorded on another span than the one it is blamed on
 *   (e.g. a tool raised because the LLM before it wrote malformed arguments).
 * - `framework` names the framework profile whose conventions the rule read (`smolagents`, `gaia`); absent for
 *   the general rules. The reason then ends with ` [<profile> profile]`.
 *
 * @example
 * const f = FindingSchema.parse({ spanId: 'a1', category: 'Rate Limiting', detector: 'error-status',
 *   evidence: 'RateLimitError: 429 Too Many Requests', reason: 'the provider throttled the call (HTTP 429)' })
 */
export const FindingSchema = z.object({
  spanId: z.string().min(1),
  category: z.enum(TRAIL_CATEGORIES),
  detector: z.string().min(1),
  evidence: z.string().max(MAX_EVIDENCE_CHARS),
  reason: z.string().min(1),
  severity: z.enum(['high', 'medium', 'low']).optional(),
  evidenceSpanId: z.string().min(1).optional(),
  /**
   * A check that could not be made, so neither passes nor fails: a latency budget over spans with implausible
   * or reversed times (see `timeProblems`). Its verdict is unjudgeable, and it never counts as within budget.
   */
  unjudgeable: z.literal(true).optional(),
  /** The framework profile of the rule that found it (see `FrameworkProfileSchema`); absent for general rules. */
  framework: FrameworkProfileSchema.optional(),
})
export type Finding = z.infer<typeof FindingSchema>

/**
 * Which findings the detectors name. `default`: one category per piece of evidence — what a user's report
 * shows. `trail-recall`: also the second categories that rest on the same evidence, which TRAIL's recall-only
 * metrics reward (for benchmark comparisons only; they are guesses, not findings).
 *
 * @example
 * detect(trace, { profile: 'trail-recall' })
 */
export const DetectorProfileSchema = z.enum(['default', 'trail-recall'])
export type DetectorProfile = z.infer<typeof DetectorProfileSchema>

/**
 * Cuts `text` to at most {@link MAX_EVIDENCE_CHARS} characters around `at` (an index into `text`),
 * preferring the line that holds it; the result is always a verbatim substring, trimmed of whitespace.
 *
 * @example
 * quoteEvidence('Traceback …\nTimeoutError: read timed out', 25) // 'TimeoutError: read timed out'
 */
export function quoteEvidence(text: string, at = 0): string {
  const pos = Math.min(Math.max(at, 0), text.length)
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1
  const nl = text.indexOf('\n', pos)
  const lineEnd = nl === -1 ? text.length : nl
  let start = lineStart
  let end = lineEnd
  if (end - start > MAX_EVIDENCE_CHARS) {
    // Keep some context before the match, the rest after it.
    start = Math.max(lineStart, pos - 80)
    // Start at a word, not in the middle of one.
    const space = text.indexOf(' ', start)
    if (start > lineStart && space !== -1 && space < pos) start = space + 1
    end = Math.min(lineEnd, start + MAX_EVIDENCE_CHARS)
  }
  const quoted = text.slice(start, end).trim()
  if (quoted !== '') return quoted
  return text.trim().slice(0, MAX_EVIDENCE_CHARS).trim()
}
