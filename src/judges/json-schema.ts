import * as z from 'zod'

type JsonSchema = Record<string, unknown>

// Schemas are module constants reused for every span: convert each once.
const replyCache = new WeakMap<z.ZodType, JsonSchema>()
const strictCache = new WeakMap<z.ZodType, JsonSchema>()

/**
 * JSON schema of a judge's reply schema, as the model must produce it (zod's input side), without
 * `$schema`. Property order is kept, so `reasoning` stays before `score`.
 *
 * @example
 * replyJsonSchema(z.object({ reasoning: z.string(), score: z.number().min(1).max(5) }))
 */
export function replyJsonSchema(schema: z.ZodType): JsonSchema {
  let json = replyCache.get(schema)
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
    delete json.$schema
    replyCache.set(schema, json)
  }
  return json
}

/**
 * The same schema made acceptable to OpenAI's `strict: true` structured outputs: every object lists
 * all its properties as required and sets `additionalProperties: false`; properties that were
 * optional become nullable (the parser drops the nulls again); `default` is removed.
 *
 * @example
 * strictJsonSchema(z.object({ reasoning: z.string(), category: z.string().optional() }))
 * // { type: 'object', properties: { reasoning, category: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
 * //   required: ['reasoning', 'category'], additionalProperties: false }
 */
export function strictJsonSchema(schema: z.ZodType): JsonSchema {
  let json = strictCache.get(schema)
  if (!json) {
    json = makeStrict(replyJsonSchema(schema))
    strictCache.set(schema, json)
  }
  return json
}

function makeStrict(node: unknown): JsonSchema {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node as JsonSchema
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === 'default' || key === '$schema') continue
    if (key === 'properties' || key === '$defs' || key === 'definitions')
      out[key] = mapValues(value as JsonSchema, makeStrict)
    else if (key === 'items' || key === 'not' || key === 'additionalProperties')
      out[key] = typeof value === 'object' ? makeStrict(value) : value
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems')
      out[key] = (value as unknown[]).map(makeStrict)
    else out[key] = value
  }
  if (out.type === 'object' && out.properties) {
    const properties = out.properties as JsonSchema
    const required = new Set((out.required as string[] | undefined) ?? [])
    for (const name of Object.keys(properties)) {
      if (!required.has(name)) properties[name] = nullable(properties[name] as JsonSchema)
    }
    out.required = Object.keys(properties)
    out.additionalProperties = false
  }
  return out
}

function nullable(node: JsonSchema): JsonSchema {
  const anyOf = node.anyOf as JsonSchema[] | undefined
  if (anyOf?.some((s) => s.type === 'null')) return node
  if (node.type === 'null') return node
  return { anyOf: [node, { type: 'null' }] }
}

function mapValues(record: JsonSchema, fn: (value: unknown) => JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]))
}
