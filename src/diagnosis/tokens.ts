import type { z } from 'zod'
import { replyJsonSchema } from '../judges/json-schema'

/**
 * Characters per token of the one estimator every budget uses (judge prompts, monolithic traces,
 * bench figures): ceil(chars / 4), OpenAI's rule of thumb and what the fake judge counts.
 */
export const CHARS_PER_TOKEN = 4

/**
 * Estimated tokens of a text: ceil(length / 4).
 *
 * @example
 * estimateTokens('x'.repeat(10)) // 3
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}

/** Per-message framing a chat API adds (role markers, separators), counted generously. */
const MESSAGE_OVERHEAD_TOKENS = 16
/** The words a provider adds when it must put the schema in the system prompt instead of the API field. */
const SCHEMA_FALLBACK_TEXT = '\n\nReply with one JSON object that matches this JSON schema, and nothing else:\n'

/**
 * Tokens a judge request's prompt side costs, estimated: the system prompt, the user text, the reply
 * schema (as providers without native structured output receive it in the system prompt) and message
 * framing. This is what the per-call budget bounds.
 *
 * @example
 * requestTokens(SYSTEM, userText, SpanJudgementSchema) <= 16_000
 */
export function requestTokens(system: string, user: string, schema: z.ZodType): number {
  return estimateTokens(system) + estimateTokens(user) + schemaTokens(schema) + 2 * MESSAGE_OVERHEAD_TOKENS
}

const schemaCache = new WeakMap<z.ZodType, number>()

/** Tokens of a reply schema as JSON, plus the fallback instruction that would carry it. */
export function schemaTokens(schema: z.ZodType): number {
  let n = schemaCache.get(schema)
  if (n === undefined) {
    n = estimateTokens(SCHEMA_FALLBACK_TEXT + JSON.stringify(replyJsonSchema(schema)))
    schemaCache.set(schema, n)
  }
  return n
}

/**
 * The reply schema as a provider without native structured output would put it in the prompt, for
 * counting with a real tokenizer (see `fitToTokens`).
 *
 * @example
 * schemaPromptText(SpanJudgementSchema).startsWith('\n\nReply with one JSON object') // true
 */
export function schemaPromptText(schema: z.ZodType): string {
  return SCHEMA_FALLBACK_TEXT + JSON.stringify(replyJsonSchema(schema))
}

/** Framing tokens per request (two messages), as `requestTokens` counts them. */
export const REQUEST_FRAMING_TOKENS = 2 * MESSAGE_OVERHEAD_TOKENS
