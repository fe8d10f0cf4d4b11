// Builds a judge reply that fits the requested JSON schema and carries the scripted verdict.
//
// Mapping (per object, properties in schema order; every declared property is emitted):
// - `fields` win: a value is used as-is wherever a property of that name appears (any depth); a plain
//   object given for an object property is merged into that synthesized object (its keys win inside).
// - reason-like strings (reasoning, reason, rationale, explanation, justification, thoughts, analysis,
//   critique, feedback) get the reason; evidence-/reason-like string arrays get `[reason]`.
// - one score-like property per object: `score` or `verdict`, else a name like rating/grade/passed, else
//   the first number/integer/boolean, else the first non-category enum. It gets the rule's score (a
//   boolean on a number field → max/min; on a boolean field the verdict), or without one: pass → maximum
//   (1 when unbounded) / true / a pass-like enum value (else the first); fail → minimum (0) / false / a
//   fail-like value (else the last); a plain string score field gets 'pass' or 'fail'.
// - other fields: enums take the first value that fits the verdict (pass: pass-like or 'none'; fail: a
//   fail-like value, else the first that is not pass-like or 'none'), else the first; `const` its value;
//   `default` when given; numbers 0 clamped into range; booleans false; strings '' padded to minLength;
//   arrays minItems synthesized items (usually []); nullable unions take the non-null branch.
// - no schema (`json_object`, `text`): `{ reasoning, score }` plus `fields`; score defaults to 1 / 0.
import { boundsOf, concrete, isObject, kindOf, propertiesOf, type JsonSchema, type SchemaKind } from './json-schema'

export type VerdictWord = 'pass' | 'fail'

/** What to say: the verdict, an optional explicit score, the reason and per-name field overrides. */
export interface ReplyPlan {
  verdict: VerdictWord
  score?: number | boolean
  reason: string
  fields: Record<string, unknown>
}

const REASON_KEY = /reason|rationale|explanation|justification|thought|analysis|critique|feedback|comment/i
const EVIDENCE_KEY = /evidence|quote|citation/i
const SCORE_KEY = /^(score|verdict)$/i
const SCORE_LIKE_KEY = /score|rating|verdict|grade|^(is_?)?pass(ed|es)?$|^(is_?)?correct$|^label$/i
const CATEGORY_KEY = /categor/i
const PASS_WORDS = new Set([
  'pass',
  'passed',
  'yes',
  'true',
  'correct',
  'good',
  'ok',
  'valid',
  'faithful',
  'compliant',
  'followed',
  'grounded',
  'supported',
  'acceptable',
  'complete',
  'success',
  'accept',
  'approved',
])
const FAIL_WORDS = new Set([
  'fail',
  'failed',
  'no',
  'false',
  'incorrect',
  'bad',
  'invalid',
  'unfaithful',
  'noncompliant',
  'non-compliant',
  'not_followed',
  'ungrounded',
  'unsupported',
  'unacceptable',
  'incomplete',
  'failure',
  'reject',
  'rejected',
])
const NONE_WORDS = new Set(['none', 'n/a', 'no_error', 'no error', 'no_failure'])
const MAX_DEPTH = 32

const norm = (value: unknown) => String(value).trim().toLowerCase()
const isScalarScoreKind = (kind: SchemaKind) =>
  kind === 'number' || kind === 'integer' || kind === 'boolean' || kind === 'enum'

/** The property of an object node that carries its score, by the priority documented above. */
export function scoreKeyOf(node: JsonSchema, root: JsonSchema): string | undefined {
  const props = propertiesOf(node).map(([key, child]) => [key, kindOf(concrete(child, root))] as const)
  return (
    props.find(([key]) => SCORE_KEY.test(key))?.[0] ??
    props.find(([key, kind]) => SCORE_LIKE_KEY.test(key) && isScalarScoreKind(kind))?.[0] ??
    props.find(([, kind]) => kind === 'number' || kind === 'integer' || kind === 'boolean')?.[0] ??
    props.find(([key, kind]) => kind === 'enum' && !CATEGORY_KEY.test(key))?.[0]
  )
}

