// Just enough JSON Schema reading for reply synthesis: $ref, nullable unions, kinds, numeric bounds.

export type JsonSchema = Record<string, unknown>
export type SchemaKind =
  | 'object'
  | 'array'
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'null'
  | 'enum'
  | 'const'
  | 'any'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Follows local `$ref`s (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer); unknown refs become `{}`. */
export function resolveRef(node: JsonSchema, root: JsonSchema): JsonSchema {
  let current = node
  for (let hops = 0; typeof current.$ref === 'string' && hops < 16; hops++) {
    const ref = current.$ref as string
    if (!ref.startsWith('#')) return {}
    let target: unknown = root
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
      target = isObject(target) ? target[key] : undefined
    }
    if (!isObject(target)) return {}
    const { $ref: _ref, ...siblings } = current
    current = { ...target, ...siblings }
  }
  return current
}

/**
 * Collapses a node to the schema of one non-null value: resolves refs, takes the first non-null branch
 * of `anyOf`/`oneOf` (or of a type array), merges `allOf`. Returns a `{ type: 'null' }` node when null is all it allows.
 */
export function concrete(node: JsonSchema, root: JsonSchema, depth = 0): JsonSchema {
  let current = resolveRef(node, root)
  if (depth > 16) return current
  const union = (current.anyOf ?? current.oneOf) as unknown
  if (Array.isArray(union) && union.length > 0) {
    const branches = union.filter(isObject).map((b) => concrete(b, root, depth + 1))
    const pick = branches.find((b) => b.type !== 'null') ?? branches[0] ?? {}
    const { anyOf: _a, oneOf: _o, ...rest } = current
    current = { ...rest, ...pick }
  }
  if (Array.isArray(current.allOf)) {
    const { allOf, ...rest } = current
    for (const part of allOf.filter(isObject).map((p) => concrete(p, root, depth + 1))) {
      const properties = {
        ...(rest.properties as JsonSchema | undefined),
        ...(part.properties as JsonSchema | undefined),
      }
      const required = [
        ...((rest.required as string[] | undefined) ?? []),
        ...((part.required as string[] | undefined) ?? []),
      ]
      Object.assign(rest, part, Object.keys(properties).length ? { properties, required } : {})
    }
    current = rest
  }
  if (Array.isArray(current.type)) {
    const types = current.type as string[]
    current = { ...current, type: types.find((t) => t !== 'null') ?? 'null' }
  }
  return current
}

/** The kind of value a concrete node describes; `enum`/`const` win over `type`. */
export function kindOf(node: JsonSchema): SchemaKind {
  if (Array.isArray(node.enum) && node.enum.length > 0) return 'enum'
  if ('const' in node) return 'const'
  switch (node.type) {
    case 'object':
    case 'array':
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return node.type
  }
  if (isObject(node.properties)) return 'object'
  if (node.items !== undefined) return 'array'
  return 'any'
}

/** Object properties in declaration order (the order the model is asked to write them). */
export function propertiesOf(node: JsonSchema): [string, JsonSchema][] {
  return isObject(node.properties)
    ? Object.entries(node.properties).filter((e): e is [string, JsonSchema] => isObject(e[1]))
    : []
}

/** Inclusive numeric bounds, turning exclusive ones into the nearest allowed value. */
export function boundsOf(node: JsonSchema): { min?: number; max?: number } {
  const step = node.type === 'integer' ? 1 : 1e-6
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  // Draft-04 spelled exclusivity as a boolean beside minimum/maximum.
  let min = num(node.minimum)
  let max = num(node.maximum)
  if (node.exclusiveMinimum === true && min !== undefined) min += step
  if (node.exclusiveMaximum === true && max !== undefined) max -= step
  const exMin = num(node.exclusiveMinimum)
  const exMax = num(node.exclusiveMaximum)
  if (exMin !== undefined)
    min = Math.max(min ?? -Infinity, node.type === 'integer' ? Math.floor(exMin) + 1 : exMin + step)
  if (exMax !== undefined)
    max = Math.min(max ?? Infinity, node.type === 'integer' ? Math.ceil(exMax) - 1 : exMax - step)
  if (node.type === 'integer') {
    if (min !== undefined) min = Math.ceil(min)
    if (max !== undefined) max = Math.floor(max)
  }
  return { min, max }
}

export { isObject }
