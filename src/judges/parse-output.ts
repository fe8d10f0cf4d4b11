import { isDeepStrictEqual } from 'node:util'
import type { z } from 'zod'
import { scrubSecrets } from '../config/secrets'
import { JudgeOutputError, type JudgeErrorContext } from './errors'
import { inexactNumber } from './exact-numbers'
import { strictJsonSchema } from './json-schema'
import { checkReplyValue } from './reply-body'
import type { JudgeUsage } from './types'

// The one reply contract (docs/decisions/0015-judge-reply-contract.md): a verdict is the structured
// object the provider returned, or a text reply that is, as a whole, one JSON document (one surrounding
// code fence allowed) valid against the call's schema. Nothing is searched for inside a reply, so a
// quoted or reasoned-about verdict can never stand in for the real one.

type ParseContext = JudgeErrorContext & { metric: string; usage?: JudgeUsage }

/**
 * Parses a judge's text reply into the request's schema under the strict contract: the whole reply
 * (trimmed, optionally inside one surrounding ```/```json fence) must be a single JSON document that
 * validates. Prose around it, a second object or fence, truncated JSON, schema violations, extra keys
 * and out-of-range scores throw a (retryable) `JudgeOutputError` with an excerpt of the reply.
 *
 * @example
 * parseJudgeText('```json\n{"reasoning":"ok","score":4}\n```', schema, { provider: 'openai', model: 'gpt-4.1', metric: 'quality' })
 */
export function parseJudgeText<T>(text: string, schema: z.ZodType<T>, ctx: ParseContext): T {
  return validateJudgeOutput(parseReplyDocument(text, ctx), schema, { ...ctx, raw: text })
}

/**
 * A text reply as the one JSON document it must be (see {@link wholeDocument}), not yet checked against a schema;
 * throws a (retryable) `JudgeOutputError` for text that is not one JSON document, or one that gives a key twice.
 *
 * @example
 * candidates.push(parseReplyDocument(block.text, ctx))
 */
export function parseReplyDocument(text: string, ctx: ParseContext): unknown {
  const document = wholeDocument(text)
  let value: unknown
  try {
    value = JSON.parse(document)
  } catch {
    const what =
      text.trim() === ''
        ? 'an empty reply'
        : 'text that is not JSON as a whole (the reply must be exactly one JSON verdict, at most inside one code fence)'
    throw new JudgeOutputError(
      `${ctx.provider}:${ctx.model} replied with ${what} for ${ctx.metric}: "${short(text)}"`,
      { ...ctx, raw: text },
    )
  }
  // Held to the reply rules before anything recursive (a schema, a comparison, a stringify) walks it.
  try {
    checkReplyValue(value)
  } catch (err) {
    throw new JudgeOutputError(`${ctx.provider}:${ctx.model} ${(err as Error).message}`, {
      ...ctx,
      raw: text.slice(0, 2_000),
      retryable: false,
    })
  }
  // JSON.parse keeps the last of two equal keys, so `{"score":0,"score":1}` would pass as a 1: a reply that
  // says two things at once is no verdict (and nor is one whose keys differ only by their escapes).
  const repeated = duplicateKey(document)
  if (repeated !== undefined) {
    throw new JudgeOutputError(
      `${ctx.provider}:${ctx.model} returned an invalid verdict for ${ctx.metric} (key ${repeated} given twice; ` +
        `JSON keeps only the last, so the reply says two things): "${short(text)}"`,
      { ...ctx, raw: text },
    )
  }
  const rounded = inexactNumber(document)
  if (rounded !== undefined) throw roundedNumberError(rounded, text, ctx)
  return value
}

/**
 * The error for a reply that writes a number JSON.parse would round (`0.99999999999999999` reads as 1): a
 * score is checked as written, so such a reply is no verdict (docs/decisions/0036-numbers-as-written.md).
 *
 * @example
 * const rounded = inexactNumber(body)
 * if (rounded) throw roundedNumberError(rounded, body, ctx)
 */
export function roundedNumberError(
  rounded: { written: string; reads: string },
  raw: string,
  ctx: ParseContext,
): JudgeOutputError {
  return new JudgeOutputError(
    `${ctx.provider}:${ctx.model} returned an invalid verdict for ${ctx.metric} (the number ${short(rounded.written, 40)} ` +
      `is not a value JSON can hold: it would be read as ${rounded.reads}, so the reply is not taken as written): "${short(raw)}"`,
    { ...ctx, raw },
  )
}

/**
 * The first key (as a path) that appears twice in one object of a JSON document, if any; keys are compared
 * after their escapes are decoded (`"\u0073core"` is `"score"`). `document` must be valid JSON (it was parsed).
 *
 * @example
 * duplicateKey('{"score":0,"score":1}') // 'score'
 * duplicateKey('{"a":{"b":1},"c":{"b":2}}') // undefined
 */
