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
  /**
   * Set when the provider reported counts that are not counts (`-1`, `"12"`, `1e308`, NaN): those read as 0,
   * and the cost of the call is unknown (a cost gate cannot pass on it), never silently 0.
   */
  invalid: z.string().optional(),
})
export type JudgeUsage = z.infer<typeof JudgeUsageSchema>

/** Largest count taken as real: no judge call uses a billion tokens; 1e308 is a broken or hostile reply. */
const MAX_TOKENS = 1e9

/**
 * A provider's reported token counts as {@link JudgeUsage}, read under the provider's field names `names`
 * (input, output). A missing count is 0, as before; a count that is not an integer 0..1e9, or a usage that is
 * not an object, reads as 0 and marks the usage `invalid`, so the verdict's cost is unknown, not a false 0.
 *
 * @example
 * usageFromCounts({ prompt_tokens: 1200, completion_tokens: -1 }, ['prompt_tokens', 'completion_tokens'])
 * // { inputTokens: 1200, outputTokens: 0, invalid: 'completion_tokens: -1' }
 */
export function usageFromCounts(counts: unknown, [inputName, outputName]: readonly [string, string]): JudgeUsage {
  if (counts === undefined || counts === null) return { inputTokens: 0, outputTokens: 0 }
  if (typeof counts !== 'object' || Array.isArray(counts))
    return { inputTokens: 0, outputTokens: 0, invalid: `usage: not an object (${typeof counts})` }
  const bad: string[] = []
  const count = (name: string): number => {
    const value = (counts as Record<string, unknown>)[name]
    if (value === undefined || value === null) return 0
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS) return value
    bad.push(`${name}: ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value).slice(0, 40)}`)
    return 0
  }
  const usage: JudgeUsage = { inputTokens: count(inputName), outputTokens: count(outputName) }
  if (bad.length > 0) usage.invalid = bad.join(', ')
  return usage
}