/** The root's score node, concrete, when the root is an object with a score-like property. */
export function rootScoreNode(schema: JsonSchema): JsonSchema | undefined {
  const root = concrete(schema, schema)
  if (kindOf(root) !== 'object') return isScalarScoreKind(kindOf(root)) ? root : undefined
  const key = scoreKeyOf(root, schema)
  const child = key === undefined ? undefined : propertiesOf(root).find(([k]) => k === key)?.[1]
  return child && concrete(child, schema)
}

/**
 * The verdict a rule means: explicit, else from its score (true/false; a number at or above the middle
 * of the score field's range — or ≥ 0.5 when unbounded — passes), else pass.
 */
export function inferVerdict(
  verdict: VerdictWord | undefined,
  score: number | boolean | undefined,
  schema: JsonSchema | null,
): VerdictWord {
  if (verdict) return verdict
  if (typeof score === 'boolean') return score ? 'pass' : 'fail'
  if (typeof score !== 'number') return 'pass'
  const node = schema ? rootScoreNode(schema) : undefined
  const { min, max } = node ? boundsOf(node) : {}
  const middle = min !== undefined && max !== undefined ? (min + max) / 2 : 0.5
  return score >= middle ? 'pass' : 'fail'
}

function pickEnum(values: unknown[], verdict: VerdictWord, isScore: boolean): unknown {
  if (isScore && values.every((v) => typeof v === 'number')) {
    const numbers = values as number[]
    return verdict === 'pass' ? Math.max(...numbers) : Math.min(...numbers)
  }
  const passLike = (v: unknown) => PASS_WORDS.has(norm(v))
  const noneLike = (v: unknown) => NONE_WORDS.has(norm(v))
  if (verdict === 'pass') return values.find(passLike) ?? (isScore ? undefined : values.find(noneLike)) ?? values[0]
  return (
    values.find((v) => FAIL_WORDS.has(norm(v))) ??
    (isScore ? values[values.length - 1] : (values.find((v) => !passLike(v) && !noneLike(v)) ?? values[0]))
  )
}

function scoreValue(node: JsonSchema, plan: ReplyPlan): unknown {
  const kind = kindOf(node)
  const pass = plan.verdict === 'pass'
  const { min, max } = boundsOf(node)
  switch (kind) {
    case 'number':
    case 'integer':
      if (typeof plan.score === 'number') return plan.score
      return pass ? (max ?? Math.max(1, min ?? 1)) : (min ?? Math.min(0, max ?? 0))
    case 'boolean':
      return typeof plan.score === 'boolean' ? plan.score : pass
    case 'enum': {
      const values = node.enum as unknown[]
      if (plan.score !== undefined && values.includes(plan.score)) return plan.score
      return pickEnum(values, plan.verdict, true)
    }
    case 'const':
      return node.const
    case 'string':
      return plan.score === undefined || typeof plan.score === 'boolean' ? plan.verdict : String(plan.score)
    default:
      return undefined
  }
}

function stringValue(node: JsonSchema, key: string, plan: ReplyPlan): string {
  if (REASON_KEY.test(key)) return plan.reason
  const formats: Record<string, string> = {
    'date-time': new Date(0).toISOString(),
    date: '1970-01-01',
    email: 'judge@example.com',
    uri: 'https://example.com/',
  }
  const base = typeof node.format === 'string' ? (formats[node.format] ?? '') : ''
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0
  return base.padEnd(minLength, 'x')
}

