// A final answer written over a failed tool call as if it had succeeded, on any framework's trace: read from the
// tool spans' error status and the run's final answer, no framework's texts.
import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { outputText } from './agent-run'
import { BEHAVIOR_RULES } from './behavior-rules'
import { quoteEvidence, type Finding } from './finding'
import { finalAnswer, type Run, runsOf } from './instructions'
import { spanLabel } from './localize'
import { hasErrorSignal } from './signals'

export const ERROR_IGNORED_DETECTOR = 'error-ignored'

// An answer that tells the user the lookup failed is no misreading: "could not", "unable", "denied", "sorry" ….
const ACKNOWLEDGES =
  /\b(?:could(?:n['’]t| not)|can(?:['’]t|not)|unable|failed|fail(?:ure|s)?|error|denied|unavailable|not available|sorry|apolog|did not (?:work|succeed)|was not able)\b/i

/**
 * Findings for runs whose last tool call before the final answer failed (error status or exception), with no
 * later successful call of that tool, and whose answer does not say so: it was written as if the call had
 * succeeded. Tool Output Misinterpretation on the answering model call, quoting the answer. `runs`: as for
 * `detectInstructionBreaches`.
 *
 * @example
 * detectIgnoredErrors(trace)[0] // { category: 'Tool Output Misinterpretation', evidence: '{"answer":"12 °C"}', … }
 */
export function detectIgnoredErrors(trace: Trace, runs: readonly Run[] = runsOf(trace)): Finding[] {
  const out: Finding[] = []
  for (const run of runs) {
    const answer = finalAnswer(run)
    if (!answer) continue
    const before = run.tools.filter((t) => t.endNs <= answer.startNs)
    const last: Span | undefined = before[before.length - 1]
    if (!last || !hasErrorSignal(last)) continue
    const text = outputText(answer)
    if (ACKNOWLEDGES.test(text)) continue
    const rule = BEHAVIOR_RULES['answer-ignores-tool-error']
    out.push({
      spanId: answer.id,
      category: rule.category,
      detector: ERROR_IGNORED_DETECTOR,
      evidence: quoteEvidence(text, text.search(/\S/)),
      reason: `${rule.reason} (${spanLabel(last)})`,
      severity: 'medium',
    })
  }
  return out
}
