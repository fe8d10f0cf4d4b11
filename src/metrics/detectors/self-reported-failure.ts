import type { Trace } from '../../trace/trace'
import { lastInputMessage, thoughtAndCode } from './agent-run'
import { BEHAVIOR_RULES } from './behavior-rules'
import { MAX_EVIDENCE_CHARS, quoteEvidence, type Finding } from './finding'
import { forEachSpan } from './scan'

export const SELF_REPORTED_FAILURE_DETECTOR = 'self-reported-failure'

// The opening sentence of the model's reasoning, when it says its previous action did not work as meant:
// "It seems the regex pattern didn't find any file.", "The output was not properly formatted.",
// "I'm not getting the file paths as expected.", "I had an issue with the triple quotes in my string."
const OPENING = /^\s*(?:thought:\s*)?([^\n]*?[.!?])(?:\s|$)/i
const ADMITS =
  /^(?:it (?:seems|appears|looks like)|looks like|apparently|(?:i'm|i am|we're|we are) (?:still )?(?:not (?:getting|finding|seeing)|having (?:some )?(?:difficulty|trouble|issues?|problems?)|struggling)|i had (?:an? |some )?(?:issue|problem|trouble)|(?:the|my) (?:output|result|search|regex|pattern|code)s? (?:was|were|is|are) not\b)/i
// After "it seems / it appears", the sentence must say something failed, not that something was found.
const FAILED =
  /\b(?:not|didn't|doesn't|wasn't|weren't|isn't|aren't|couldn't|no (?:match|result|file)s?|issue|problem|difficulty|trouble|struggling|wrong|incorrect|failed)\b/i

// Six or more lines of one visible character each (tree-drawing characters aside): a string printed as if
// it were a list of lines ("Directory" → "D", "i", "r", …).
const CHAR_PER_LINE = /(?:^[^\s│├└─┃|]\n){6,}/m
/** Only the end of a huge observation is read: the output of the last action sits there. */
const OBSERVATION_TAIL_CHARS = 20_000

const CHAR_PER_LINE_RULE = 'output-split-into-characters'

/**
 * Findings for model calls that see their previous action misfire, on the call where it shows (TRAIL names
 * the first span where an error shows):
 * - the observation they answer prints a string one character per line (the code iterated a string as a
 *   list of lines), quoted from the observation;
 * - or their reasoning opens by admitting that its own previous action did not work
 * as meant: the pattern matched nothing, the output was not in the format it expected, the string quoting
 * broke; the run states the failure itself, so the finding quotes the model's own sentence. Formatting Errors: in agent runs that
 * search and parse text with code, such an admission follows output that was not shaped as the code assumed.
 *
 * @example
 * detectSelfReportedFailures(trace)[0] // { category: 'Formatting Errors', evidence: "It seems the regex pattern didn't find any file.", … }
 */
export function detectSelfReportedFailures(trace: Trace): Finding[] {
  const out: Finding[] = []
  const rule = BEHAVIOR_RULES['self-reported-failure']
  forEachSpan(trace.spans, (llm) => {
    if (llm.kind !== 'llm') return
    const last = lastInputMessage(llm)
    const observation = last?.content.slice(-OBSERVATION_TAIL_CHARS) ?? ''
    const block = CHAR_PER_LINE.exec(observation)
    if (block) {
      const lineBefore = observation.lastIndexOf('\n', block.index - 2) + 1
      const quote = observation.slice(lineBefore, block.index + block[0].length).trimEnd()
      const shown = CHAR_PER_LINE_RULE
      out.push({
        spanId: llm.id,
        category: BEHAVIOR_RULES[shown].category,
        detector: SELF_REPORTED_FAILURE_DETECTOR,
        evidence: quote.slice(0, MAX_EVIDENCE_CHARS),
        reason: BEHAVIOR_RULES[shown].reason,
        severity: 'low',
      })
      return
    }
    const { thought } = thoughtAndCode(llm)
    const m = OPENING.exec(thought.slice(0, 600))
    if (!m) return
    const sentence = m[1]
    if (!ADMITS.test(sentence) || !FAILED.test(sentence)) return
    const at = thought.indexOf(sentence)
    out.push({
      spanId: llm.id,
      category: rule.category,
      detector: SELF_REPORTED_FAILURE_DETECTOR,
      evidence: quoteEvidence(thought, at),
      reason: rule.reason,
      severity: 'low',
    })
  })
  return out
}
