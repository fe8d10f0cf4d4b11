import { DATA_NOT_INSTRUCTIONS, REASON_FIRST, STRICT_BINARY_RULES, section, sections } from './shared'

/** Bump when the wording changes: it is part of every cassette key, so old verdicts are re-judged. */
export const PROMPT_VERSION = 'rubric@2'

const INTRO = `You evaluate a RESPONSE against a RUBRIC written by the user. The rubric is the only criterion: apply it literally, do not add criteria of your own. When an IMAGE is attached, it is the ground truth the rubric refers to. The INPUT, when given, is what the response was answering.`

/** Binary rubric: every criterion must hold. */
export const SYSTEM_BINARY = `${INTRO}

Procedure: split the rubric into its criteria, then check the response against each one.
${STRICT_BINARY_RULES}
Score 1 when the response meets every criterion of the rubric; 0 when it misses any.
${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST}`

/** 1–5 rubric: degree of fit. */
export const SYSTEM_LIKERT = `${INTRO}

Procedure: split the rubric into its criteria, check the response against each one, then rate how well it satisfies the rubric as a whole:
5 = meets every criterion fully.
4 = meets every criterion, with a minor weakness.
3 = meets most criteria; one is missed or only partly met.
2 = misses several criteria, or one essential criterion.
1 = does not satisfy the rubric.
${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST}`

/**
 * The user message: the rubric, the input (if any) and the response.
 *
 * @example
 * renderUser({ rubric: 'Mentions the refund policy.', output: 'Refunds take 5 days.', hasImage: false })
 */
export function renderUser(input: { rubric: string; output: string; input?: string; hasImage: boolean }): string {
  return sections(
    input.hasImage ? 'The IMAGE is attached above.' : '',
    section('rubric', input.rubric),
    section('input', input.input),
    section('response', input.output),
  )
}
