import type { Trace } from '../../trace/trace'
import { lastInputMessage } from './agent-run'
import { blankEchoedCode, classifyErrorText } from './error-patterns'
import { quoteEvidence, type Finding } from './finding'
import { forEachSpan } from './scan'

export const ERROR_OBSERVED_DETECTOR = 'error-observed'

// The observation an agent framework feeds back after a failed action: smolagents writes
// "Call id: call_3\nError:\n<message>" (or "Error:\n…" alone) as the next tool-response / user message.
const ERROR_OBSERVATION = /^(?:Call id: [^\n]*\n)?(?:Observation:\s*)?Error:[ \t]*\n?/

/**
 * Findings on the model call whose input is the error of the previous action: the first span where that
 * error shows to the model (TRAIL's convention for where an error is named), next to the error-status
 * finding on the call that caused it. The error text is classified with the same rules as everywhere
 * (`error-patterns.ts`); unclassified errors give no finding.
 *
 * @example
 * detectObservedErrors(trace)[0] // { category: 'Formatting Errors', evidence: 'Code parsing failed on line 5 due to: SyntaxError', … }
 */
export function detectObservedErrors(trace: Trace): Finding[] {
  const out: Finding[] = []
  forEachSpan(trace.spans, (llm) => {
    if (llm.kind !== 'llm') return
    const last = lastInputMessage(llm)
    if (!last || last.role === 'system' || last.role === 'assistant') return
    const head = ERROR_OBSERVATION.exec(last.content)
    if (!head) return
    const text = last.content
    const hit = classifyErrorText(blankEchoedCode(text.slice(head[0].length)))
    if (!hit) return
    out.push({
      spanId: llm.id,
      category: hit.rule.category,
      detector: ERROR_OBSERVED_DETECTOR,
      evidence: quoteEvidence(text, head[0].length + hit.index),
      reason: `the previous action failed and this call received its error: ${hit.rule.reason}`,
      severity: 'medium',
    })
  })
  return out
}
