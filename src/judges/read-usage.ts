// A provider's token counts read at its boundary: a count the reply got wrong is named here, as a reason for
// no verdict, instead of escaping later as a raw ZodError where the verdict is validated (issue 33).
import { JudgeOutputError, type JudgeErrorContext } from './errors'
import type { JudgeUsage } from './usage'

/**
 * A provider's token counts as {@link JudgeUsage}, each given as `[field as the provider names it, value]`. An
 * absent count (undefined or null) is 0, as servers that send no usage have always been read; any other value
 * must be a non-negative whole number, else the reply is no verdict: a `JudgeOutputError` naming the field
 * (never a raw ZodError later, where the verdict is validated).
 *
 * @example
 * readUsage({ inputTokens: ['usage.prompt_tokens', -1], outputTokens: ['usage.completion_tokens', 60] }, ctx)
 * // throws JudgeOutputError: … usage.prompt_tokens is -1, not a token count …
 */
export function readUsage(
  counts: Record<'inputTokens' | 'outputTokens', [field: string, value: unknown]>,
  ctx: JudgeErrorContext & { metric: string; raw?: string },
): JudgeUsage {
  const read = ([field, value]: [string, unknown]): number => {
    if (value === undefined || value === null) return 0
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
    const shown = (JSON.stringify(value) ?? String(value)).slice(0, 40)
    throw new JudgeOutputError(
      `${ctx.provider}:${ctx.model} returned an invalid reply for ${ctx.metric}: ${field} is ${shown}, not a token count (a whole number ≥ 0)`,
      { ...ctx, raw: ctx.raw ?? '', retryable: false },
    )
  }
  return { inputTokens: read(counts.inputTokens), outputTokens: read(counts.outputTokens) }
}