export function duplicateKey(document: string): string | undefined {
  // One frame per open object or array: the keys seen so far (objects only) and the path to it.
  const frames: Array<{ keys?: Set<string>; path: string; key?: string }> = []
  let expectKey = false
  for (let i = 0; i < document.length; i++) {
    const c = document[i]
    if (c === '"') {
      let end = i + 1
      while (document[end] !== '"') end += document[end] === '\\' ? 2 : 1
      const top = frames[frames.length - 1]
      if (expectKey && top?.keys) {
        const key = JSON.parse(document.slice(i, end + 1)) as string
        if (top.keys.has(key)) return [top.path, key].filter(Boolean).join('.')
        top.keys.add(key)
        top.key = key
        expectKey = false
      }
      i = end
    } else if (c === '{' || c === '[') {
      const parent = frames[frames.length - 1]
      const path =
        parent === undefined
          ? ''
          : parent.keys
            ? [parent.path, parent.key].filter(Boolean).join('.')
            : `${parent.path}[]`
      frames.push(c === '{' ? { keys: new Set(), path } : { path })
      expectKey = c === '{'
    } else if (c === '}' || c === ']') {
      frames.pop()
      expectKey = false
    } else if (c === ',') {
      expectKey = frames[frames.length - 1]?.keys !== undefined
    }
  }
  return undefined
}

/**
 * Validates an already-parsed reply (e.g. a Bedrock tool input) against the request's schema. Nulls
 * that stand for omitted optional fields (strict JSON schema makes them nullable) are dropped first
 * if the reply does not validate as is. Keys the schema does not have are refused, as the strict JSON
 * schema sent to the provider refuses them.
 *
 * @example
 * validateJudgeOutput({ reasoning: 'ok', score: 7 }, likert, ctx) // throws JudgeOutputError: score: too big
 */
export function validateJudgeOutput<T>(value: unknown, schema: z.ZodType<T>, ctx: ParseContext & { raw?: string }): T {
  const raw = ctx.raw ?? JSON.stringify(value) ?? String(value)
  const extra = extraKey(value, strictJsonSchema(schema), '')
  if (extra !== undefined) {
    throw new JudgeOutputError(
      `${ctx.provider}:${ctx.model} returned an invalid verdict for ${ctx.metric} (unexpected key ${extra}): "${short(raw)}"`,
      { ...ctx, raw },
    )
  }
  const first = schema.safeParse(value)
  if (first.success) return first.data
  const second = schema.safeParse(dropNulls(value))
  if (second.success) return second.data
  const issues = first.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ')
  throw new JudgeOutputError(
    `${ctx.provider}:${ctx.model} returned an invalid verdict for ${ctx.metric} (${issues}): "${short(raw)}"`,
    { ...ctx, raw },
  )
}

/**
 * One verdict out of several candidates a provider returned (several tool calls, several choices):
 * each must be valid, and all must be the same verdict. Candidates that disagree are no verdict —
 * taking "the first one" would let a stray quoted verdict decide.
 *
 * @example
 * agreedVerdict([toolA.input, toolB.input], schema, ctx) // throws JudgeOutputError when they differ
 */
export function agreedVerdict<T>(
  candidates: readonly unknown[],
  schema: z.ZodType<T>,
  ctx: ParseContext & { raw?: string },
): T {
  if (candidates.length === 0)
    throw new JudgeOutputError(`${ctx.provider}:${ctx.model} returned no verdict for ${ctx.metric}`, {
      ...ctx,
      raw: ctx.raw ?? '',
    })
  const verdicts = candidates.map((c) => validateJudgeOutput(c, schema, ctx))
  if (verdicts.some((v) => !isDeepStrictEqual(v, verdicts[0]))) {
    const raw = ctx.raw ?? JSON.stringify(candidates)
    throw new JudgeOutputError(
      `${ctx.provider}:${ctx.model} returned ${verdicts.length} verdicts for ${ctx.metric} that disagree; none is taken: "${short(raw)}"`,
      { ...ctx, raw },
    )
  }
  return verdicts[0]
}

/**
 * The reply as the one document it must be: trimmed, and unwrapped when the WHOLE reply is a single
 * fenced block (```json … ```). Anything else is returned as is, for JSON.parse to accept or refuse.
 *
 * @example
 * wholeDocument('```json\n{"a":1}\n```') // '{"a":1}'
 * wholeDocument('see ```json\n{"a":1}\n``` then {"a":0}') // unchanged: not one document
 */
export function wholeDocument(text: string): string {
  const trimmed = text.trim()
  const fenced = /^```[A-Za-z]*\s*([\s\S]*?)\s*```$/.exec(trimmed)
  return fenced ? fenced[1] : trimmed
}

/** The first key (as a path) of `value` that the strict JSON schema does not allow, if any. */
function extraKey(value: unknown, node: unknown, path: string): string | undefined {
  if (!node || typeof node !== 'object' || value === null || typeof value !== 'object') return undefined
  const n = node as {
    anyOf?: unknown[]
    properties?: Record<string, unknown>
    items?: unknown
    additionalProperties?: unknown
  }
  if (Array.isArray(n.anyOf)) {
    const found = n.anyOf.map((branch) => extraKey(value, branch, path))
    return found.includes(undefined) ? undefined : found[0]
  }
  if (Array.isArray(value)) {
    if (!n.items) return undefined
    for (let i = 0; i < value.length; i++) {
      const found = extraKey(value[i], n.items, `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (!n.properties) return undefined
  for (const [key, child] of Object.entries(value)) {
    const where = path ? `${path}.${key}` : key
    if (!Object.hasOwn(n.properties, key)) {
      if (n.additionalProperties === false) return where
      continue
    }
    const found = extraKey(child, n.properties[key], where)
    if (found !== undefined) return found
  }
  return undefined
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, dropNulls(v)]),
  )
}

// Not src/verdict/text's oneLineExcerpt: judges may import only config and media (DESIGN's arrows).
function short(text: string, max = 160): string {
  // Scrubbed before it is cut: a cut through a key would leave a part no scrub recognises.
  const flat = scrubSecrets(text).replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
