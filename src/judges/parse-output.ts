import type { z } from 'zod'
import { JudgeOutputError, type JudgeErrorContext } from './errors'
import type { JudgeUsage } from './types'

/**
 * Parses a judge's text reply into the request's schema. Tolerates a fenced ```json block and prose
 * around one JSON object (OpenAI-compatible servers such as Ollama sometimes add them). Invalid JSON,
 * schema violations and out-of-range scores throw `JudgeOutputError` with an excerpt of the reply.
 *
 * @example
 * parseJudgeText('```json\n{"reasoning":"ok","score":4}\n```', schema, { provider: 'openai', model: 'gpt-4.1', metric: 'quality' })
 */
export function parseJudgeText<T>(text: string, schema: z.ZodType<T>, ctx: JudgeErrorContext & { metric: string; usage?: JudgeUsage }): T {
  let value: unknown
  try {
    value = JSON.parse(extractJson(text))
  } catch {
    throw new JudgeOutputError(`${ctx.provider}:${ctx.model} replied with text that is not JSON for ${ctx.metric}: "${short(text)}"`, { ...ctx, raw: text })
  }
  return validateJudgeOutput(value, schema, { ...ctx, raw: text })
}

/**
 * Validates an already-parsed reply (e.g. a Bedrock tool input) against the request's schema. Nulls
 * that stand for omitted optional fields (strict JSON schema makes them nullable) are dropped first
 * if the reply does not validate as is.
 *
 * @example
 * validateJudgeOutput({ reasoning: 'ok', score: 7 }, likert, ctx) // throws JudgeOutputError: score: too big
 */
export function validateJudgeOutput<T>(value: unknown, schema: z.ZodType<T>, ctx: JudgeErrorContext & { metric: string; raw?: string; usage?: JudgeUsage }): T {
  const first = schema.safeParse(value)
  if (first.success) return first.data
  const second = schema.safeParse(dropNulls(value))
  if (second.success) return second.data
  const raw = ctx.raw ?? JSON.stringify(value) ?? String(value)
  const issues = first.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')
  throw new JudgeOutputError(`${ctx.provider}:${ctx.model} returned an invalid verdict for ${ctx.metric} (${issues}): "${short(raw)}"`, { ...ctx, raw })
}

/** The JSON inside a reply: a fenced block's body, else the outermost `{…}`, else the text itself. */
export function extractJson(text: string): string {
  const trimmed = text.trim()
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed)
  if (fenced) return fenced[1].trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return trimmed
  const start = trimmed.indexOf('{')
  const end = trimmed.lastIndexOf('}')
  return start >= 0 && end > start ? trimmed.slice(start, end + 1) : trimmed
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]))
}

function short(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
