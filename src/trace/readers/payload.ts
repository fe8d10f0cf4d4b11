import { jsonTextTooDeep, MAX_NESTING_DEPTH } from '../depth'
import type { Span } from '../span'
import type { ReadContext } from './context'

/**
 * Payloads above this size stay raw strings: the LLM `input.value` re-encodes the whole conversation
 * (up to MBs per span) and parsing it would cost more than parsing the file itself.
 */
export const MAX_PARSED_PAYLOAD = 32 * 1024

// `ActionStep(model_input_messages=None, ...)`: smolagents writes Python reprs where JSON is expected.
const PYTHON_REPR = /^[A-Z][A-Za-z0-9_]*\(/

/** True if the text starts (after whitespace) with `{` or `[`: only then is a JSON parse worth trying. */
export function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 91) return true
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false
  }
  return false
}

/**
 * A span payload (`input.value`, `output.value`, tool arguments …): small JSON is parsed, anything else
 * is kept as the raw string. JSON that fails to parse, or that wraps a Python repr, adds one
 * `unparsed-payload` warning per trace.
 */
export function readPayload(
  value: unknown,
  span: Span,
  ctx: ReadContext,
  opts: { mime?: unknown; limit?: number } = {},
): unknown {
  if (typeof value !== 'string') return value
  if (opts.mime === 'text/plain' || value.length > (opts.limit ?? MAX_PARSED_PAYLOAD) || !looksLikeJson(value))
    return value
  // A Python dict or list repr (`{'a': 1}`) cannot be JSON: no parse, and no exception (which costs more than one).
  if (jsonTextTooDeep(value)) {
    ctx.warnUnparsed(
      span.traceId,
      span.id,
      span.name,
      `a JSON payload nests more than ${MAX_NESTING_DEPTH} levels deep`,
    )
    return value
  }
  const parsed = startsLikePythonRepr(value) ? NOT_JSON : parseOrNotJson(value)
  if (parsed === NOT_JSON) {
    ctx.warnUnparsed(span.traceId, span.id, span.name, 'a payload looks like JSON but does not parse')
    return value
  }
  if (wrapsPythonRepr(parsed)) {
    ctx.warnUnparsed(span.traceId, span.id, span.name, 'a payload is a Python repr (e.g. ActionStep(...)), not JSON')
    return value
  }
  return parsed
}

const NOT_JSON = Symbol('not JSON')

function parseOrNotJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

/** `{"memory_step": "ActionStep(...)"}`: valid JSON whose only content is a Python repr string. */
function wrapsPythonRepr(parsed: unknown): boolean {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return false
  const values = Object.values(parsed)
  if (values.length !== 1) return false
  const v = values[0]
  return typeof v === 'string' && v.endsWith(')') && PYTHON_REPR.test(v)
}

/**
 * True if the text opens an object or array with a token JSON never allows there: `{'…` or `['…` (what
 * Python writes for dicts and lists), so JSON.parse would throw on it.
 */
function startsLikePythonRepr(text: string): boolean {
  let i = 0
  while (isJsonSpace(text.charCodeAt(i))) i++
  i++
  while (isJsonSpace(text.charCodeAt(i))) i++
  return text.charCodeAt(i) === 39
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9
}
