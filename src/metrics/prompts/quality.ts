import { DATA_NOT_INSTRUCTIONS, REASON_FIRST, section, sections } from './shared'

/** Bump when the wording changes: it is part of every cassette key, so old verdicts are re-judged. */
export const PROMPT_VERSION = 'quality@2'

/**
 * Calibration examples: different tasks (receipt reading, alt text, a pie chart, a text summary)
 * spanning the scale, so the judge anchors 5, 4, 3 and 1 instead of clustering at 4.
 */
export const CALIBRATION_EXAMPLES = `Example A — score 5
Task: "What is the total on this receipt?" Image: a grocery receipt whose last line reads TOTAL $42.17.
Response: "The total is $42.17."
Why 5: the amount matches the image exactly, it answers what was asked, nothing is missing, and it is clear.

Example B — score 4
Task: "Summarize this support ticket in one sentence." Context: the customer was charged twice for order 5521 and asks for one charge to be refunded.
Response: "The customer reports a duplicate charge on order 5521 and wants it refunded, which seems reasonable."
Why 4: accurate, one sentence and complete; the closing opinion was not asked for, a minor flaw.

Example C — score 3
Task: "Write one-sentence alt text for this photo." Image: a golden retriever leaping to catch a red frisbee in a park.
Response: "A dog playing outside on a sunny day."
Why 3: accurate as far as it goes and in the requested form, but it misses the main subject (the leap, the frisbee), so it is incomplete.

Example D — score 1
Task: "What share of respondents chose 'Agree'?" Image: a pie chart — Agree 46%, Neutral 31%, Disagree 23%.
Response: "Most respondents disagreed, about 60%."
Why 1: it answers a different category with a number the chart does not show; nothing in it is usable.`

export const SYSTEM = `You rate the overall quality of a RESPONSE on a 1–5 scale. You get the TASK (instruction or question), optionally a REFERENCE answer, optionally CONTEXT, and, when attached, the IMAGE the task is about.

Assess four aspects, each with a one-sentence note and a 1–5 score:
- visual_accuracy: every detail agrees with the image (or, without an image, with the reference, the context and well-established facts). Invented or wrong values weigh heavily.
- instruction_adherence: the response does what the task asks, in the form it asks for.
- completeness: everything the task asks for is there.
- coherence: clear, well organised, no contradictions or filler.

Then give the overall score:
5 = excellent: accurate in every detail, follows the task, complete and clear.
4 = good: accurate and follows the task, with a minor omission, verbosity or awkwardness.
3 = acceptable: mostly accurate but with a notable omission, vagueness or a broken formatting instruction.
2 = poor: contains a factual error or an invented detail, or misses the main point, though partly relevant.
1 = unacceptable: wrong, fabricated or irrelevant.
Accuracy dominates: a response with a wrong or invented value scores at most 2, however well written.

Calibration examples (the images are described here; in the real task the image is attached):

${CALIBRATION_EXAMPLES}

${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST} Fill "aspects" after "reasoning" and before "score".`

/**
 * The user message: task, reference, context and response (the image travels as its own part).
 *
 * @example
 * renderUser({ instruction: 'Describe the trend.', output: 'Users rise to 58k in W7.', hasImage: true })
 */
export function renderUser(input: {
  output: string
  instruction?: string
  reference?: string
  context?: string
  hasImage: boolean
}): string {
  return sections(
    input.hasImage ? 'The IMAGE is attached above.' : '',
    section('task', input.instruction),
    section('reference', input.reference),
    section('context', input.context),
    section('response', input.output),
  )
}
