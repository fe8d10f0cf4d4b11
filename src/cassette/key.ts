import { createHash } from 'node:crypto'
import * as z from 'zod'
import type { Judge, JudgeRequest } from '../judges/types'

/**
 * JSON with object keys sorted at every level and no whitespace: the same value always gives the
 * same text, whatever order its keys were built in.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

// Converting a schema is the costly part of a key and the same schema object is reused per metric.
const jsonSchemas = new WeakMap<object, unknown>()

function jsonSchemaOf(schema: z.ZodType): unknown {
  let json = jsonSchemas.get(schema)
  if (json === undefined) {
    // Refinements and transforms have no JSON form; they do not change what the judge is asked.
    json = z.toJSONSchema(schema, { unrepresentable: 'any' })
    jsonSchemas.set(schema, json)
  }
  return json
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex')

/** Text with CRLF and lone CR line ends as LF: a checkout with git's `autocrlf` keys as the recording did. */
const lf = (text: string) => (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text)

/**
 * The cassette key of a judge request: sha256 hex of a canonical JSON of the provider, model, prompt
 * version, system prompt, the user content in order (text, and image digests for images), the output
 * schema name and its JSON schema. Anything that can change the verdict changes the key; credentials
 * and request options are not part of it. Nor are line ends: texts are keyed with CRLF and CR read as LF,
 * so a fixture checked out on Windows (git `autocrlf`) replays the entry recorded from its LF copy.
 * `occurrence` > 0 keys the n-th repeat of an identical request in one run (self-consistency samples),
 * so each sample is recorded and replayed.
 *
 * @example
 * const key = cassetteKey(judge, request) // '9c1f…' (64 hex chars)
 */
export function cassetteKey(
  judge: Pick<Judge, 'provider' | 'model'>,
  request: JudgeRequest<unknown>,
  occurrence = 0,
): string {
  const content = request.content.map((part) =>
    part.type === 'text' ? { text: lf(part.text) } : { image: part.digest || sha256(part.bytes) },
  )
  const base = sha256(
    canonicalJson({
      v: 1,
      provider: judge.provider,
      model: judge.model,
      promptVersion: request.promptVersion,
      system: lf(request.system),
      content,
      schemaName: request.schemaName,
      schema: jsonSchemaOf(request.schema),
    }),
  )
  return occurrence === 0 ? base : sha256(`${base}#${occurrence}`)
}
