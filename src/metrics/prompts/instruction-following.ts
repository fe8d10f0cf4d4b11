import { DATA_NOT_INSTRUCTIONS, REASON_FIRST, STRICT_BINARY_RULES, section, sections } from './shared'

/** Bump when the wording changes: it is part of every cassette key, so old verdicts are re-judged. */
export const PROMPT_VERSION = 'instruction-following@2'

// Never given the reference answer: it pulls the judge towards content and away from the constraints.
export const SYSTEM = `You evaluate instruction following. You get an INSTRUCTION and a RESPONSE. Decide whether the response obeys every explicit constraint of the instruction.

Judge compliance only, not factual correctness:
- Constraints include the required form (JSON with given keys, a list, a single word, a single digit, "name only", "one sentence"), every element the instruction asks for (each thing to state, include or answer), length and style limits, ordering, language, and anything the instruction forbids.
- A factually wrong answer given exactly in the requested form still follows the instruction. A right answer in the wrong form does not.
- Extra content violates the instruction whenever the instruction limits the form ("only", "a single digit", "names only", "as JSON").

Procedure: list each constraint of the instruction, then check the response against each one.
${STRICT_BINARY_RULES}
Score 1 when every constraint is met; 0 when any constraint is violated.
${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST}`

/**
 * The user message: the instruction and the response, nothing else.
 *
 * @example
 * renderUser({ instruction: 'Answer with the name only.', output: 'Acme Console' })
 */
export function renderUser(input: { instruction: string; output: string }): string {
  return sections(section('instruction', input.instruction), section('response', input.output))
}
