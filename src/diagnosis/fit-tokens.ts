// The prompt builders allocate by characters (cheap, and the shape of every prompt); this wrapper then
// counts the final rendered prompts with the judge's real tokenizer and rebuilds them smaller until
// every one is within budget, so no judge call is ever over `budgetTokens` in real tokens.
import type { z } from 'zod'
import { promptTokenCounter, type PromptTokenCounter } from '../judges/tokenizer'
import type { Judge } from '../judges/types'
import { REQUEST_FRAMING_TOKENS, schemaPromptText } from './tokens'

/** Rebuilds allowed before giving up (each shrinks proportionally to the measured overshoot). */
const MAX_REBUILDS = 8

const counters = new WeakMap<object, Promise<PromptTokenCounter>>()
const NO_JUDGE = {}

/** One counter per judge (the tokenizer loads once; a judge's CountTokens availability is learnt once). */
function counterFor(judge: Judge | undefined): Promise<PromptTokenCounter> {
  const key = judge ?? NO_JUDGE
  let counter = counters.get(key)
  if (!counter) {
    counter = promptTokenCounter(judge)
    counters.set(key, counter)
  }
  return counter
}

export interface FitOptions {
  budgetTokens: number
  system: string
  schema: z.ZodType
  /** Whose tokenizer counts (o200k, Bedrock CountTokens for Claude, o200k + margin otherwise). */
  judge?: Judge
}

/**
 * Calls `build(budget)` (a char-based builder), counts each prompt's whole request — system, user text,
 * reply schema, framing — with the real tokenizer, and rebuilds with a smaller budget while any is over.
 * Returns the prompts with `tokens` set to the real counts. Throws RangeError (raise the budget) when
 * the builder cannot fit, never returns a prompt over budget.
 *
 * @example
 * const [prompt] = await fitToTokens((b) => [spanPrompt(trace, span, { ...opts, budgetTokens: b })], { budgetTokens: 16_000, system: SYSTEM, schema, judge })
 */
export async function fitToTokens<P extends { text: string; tokens: number }>(
  build: (budgetTokens: number) => P[],
  options: FitOptions,
): Promise<P[]> {
  const count = await counterFor(options.judge)
  const schemaText = schemaPromptText(options.schema)
  const measure = async (p: P) => (await count(options.system, p.text + schemaText)) + REQUEST_FRAMING_TOKENS
  let budget = options.budgetTokens
  for (let attempt = 0; attempt <= MAX_REBUILDS; attempt++) {
    const prompts = build(budget)
    const counts = await Promise.all(prompts.map(measure))
    const worst = Math.max(0, ...counts)
    if (worst <= options.budgetTokens) return prompts.map((p, i) => ({ ...p, tokens: counts[i] }))
    // Shrink by the measured ratio, plus a step that doubles each time: structured payloads are cut in
    // coarse steps, so a small cut can rebuild the very same text (seen on a TRAIL trace at 16,021/16,000).
    budget = Math.floor((budget * options.budgetTokens) / worst) - 64 * 2 ** attempt
  }
  throw new RangeError(
    `prompts could not be fitted to ${options.budgetTokens} real tokens after ${MAX_REBUILDS} rebuilds; raise budgetTokens`,
  )
}
