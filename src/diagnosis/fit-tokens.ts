// The prompt builders allocate by characters (cheap, and the shape of every prompt); this wrapper then
// counts the final rendered prompts with the judge's real tokenizer and rebuilds them smaller until
// every one is within budget, so no judge call is ever over `budgetTokens` in real tokens.
// The tokenizer (o200k, ~1.6 s to load) is loaded only for a prompt whose byte bound is over budget: a
// prompt under it is within budget whatever the count, so it is returned as built — the very prompt (and
// cassette key) the count would have let through — and a replayed small trace never pays the load.
import type { z } from 'zod'
import { promptTokenBound, promptTokenCounter, type PromptTokenCounter } from '../judges/tokenizer'
import type { Judge } from '../judges/types'
import { REQUEST_FRAMING_TOKENS, requestTokens, schemaPromptText } from './tokens'

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
 * Calls `build(budget)` (a char-based builder) and makes sure each prompt's whole request — system, user
 * text, reply schema, framing — is within budget in real tokens, rebuilding with a smaller budget while any
 * is over. A prompt whose UTF-8 byte bound (see `promptTokenBound`) is within budget needs no count; the
 * others are counted with the judge's tokenizer. `tokens` is the real count of a counted prompt, else the
 * chars/4 estimate capped by that bound (both within budget). Throws RangeError (raise the budget) when
 * the builder cannot fit, never returns a prompt over budget.
 *
 * @example
 * const [prompt] = await fitToTokens((b) => [spanPrompt(trace, span, { ...opts, budgetTokens: b })], { budgetTokens: 16_000, system: SYSTEM, schema, judge })
 */
export async function fitToTokens<P extends { text: string; tokens: number }>(
  build: (budgetTokens: number) => P[],
  options: FitOptions,
): Promise<P[]> {
  const schemaText = schemaPromptText(options.schema)
  const bound = promptTokenBound(options.judge)
  const upper = (p: P) => bound(options.system, p.text + schemaText) + REQUEST_FRAMING_TOKENS
  const estimate = (p: P) => Math.min(upper(p), requestTokens(options.system, p.text, options.schema))
  let count: PromptTokenCounter | undefined
  const measure = async (p: P) => {
    count ??= await counterFor(options.judge)
    return (await count(options.system, p.text + schemaText)) + REQUEST_FRAMING_TOKENS
  }
  let budget = options.budgetTokens
  for (let attempt = 0; attempt <= MAX_REBUILDS; attempt++) {
    const prompts = build(budget)
    // undefined: under its bound, so within budget without a count.
    const counts = await Promise.all(prompts.map((p) => (upper(p) <= options.budgetTokens ? undefined : measure(p))))
    const worst = Math.max(0, ...counts.map((n) => n ?? 0))
    if (worst <= options.budgetTokens) return prompts.map((p, i) => ({ ...p, tokens: counts[i] ?? estimate(p) }))
    // Shrink by the measured ratio, plus a step that doubles each time: structured payloads are cut in
    // coarse steps, so a small cut can rebuild the very same text (seen on a TRAIL trace at 16,021/16,000).
    budget = Math.floor((budget * options.budgetTokens) / worst) - 64 * 2 ** attempt
  }
  throw new RangeError(
    `prompts could not be fitted to ${options.budgetTokens} real tokens after ${MAX_REBUILDS} rebuilds; raise budgetTokens`,
  )
}
