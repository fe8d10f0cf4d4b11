import * as z from 'zod'
import type { JudgeUsage } from './types'

/** A model's list price in USD per 1M tokens. */
export const ModelPriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
})
export type ModelPrice = z.infer<typeof ModelPriceSchema>

/**
 * List prices (USD per 1M input/output tokens) of the default judge models, as published when this
 * was written. Prices change: override per judge with `prices: { input, output }`.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'anthropic.claude-sonnet-4-6': { input: 3, output: 15 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'o4-mini': { input: 1.1, output: 4.4 },
}

/** Other spellings of the same models (Anthropic API ids, provider-prefixed ids). */
const ALIASES: Readonly<Record<string, string>> = {
  'claude-sonnet-4-6': 'anthropic.claude-sonnet-4-6',
  'claude-sonnet-4.6': 'anthropic.claude-sonnet-4-6',
}

/**
 * Normalizes a model id to its price-table key: drops Bedrock inference-profile prefixes (`us.`,
 * `eu.`, `apac.`, `global.` …), provider prefixes (`openai/`), Bedrock version suffixes (`-v1:0`)
 * and OpenAI snapshot dates (`-2025-04-14`). Matching is then exact, so `gpt-4o-mini` never prices
 * as `gpt-4o`.
 *
 * @example
 * normalizeModelId('global.anthropic.claude-sonnet-4-6') // 'anthropic.claude-sonnet-4-6'
 * normalizeModelId('gpt-4.1-2025-04-14')                 // 'gpt-4.1'
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase()
  id = id.replace(/^arn:aws[^/]*\/(?=[^/]+$)/, '') // inference-profile ARN → its id
  id = id.replace(/^(openai|azure)\//, '')
  id = id.replace(/^(us|eu|apac|ap|jp|au|ca|us-gov|global)\.(?=[a-z]+\.)/, '')
  id = id.replace(/-v\d+(:\d+)?$/, '')
  id = id.replace(/-\d{4}-\d{2}-\d{2}$/, '')
  return ALIASES[id] ?? id
}

/**
 * The price of `model`: the override if given, else the table entry, else `null` (unknown model).
 *
 * @example
 * priceOf('us.anthropic.claude-sonnet-4-6-v1:0') // { input: 3, output: 15 }
 * priceOf('llama3.2-vision')                     // null
 */
export function priceOf(model: string, override?: ModelPrice): ModelPrice | null {
  if (override) return ModelPriceSchema.parse(override)
  return MODEL_PRICES[normalizeModelId(model)] ?? null
}

/**
 * Cost in USD of one call's usage, or `null` when the model's price is unknown.
 *
 * @example
 * costOf('gpt-4.1', { inputTokens: 1_000_000, outputTokens: 0 }) // 2
 */
export function costOf(model: string, usage: JudgeUsage, override?: ModelPrice): number | null {
  const price = priceOf(model, override)
  // Counts the provider sent that were not counts: the cost is unknown, not the price of the 0s they read as.
  if (!price || usage.invalid) return null
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
}
