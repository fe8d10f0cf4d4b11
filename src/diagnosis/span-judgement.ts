import * as z from 'zod'
import { JUDGE_CATEGORIES } from '../taxonomy'

const AspectSchema = z.object({
  reason: z.string().describe('One short sentence.'),
  score: z.number().int().min(1).max(5).describe('1 (fails outright) to 5 (no problem).'),
})

const CategorySchema = z.enum(JUDGE_CATEGORIES as unknown as [string, ...string[]])

/**
 * A further error of the same span: its own category and its own quote. Kept only when the quote is a
 * different passage from every earlier error's of the reply (see `judgementVerdicts`): a second category
 * on the same evidence is a guess, not a finding.
 */
const AdditionalErrorSchema = z.object({
  category: CategorySchema.describe('The TRAIL category of this further error (not one named already).'),
  evidence: z
    .string()
    .describe('A verbatim quote from the span showing this error: a different passage from the other quotes.'),
})

/**
 * The span judge's reply, in the order the judge writes it: reasoning, the three aspects, the error
 * category (a TRAIL label or "none") with a verbatim quote from the span, then any further errors of the
 * span, each with its own category and its own quote (one category per piece of evidence). Replies
 * without `additional_errors` (written before it existed, or by hand) parse as having none.
 *
 * @example
 * SpanJudgementSchema.parse({ reasoning: '…', instruction_following: { reason: '…', score: 5 }, reasoning_integrity: { reason: '…', score: 2 },
 *   tool_completeness: { reason: '…', score: 5 }, error_category: 'Tool Output Misinterpretation', evidence: 'the page says 2019',
 *   additional_errors: [{ category: 'Formatting Errors', evidence: 'FINAL ANSWER 2019' }] })
 */
export const SpanJudgementSchema = z
  .object({
    reasoning: z
      .string()
      .describe('Your analysis of this span, written before any score: what it was asked, what it did, what is wrong.'),
    instruction_following: AspectSchema,
    reasoning_integrity: AspectSchema,
    tool_completeness: AspectSchema,
    error_category: z
      .enum(['none', ...JUDGE_CATEGORIES] as [string, ...string[]])
      .describe('The most specific TRAIL category of the main error this span shows, or "none".'),
    evidence: z.string().describe('A verbatim quote from the span showing that error; empty when there is none.'),
    additional_errors: z
      .array(AdditionalErrorSchema)
      .default([])
      .describe(
        'Other errors of this span, each shown by a different passage of the span; [] when there is none (always [] when error_category is "none").',
      ),
  })
  .superRefine((reply, ctx) => {
    const contradiction = contradictionOf(reply)
    if (contradiction) ctx.addIssue({ code: 'custom', path: [contradiction.path], message: contradiction.message })
  })
export type SpanJudgement = z.infer<typeof SpanJudgementSchema>

/** The aspects in reply order, with their verdict metric names. */
export const SPAN_ASPECTS = [
  { key: 'instruction_following', metric: 'span.instruction_following' },
  { key: 'reasoning_integrity', metric: 'span.reasoning_integrity' },
  { key: 'tool_completeness', metric: 'span.tool_completeness' },
] as const

/**
 * Where a span reply contradicts itself, by the prompt's own definitions: "none" (no error) with further
 * errors or with a quote of an error; or an error category with every aspect at 5 ("no problem"). Such a reply
 * is no verdict (unjudgeable), never read one way by ignoring the other half — either half would pass a `.not`
 * or a positive assertion. A low aspect with "none" is no contradiction: an aspect fails a span on its own,
 * without a taxonomy category (and does not propagate: docs/decisions/0013).
 */
function contradictionOf(reply: {
  error_category: string
  evidence: string
  additional_errors: readonly unknown[]
  instruction_following: { score: number }
  reasoning_integrity: { score: number }
  tool_completeness: { score: number }
}): { path: string; message: string } | undefined {
  const scores = SPAN_ASPECTS.map(({ key }) => ({ key, score: reply[key].score }))
  if (reply.error_category === 'none') {
    if (reply.additional_errors.length > 0)
      return {
        path: 'additional_errors',
        message: `error_category is "none" but ${reply.additional_errors.length} additional error(s) are named: the reply contradicts itself`,
      }
    if (reply.evidence.trim() !== '')
      return {
        path: 'evidence',
        message: 'error_category is "none" but evidence quotes an error: the reply contradicts itself',
      }
    return undefined
  }
  if (scores.every((a) => a.score === 5))
    return {
      path: 'error_category',
      message: `error_category names "${reply.error_category}" but every aspect is 5/5 (no problem): the reply contradicts itself`,
    }
  return undefined
}
