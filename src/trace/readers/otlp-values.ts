import { MAX_NESTING_DEPTH } from '../depth'
import { expected, TraceFormatError } from '../errors'

type Json = Record<string, unknown>

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * A JSON path, or a function that builds it. Paths only appear in errors, so the readers pass functions
 * and build no path string per span or attribute on the way through a valid file.
 */
export type JsonPath = string | (() => string)

function pathText(path: JsonPath): string {
  return typeof path === 'string' ? path : path()
}

/**
 * An OTLP `AnyValue` → a plain JS value: strings, numbers (`intValue` may be a string), booleans,
 * arrays, objects (`kvlistValue`); `bytesValue` stays base64. Int64 beyond 2^53 stays a decimal string.
 *
 * @example
 * decodeAnyValue({ intValue: '42' }, '$.attributes[0].value') // 42
 */
export function decodeAnyValue(value: unknown, path: JsonPath, file?: string): unknown {
  try {
    return decodeValue(value, path, -1, file, 1)
  } catch (err) {
    throw err === TOO_DEEP ? tooDeep(pathText(path), file) : err
  }
}

/**
 * {@link decodeAnyValue} at `path`, or at `path[index].value` when `index` ≥ 0 (a KeyValue list's entry).
 * `depth` counts nested arrayValue/kvlistValue levels: the recursion stops at {@link MAX_NESTING_DEPTH}.
 */
function decodeValue(value: unknown, path: JsonPath, index: number, file: string | undefined, depth: number): unknown {
  if (depth > MAX_NESTING_DEPTH) throw TOO_DEEP
  if (!isObject(value))
    throw expected('an OTLP AnyValue object like {"stringValue": "…"}', value, at(path, index, ''), file)
  if ('stringValue' in value) {
    const v = value.stringValue
    if (typeof v !== 'string') throw expected('a string', v, at(path, index, '.stringValue'), file)
    return v
  }
  if ('intValue' in value) {
    const v = decodeInt(value.intValue)
    if (v === undefined)
      throw expected('an integer (number or decimal string)', value.intValue, at(path, index, '.intValue'), file)
    return v
  }
  if ('doubleValue' in value) {
    const v = value.doubleValue
    if (typeof v === 'number') return v
    // Protobuf JSON writes NaN and the infinities as strings.
    if (typeof v === 'string' && v.trim() !== '' && (v === 'NaN' || !Number.isNaN(Number(v)))) return Number(v)
    throw expected('a number', v, at(path, index, '.doubleValue'), file)
  }
  if ('boolValue' in value) {
    const v = value.boolValue
    if (typeof v !== 'boolean') throw expected('true or false', v, at(path, index, '.boolValue'), file)
    return v
  }
  if ('arrayValue' in value) {
    const values = (value.arrayValue as Json | undefined)?.values ?? []
    if (!Array.isArray(values))
      throw expected('an array of AnyValue', values, at(path, index, '.arrayValue.values'), file)
    return values.map((v, i) =>
      decodeValue(v, () => `${at(path, index, '.arrayValue.values')}[${i}]`, -1, file, depth + 1),
    )
  }
  if ('kvlistValue' in value) {
    const values = (value.kvlistValue as Json | undefined)?.values ?? []
    return decodeKeyValuesAt(values, () => at(path, index, '.kvlistValue.values'), file, depth + 1)
  }
  if ('bytesValue' in value) {
    const v = value.bytesValue
    if (typeof v !== 'string') throw expected('base64 bytes as a string', v, at(path, index, '.bytesValue'), file)
    return v
  }
  // An empty AnyValue is how OTLP encodes "no value".
  return null
}

/** Thrown from deep inside a value, turned into a TraceFormatError at the attribute's path (a short one). */
const TOO_DEEP = Symbol('too deep')

function tooDeep(jsonPath: string, file: string | undefined): TraceFormatError {
  return new TraceFormatError(
    `an attribute value nests arrayValue/kvlistValue more than ${MAX_NESTING_DEPTH} levels deep, too deep to judge or report; flatten the attribute, or record it as a JSON string`,
    { file, jsonPath },
  )
}

/** The path of a value decoded by {@link decodeValue}, plus `suffix`. */
function at(path: JsonPath, index: number, suffix: string): string {
  return index < 0 ? `${pathText(path)}${suffix}` : `${pathText(path)}[${index}].value${suffix}`
}

/** An integer from a number or a decimal string (beyond 2^53 kept as the string), else undefined. */
function decodeInt(v: unknown): number | string | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v)
    return Number.isSafeInteger(n) ? n : v
  }
  return undefined
}

/**
 * OTLP `KeyValue[]` → a record. `undefined` (absent) gives an empty record.
 *
 * @example
 * decodeKeyValues([{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4.1' } }], '$.attributes') // { 'gen_ai.request.model': 'gpt-4.1' }
 */
export function decodeKeyValues(list: unknown, path: JsonPath, file?: string): Record<string, unknown> {
  const at = { i: 0 }
  try {
    return decodeKeyValuesAt(list, path, file, 1, at)
  } catch (err) {
    throw err === TOO_DEEP ? tooDeep(`${pathText(path)}[${at.i}].value`, file) : err
  }
}

/** {@link decodeKeyValues} at nesting `depth`; `cursor.i` is left at the entry being decoded (for errors). */
function decodeKeyValuesAt(
  list: unknown,
  path: JsonPath,
  file: string | undefined,
  depth: number,
  cursor?: { i: number },
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (list === undefined || list === null) return out
  if (!Array.isArray(list)) throw expected('an array of {key, value} attributes', list, pathText(path), file)
  for (let i = 0; i < list.length; i++) {
    if (cursor) cursor.i = i
    const kv = list[i]
    if (!isObject(kv) || typeof kv.key !== 'string')
      throw expected('an attribute {key: string, value: AnyValue}', kv, `${pathText(path)}[${i}]`, file)
    out[kv.key] = kv.value === undefined ? null : decodeValue(kv.value, path, i, file, depth)
  }
  return out
}

const HEX = /^[0-9a-fA-F]+$/
const UPPER_HEX = /[A-F]/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * A trace or span id → lowercase hex. OTLP JSON uses hex; protobuf-JSON tooling writes the same bytes
 * as base64 (24 chars for a trace id, 12 for a span id). Other strings are kept as they are.
 */
export function normalizeId(id: string): string {
  // Exporters write lowercase hex: no lowercased copy of every id then.
  if ((id.length === 16 || id.length === 32) && HEX.test(id)) return UPPER_HEX.test(id) ? id.toLowerCase() : id
  if (id.length % 4 === 0 && BASE64.test(id)) {
    const bytes = atob(id.replace(/-/g, '+').replace(/_/g, '/'))
    if (bytes.length === 8 || bytes.length === 16) {
      let hex = ''
      for (let i = 0; i < bytes.length; i++) hex += bytes.charCodeAt(i).toString(16).padStart(2, '0')
      return hex
    }
  }
  return id
}
