import { DATA_NOT_INSTRUCTIONS, REASON_FIRST, STRICT_BINARY_RULES, section, sections } from './shared'

/** Bump when the wording changes: it is part of every cassette key, so old verdicts are re-judged. */
export const PROMPT_VERSION = 'correctness@2'

const COMMON = `Judge correctness only: whether what the response says is true and answers the question. Do not judge format, length or style (a correct answer written as prose instead of JSON is still correct).
- Every value the question asks for (numbers, amounts, names, dates, counts, ordering) must be right.
- Extra details are allowed only when they are also correct. An extra detail that is wrong or invented makes the response incorrect.
- Omitting part of what the question asks for makes the response incorrect.
${STRICT_BINARY_RULES}
Score 1 when the response is correct; 0 otherwise.
${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST}`

/** Reference-based: the reference answer is the ground truth. */
export const SYSTEM_WITH_REFERENCE = `You evaluate the correctness of a RESPONSE against a REFERENCE answer (the ground truth) for a QUESTION. When an IMAGE is attached, it is the source the question is about: use it to check details the reference does not cover.

The response is correct when it conveys the same answer as the reference; different wording is fine.
${COMMON}`

/** Reference-free: judged against the question and, when attached, the image. */
export const SYSTEM_WITHOUT_REFERENCE = `You evaluate the correctness of a RESPONSE to a QUESTION. There is no reference answer. When an IMAGE is attached, it is the ground truth: read the values in it yourself and check every claim of the response against it. Without an image, judge against well-established facts and the question itself.

${COMMON}`

/**
 * The user message: question (if any), reference (if any), response. The image travels as its own part.
 *
 * @example
 * renderUser({ input: 'Which region leads?', reference: 'North America, $14.10', output: 'North America at $14.10' })
 */
export function renderUser(input: { output: string; input?: string; reference?: string; hasImage: boolean }): string {
  return sections(
    input.hasImage ? 'The IMAGE is attached above.' : '',
    section('question', input.input),
    section('reference', input.reference),
    section('response', input.output),
  )
}
