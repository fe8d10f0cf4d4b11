// A judge on a small local server (`;context=8k`): the span prompt budget is derived from its context window, so
// no prompt plus its reply outgrows it (llama.cpp answers 500 "Context size has been exceeded", Ollama silently
// cuts the prompt's head).
import { JudgeConfigError } from '../judges/errors'
import type { Judge } from '../judges/types'
import { MAX_OUTPUT_TOKENS as SPAN_OUTPUT_TOKENS } from './span-judge'
import { DEFAULT_BUDGET_TOKENS, MIN_BUDGET_TOKENS } from './types'

/**
 * Share of the context left to the prompt after the reply's room: budgets count o200k tokens, and a local model's
 * tokenizer plus its chat template can spend more on the same text.
 */
const TOKENIZER_SLACK = 0.8

/**
 * The prompt budget that fits a context window of `contextTokens`, leaving room for a reply of
 * `outputTokens` (default the span diagnosis reply's bound) and the tokenizer slack.
 *
 * @example
 * budgetForContext(8192) // 5353
 */
export function budgetForContext(contextTokens: number, outputTokens = SPAN_OUTPUT_TOKENS): number {
  return Math.floor((contextTokens - outputTokens) * TOKENIZER_SLACK)
}

/**
 * The per-call prompt budget of a diagnosis: the caller's, else the one the judge's context allows, else the
 * default. Throws a JudgeConfigError (before any call) when the judge's context cannot hold the smallest prompt,
 * or the caller's budget does not fit it.
 *
 * @example
 * diagnosisBudget(undefined, { contextTokens: 8192 }) // 5353
 */
export function diagnosisBudget(
  budgetTokens: number | undefined,
  judge: Pick<Judge, 'id' | 'contextTokens' | 'maxOutputTokens'> | undefined,
): number {
  const context = judge?.contextTokens
  if (!context) return budgetTokens ?? DEFAULT_BUDGET_TOKENS
  const output = Math.max(SPAN_OUTPUT_TOKENS, judge.maxOutputTokens ?? 0)
  const fits = budgetForContext(context, output)
  if (fits < MIN_BUDGET_TOKENS) {
    const needed = Math.ceil(MIN_BUDGET_TOKENS / TOKENIZER_SLACK + output)
    throw new JudgeConfigError(
      `${judge.id} has a context of ${context} tokens (context=${context} in the judge spec): after ${output} tokens for the reply it leaves ${fits} for a prompt, and diagnose needs at least ${MIN_BUDGET_TOKENS}. ` +
        `Start the server with a context of at least ${needed} tokens (llama.cpp -c ${needed}, Ollama num_ctx ${needed}) and set context= to match`,
    )
  }
  if (budgetTokens !== undefined && budgetTokens > fits)
    throw new JudgeConfigError(
      `--budget ${budgetTokens} does not fit ${judge.id}'s context of ${context} tokens: at most ${fits} leaves room for the reply; lower --budget or drop it (the context sets it)`,
    )
  return budgetTokens ?? Math.min(DEFAULT_BUDGET_TOKENS, fits)
}
