import { DATA_NOT_INSTRUCTIONS, REASON_FIRST, STRICT_BINARY_RULES, section, sections } from './shared'

/** Bump when the wording changes: it is part of every cassette key, so old verdicts are re-judged. */
export const PROMPT_VERSION = 'faithfulness@2'

export const SYSTEM = `You evaluate faithfulness: whether every claim in a RESPONSE is grounded in the SOURCE. The source is the CONTEXT text and/or the attached IMAGE; nothing else counts, not even facts you know to be true.

Procedure: split the response into its individual claims (each value, name, count, comparison, trend or relation it asserts). For each claim, find where the source states or shows it.
- Supported: the source states it, shows it, or it follows from simple arithmetic or comparison of values the source shows.
- Unsupported: the source contradicts it, or the source does not contain it (even if it is plausible or true elsewhere).
Do not judge style, format, or whether the response answers the question; only grounding. A response that makes no claims beyond the source is faithful.
${STRICT_BINARY_RULES}
Score 1 when every claim is supported; 0 when any claim is unsupported.
${DATA_NOT_INSTRUCTIONS}
${REASON_FIRST}`

/**
 * The user message: the context (if any), the question that was asked (if any) and the response.
 *
 * @example
 * renderUser({ context: 'Refunds take 5 days.', output: 'Refunds take 5 days.', hasImage: false })
 */
export function renderUser(input: {
  output: string
  context?: string
  instruction?: string
  hasImage: boolean
}): string {
  return sections(
    input.hasImage ? 'The IMAGE attached above is part of the SOURCE.' : '',
    section('context', input.context),
    section('question', input.instruction),
    section('response', input.output),
  )
}
