import { z } from 'zod'
import { JUDGE_CATEGORIES } from '../taxonomy'

const AspectSchema = z.object({
  reason: z.string().describe('One short sentence.'),
  score: z.number().int().min(1).max(5).describe('1 (fails outright) to 5 (no problem).'),
})

/**
 * The span judge's reply, in the order the judge writes it: reasoning, the three aspects, the error
 * category (a TRAIL label or "none") and a verbatim quote from the span.
 *
 * @example
 * SpanJudgementSchema.parse({ reasoning: '…', instruction_following: { reason: '…', score: 5 }, reasoning_integrity: { reason: '…', score: 2 },
 *   tool_completeness: { reason: '…', score: 5 }, error_category: 'Tool Output Misinterpretation', evidence: 'the page says 2019' })
 */
export const SpanJudgementSchema = z.object({
  reasoning: z.string().describe('Your analysis of this span, written before any score: what it was asked, what it did, what is wrong.'),
  instruction_following: AspectSchema,
  reasoning_integrity: AspectSchema,
  tool_completeness: AspectSchema,
  error_category: z.enum(['none', ...JUDGE_CATEGORIES] as [string, ...string[]]).describe('The TRAIL category of the error this span shows, or "none".'),
  evidence: z.string().describe('A verbatim quote from the span showing the error; empty when there is none.'),
})
export type SpanJudgement = z.infer<typeof SpanJudgementSchema>

/** The aspects in reply order, with their verdict metric names. */
export const SPAN_ASPECTS = [
  { key: 'instruction_following', metric: 'span.instruction_following' },
  { key: 'reasoning_integrity', metric: 'span.reasoning_integrity' },
  { key: 'tool_completeness', metric: 'span.tool_completeness' },
] as const
