import { expected } from '../errors'

type Json = Record<string, unknown>

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * An OTLP `AnyValue` → a plain JS value: strings, numbers (`intValue` may be a string), booleans,
 * arrays, objects (`kvlistValue`); `bytesValue` stays base64. Int64 beyond 2^53 stays a decimal string.
 */
export function decodeAnyValue(value: unknown, path: string, file?: string): unknown {
  if (!isObject(value)) throw expected('an OTLP AnyValue object like {"stringValue": "…"}', value, path, file)
  if ('stringValue' in value) {
    const v = value.stringValue
    if (typeof v !== 'string') throw expected('a string', v, `${path}.stringValue`, file)
    return v
  }
  if ('intValue' in value) return decodeInt(value.intValue, `${path}.intValue`, file)
  if ('doubleValue' in value) {
    const v = value.doubleValue
    if (typeof v === 'number') return v
    // Protobuf JSON writes NaN and the infinities as strings.
    if (typeof v === 'string' && v.trim() !== '' && (v === 'NaN' || !Number.isNaN(Number(v)))) return Number(v)
    throw expected('a number', v, `${path}.doubleValue`, file)
  }
  if ('boolValue' in value) {
    const v = value.boolValue
    if (typeof v !== 'boolean') throw expected('true or false', v, `${path}.boolValue`, file)
    return v
  }
  if ('arrayValue' in value) {
    const values = (value.arrayValue as Json | undefined)?.values ?? []
    if (!Array.isArray(values)) throw expected('an array of AnyValue', values, `${path}.arrayValue.values`, file)
    return values.map((v, i) => decodeAnyValue(v, `${path}.arrayValue.values[${i}]`, file))
  }
  if ('kvlistValue' in value) {
    const values = (value.kvlistValue as Json | undefined)?.values ?? []
    return decodeKeyValues(values, `${path}.kvlistValue.values`, file)
  }
  if ('bytesValue' in value) {
    const v = value.bytesValue
    if (typeof v !== 'string') throw expected('base64 bytes as a string', v, `${path}.bytesValue`, file)
    return v
  }
  // An empty AnyValue is how OTLP encodes "no value".
  return null
}

function decodeInt(v: unknown, path: string, file?: string): number | string {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v)
    return Number.isSafeInteger(n) ? n : v
  }
  throw expected('an integer (number or decimal string)', v, path, file)
}

/** OTLP `KeyValue[]` → a record. `undefined` (absent) gives an empty record. */
export function decodeKeyValues(list: unknown, path: string, file?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (list === undefined || list === null) return out
  if (!Array.isArray(list)) throw expected('an array of {key, value} attributes', list, path, file)
  for (let i = 0; i < list.length; i++) {
    const kv = list[i]
    if (!isObject(kv) || typeof kv.key !== 'string') throw expected('an attribute {key: string, value: AnyValue}', kv, `${path}[${i}]`, file)
    out[kv.key] = kv.value === undefined ? null : decodeAnyValue(kv.value, `${path}[${i}].value`, file)
  }
  return out
}

const HEX = /^[0-9a-fA-F]+$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * A trace or span id → lowercase hex. OTLP JSON uses hex; protobuf-JSON tooling writes the same bytes
 * as base64 (24 chars for a trace id, 12 for a span id). Other strings are kept as they are.
 */
export function normalizeId(id: string): string {
  if ((id.length === 16 || id.length === 32) && HEX.test(id)) return id.toLowerCase()
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
