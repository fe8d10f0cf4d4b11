import type { Trace } from '../../trace/trace'
import { lastInputMessage, outputText } from './agent-run'
import { BEHAVIOR_RULES } from './behavior-rules'
import { quoteEvidence, type Finding } from './finding'
import { underProfile } from './frameworks'
import { forEachSpan, indexOfByTail } from './scan'

export const ANSWER_TEMPLATE_DETECTOR = 'answer-template'

// "To output the final answer, use the following template: FINAL ANSWER: [YOUR FINAL ANSWER]".
const TEMPLATE = /use the following template:\s*([^\n[]{1,60}?)\s*\[/i
// The prompt asks for a short answer: a number, a few words, or a list (never several lines).
const SHORT_ANSWER = /as few words as possible|a comma separated list|a single (?:word|number)/i

/** The template sentence, looked for only around each "template" (a case-insensitive scan of the whole prompt is the detector's main cost). */
function findTemplate(prompt: string): RegExpExecArray | null {
  for (let i = indexOfTemplate(prompt, 0); i !== -1; i = indexOfTemplate(prompt, i + 8)) {
    const m = TEMPLATE.exec(prompt.slice(Math.max(0, i - 24), i + 120))
    if (m) return m
  }
  return null
}

/** `prompt.indexOf('template', from)`, searched through "mplate" (see {@link indexOfByTail}). */
const indexOfTemplate = indexOfByTail('template', 2)

/**
 * Findings for model calls whose prompt fixes an answer template ("use the following template: FINAL
 * ANSWER: [...]") and whose output breaks it: it does not start with the template's prefix (a refusal or
 * prose instead), or — when the prompt asks for a number / a few words / a list — the answer runs over
 * several lines. Instruction Non-compliance on that call, quoting the output.
 *
 * @example
 * detectAnswerTemplate(trace)[0] // { category: 'Instruction Non-compliance', evidence: 'I’m sorry, but I cannot …', … }
 */
export function detectAnswerTemplate(trace: Trace): Finding[] {
  const out: Finding[] = []
  forEachSpan(trace.spans, (llm) => {
    if (llm.kind !== 'llm') return
    // The template is part of an instruction (a user message); tool results and assistant turns are not read.
    const last = lastInputMessage(llm)
    if (!last || last.role !== 'user') return
    const prompt = last.content
    const template = findTemplate(prompt)
    if (!template) return
    const prefix = template[1].trim()
    const text = outputText(llm)
    const answer = text.trim()
    if (answer === '') return
    const rule = BEHAVIOR_RULES['answer-template']
    const at = text.indexOf(answer)
    if (!answer.startsWith(prefix)) {
      out.push({
        spanId: llm.id,
        category: rule.category,
        detector: ANSWER_TEMPLATE_DETECTOR,
        evidence: quoteEvidence(text, at),
        reason: `${rule.reason}: it does not start with "${prefix}"`,
        severity: 'medium',
      })
    } else if (SHORT_ANSWER.test(prompt) && answer.slice(prefix.length).trim().includes('\n')) {
      out.push({
        spanId: llm.id,
        category: rule.category,
        detector: ANSWER_TEMPLATE_DETECTOR,
        evidence: quoteEvidence(text, at),
        reason: `${rule.reason}: the prompt asks for a short answer, this one runs over several lines`,
        severity: 'medium',
      })
    }
  })
  return underProfile(out, 'gaia')
}