function valueFor(
  raw: JsonSchema,
  key: string,
  plan: ReplyPlan,
  root: JsonSchema,
  scope: Record<string, unknown> | undefined,
  depth: number,
): unknown {
  const node = concrete(raw, root)
  const kind = kindOf(node)
  // Recursive schemas: past the limit arrays end empty; objects stop only if arrays never end the chain.
  if (depth > MAX_DEPTH && (kind === 'array' || depth > 2 * MAX_DEPTH)) return kind === 'array' ? [] : null
  switch (kind) {
    case 'object':
      return objectValue(node, plan, root, scope, depth + 1)
    case 'array': {
      const items = isObject(node.items) ? node.items : {}
      const itemKind = kindOf(concrete(items, root))
      const maxItems = typeof node.maxItems === 'number' ? node.maxItems : Infinity
      if (itemKind === 'string' && (REASON_KEY.test(key) || EVIDENCE_KEY.test(key)) && maxItems > 0)
        return [plan.reason]
      const count = typeof node.minItems === 'number' ? node.minItems : 0
      return Array.from({ length: count }, () => valueFor(items, key, plan, root, undefined, depth + 1))
    }
    case 'enum':
      return pickEnum(node.enum as unknown[], plan.verdict, false)
    case 'const':
      return node.const
    case 'null':
      return null
    case 'any':
      return 'default' in node ? node.default : null
  }
  if ('default' in node) return node.default
  if (kind === 'string') return stringValue(node, key, plan)
  if (kind === 'boolean') return false
  const { min, max } = boundsOf(node)
  return Math.min(Math.max(0, min ?? 0), max ?? Infinity)
}

function objectValue(
  node: JsonSchema,
  plan: ReplyPlan,
  root: JsonSchema,
  scope: Record<string, unknown> | undefined,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const scoreKey = scoreKeyOf(node, root)
  for (const [key, child] of propertiesOf(node)) {
    const hasScoped = scope !== undefined && Object.hasOwn(scope, key)
    const override = hasScoped ? scope[key] : plan.fields[key]
    const overridden = hasScoped || Object.hasOwn(plan.fields, key)
    const childKind = kindOf(concrete(child, root))
    if (overridden && !(isObject(override) && childKind === 'object')) {
      out[key] = override
    } else if (overridden) {
      out[key] = valueFor(child, key, plan, root, override as Record<string, unknown>, depth)
    } else if (key === scoreKey) {
      out[key] = scoreValue(concrete(child, root), plan) ?? valueFor(child, key, plan, root, undefined, depth)
    } else {
      out[key] = valueFor(child, key, plan, root, undefined, depth)
    }
  }
  return out
}

/**
 * A reply object for the requested schema (or `{ reasoning, score }` without one).
 * @example
 * synthesizeReply({ type: 'object', properties: { reasoning: { type: 'string' }, score: { type: 'integer', minimum: 1, maximum: 5 } } },
 *   { verdict: 'fail', reason: 'wrong region', fields: {} }) // → { reasoning: 'wrong region', score: 1 }
 */
export function synthesizeReply(schema: JsonSchema | null, plan: ReplyPlan): unknown {
  if (!schema) return { reasoning: plan.reason, score: plan.score ?? (plan.verdict === 'pass' ? 1 : 0), ...plan.fields }
  const root = concrete(schema, schema)
  const kind = kindOf(root)
  if (kind === 'object') return objectValue(root, plan, schema, undefined, 0)
  return scoreValue(root, plan) ?? valueFor(root, 'score', plan, schema, undefined, 0)
}

/**
 * The same reply with the root's score pushed outside the schema's range: max + 1, else min − 1, else −1;
 * a word (`'out-of-range'`) for enum/boolean scores.
 */
export function outOfRange(schema: JsonSchema | null, reply: unknown): unknown {
  const root = schema ? concrete(schema, schema) : null
  const key = root && kindOf(root) === 'object' ? (scoreKeyOf(root, schema as JsonSchema) ?? 'score') : 'score'
  const node = root && kindOf(root) === 'object' ? rootScoreNode(schema as JsonSchema) : undefined
  let bad: unknown = -1
  if (node) {
    const kind = kindOf(node)
    const { min, max } = boundsOf(node)
    if (kind === 'enum' || kind === 'boolean' || kind === 'const' || kind === 'string') bad = 'out-of-range'
    else if (max !== undefined) bad = Math.floor(max) + 1
    else if (min !== undefined) bad = Math.ceil(min) - 1
  }
  return isObject(reply) ? { ...reply, [key]: bad } : bad
}
