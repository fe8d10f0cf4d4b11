// Tokens one judge call used, as the judges, cassettes and batch files carry it. Each provider converts
// its own counts into it at its boundary (OpenAI prompt_tokens/completion_tokens, Bedrock inputTokens,
// batch input_tokens); the verdict contract's TokenUsage ({ input, output }, src/verdict) is built from it
// in one place, metrics/token-usage.ts, because judges may not import src/verdict (DESIGN's arrows).
import * as z from 'zod'

/**
 * Input and output tokens of one judge call (or the sum of several).
 *
 * @example
 * JudgeUsageSchema.parse({ inputTokens: 1200, outputTokens: 80 })
 */
export const JudgeUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
})
export type JudgeUsage = z.infer<typeof JudgeUsageSchema>
