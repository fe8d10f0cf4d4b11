import { expected, TraceFormatError } from '../errors'
import type { Span, SpanEvent } from '../span'
import { unixNanoToNs } from '../time'
import { newSpan, toStatus } from './common'
import type { ReadContext } from './context'
import { applyConventions } from './conventions'
import { decodeKeyValues, isObject, normalizeId } from './otlp-values'

type Json = Record<string, unknown>

// Accept the spec's lowerCamelCase, the pre-1.0 `instrumentationLibrarySpans`, and snake_case from protobuf tools.
export const RESOURCE_SPANS = ['resourceSpans', 'resource_spans'] as const
export const SCOPE_SPANS = [
  'scopeSpans',
  'scope_spans',
  'instrumentationLibrarySpans',
  'instrumentation_library_spans',
] as const

function pick(obj: Json, keys: readonly string[]): [string, unknown] {
  for (const k of keys) if (obj[k] !== undefined) return [k, obj[k]]
  return [keys[0], undefined]
}

/**
 * {@link pick}, refusing what would drop spans unseen: two spellings of the key in one object (only one would be
 * read), or a key that differs from one of them only in case (`ScopeSpans`, which would not be read at all).
 */
function pickOnly(obj: Json, keys: readonly string[], path: string, file: string | undefined): [string, unknown] {
  const present = keys.filter((k) => obj[k] !== undefined)
  if (present.length > 1)
    throw new TraceFormatError(
      `has both ${present.map((k) => `"${k}"`).join(' and ')}; an OTLP export uses one of them, and reading one would drop the other's spans — merge them into "${keys[0]}"`,
      { file, jsonPath: path },
    )
  if (present.length === 0) {
    const lower = new Set(keys.map((k) => k.toLowerCase()))
    const odd = Object.keys(obj).find((k) => lower.has(k.toLowerCase()))
    if (odd !== undefined)
      throw new TraceFormatError(
        `has "${odd}", which is not an OTLP key (keys are case-sensitive: "${keys[0]}"); its spans would not be read`,
        {
          file,
          jsonPath: `${path}.${odd}`,
        },
      )
  }
  return pick(obj, keys)
}

/** True for an OTLP JSON `ExportTraceServiceRequest` (`{resourceSpans: [...]}`). */
export function isOtlpRequest(doc: unknown): doc is Json {
  return isObject(doc) && Array.isArray(pick(doc, RESOURCE_SPANS)[1])
}

/**
 * Reads one OTLP JSON `ExportTraceServiceRequest` into flat spans. Kinds, messages, models and tools come
 * from OpenInference or GenAI semantic-convention attributes when present.
 *
 * @example
 * const spans = readOtlp(JSON.parse(text), new ReadContext('otel.json'))
 */
export function readOtlp(doc: Json, ctx: ReadContext): Span[] {
  const file = ctx.source
  const out: Span[] = []
  const [rsKey, resourceSpans] = pickOnly(doc, RESOURCE_SPANS, '$', file)
  if (!Array.isArray(resourceSpans)) throw expected('an array of resourceSpans', resourceSpans, `$.${rsKey}`, file)
  for (let r = 0; r < resourceSpans.length; r++) {
    const rs = resourceSpans[r]
    const rsPath = `$.${rsKey}[${r}]`
    if (!isObject(rs)) throw expected('a resourceSpans object', rs, rsPath, file)
    const [ssKey, scopeSpans] = pickOnly(rs, SCOPE_SPANS, rsPath, file)
    if (scopeSpans === undefined) continue
    if (!Array.isArray(scopeSpans)) throw expected('an array of scopeSpans', scopeSpans, `${rsPath}.${ssKey}`, file)
    for (let s = 0; s < scopeSpans.length; s++) {
      const ss = scopeSpans[s]
      const ssPath = `${rsPath}.${ssKey}[${s}]`
      if (!isObject(ss)) throw expected('a scopeSpans object', ss, ssPath, file)
      const spans = ss.spans
      if (spans === undefined) continue
      if (!Array.isArray(spans)) throw expected('an array of spans', spans, `${ssPath}.spans`, file)
      // Paths are built only if an error needs them, by two functions per scope (not a string or closure per span).
      let at = 0
      const spanPath = () => `${ssPath}.spans[${at}]`
      const attributesPath = () => `${spanPath()}.attributes`
      for (; at < spans.length; at++) out.push(readSpan(spans[at], spanPath, attributesPath, ctx))
    }
  }
  return out
}

function idAt(raw: Json, key: string, path: () => string, file: string | undefined, what: string): string {
  const v = raw[key]
  if (typeof v !== 'string' || v === '')
    throw expected(
      what,
      v,
      `${path()}.${key}`,
      file,
      'every span needs a traceId and a spanId (hex, or base64 from protobuf-JSON)',
    )
  return normalizeId(v)
}

/** One raw OTLP span object → a Span; `path` and `attributesPath` give its JSON paths for errors. */
export function readSpan(raw: unknown, path: () => string, attributesPath: () => string, ctx: ReadContext): Span {
  const file = ctx.source
  if (!isObject(raw)) throw expected('a span object', raw, path(), file)
  const id = idAt(raw, 'spanId', path, file, 'a span id (16 hex chars)')
  const traceId = idAt(raw, 'traceId', path, file, 'a trace id (32 hex chars)')
  const rawParent = raw.parentSpanId
  if (rawParent !== undefined && rawParent !== null && typeof rawParent !== 'string')
    throw expected('a parent span id string', rawParent, `${path()}.parentSpanId`, file)
  const parentId = rawParent ? normalizeId(rawParent) : null
  const name = raw.name ?? ''
  if (typeof name !== 'string') throw expected('a span name string', name, `${path()}.name`, file)
  const startNs = unixNanoToNs(raw.startTimeUnixNano)
  if (startNs === undefined)
    throw expected(
      'startTimeUnixNano as a decimal string or number',
      raw.startTimeUnixNano,
      `${path()}.startTimeUnixNano`,
      file,
    )
  const endNs = raw.endTimeUnixNano === undefined ? startNs : unixNanoToNs(raw.endTimeUnixNano)
  if (endNs === undefined)
    throw expected(
      'endTimeUnixNano as a decimal string or number',
      raw.endTimeUnixNano,
      `${path()}.endTimeUnixNano`,
      file,
    )
  const attributes = decodeKeyValues(raw.attributes, attributesPath, file)
  const events = readEvents(raw.events, startNs, path, file)
  const status = raw.status ?? {}
  if (!isObject(status)) throw expected('a status object {code, message}', status, `${path()}.status`, file)
  const message = status.message ?? ''
  if (typeof message !== 'string') throw expected('a status message string', message, `${path()}.status.message`, file)
  const span = newSpan(id, parentId, traceId, name, startNs, endNs, toStatus(status.code), message, attributes, events)
  applyConventions(span, ctx)
  return span
}

/** The events of the span at `spanPath` (its `.events`). */
function readEvents(raw: unknown, startNs: bigint, spanPath: () => string, file: string | undefined): SpanEvent[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) throw expected('an array of events', raw, `${spanPath()}.events`, file)
  const events: SpanEvent[] = []
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i]
    const path = () => `${spanPath()}.events[${i}]`
    if (!isObject(e)) throw expected('an event object', e, path(), file)
    const timeNs = e.timeUnixNano === undefined ? startNs : unixNanoToNs(e.timeUnixNano)
    if (timeNs === undefined)
      throw expected('timeUnixNano as a decimal string or number', e.timeUnixNano, `${path()}.timeUnixNano`, file)
    const name = e.name ?? ''
    if (typeof name !== 'string') throw expected('an event name string', name, `${path()}.name`, file)
    events.push({ name, timeNs, attributes: decodeKeyValues(e.attributes, () => `${path()}.attributes`, file) })
  }
  return events
}

/** JSON path of the span with this (normalized) id in a request, for errors found after reading. */
export function locateOtlpSpan(doc: Json, spanId: string): string | undefined {
  const [rsKey, resourceSpans] = pick(doc, RESOURCE_SPANS)
  if (!Array.isArray(resourceSpans)) return undefined
  for (let r = 0; r < resourceSpans.length; r++) {
    const rs = resourceSpans[r]
    if (!isObject(rs)) continue
    const [ssKey, scopeSpans] = pick(rs, SCOPE_SPANS)
    if (!Array.isArray(scopeSpans)) continue
    for (let s = 0; s < scopeSpans.length; s++) {
      const spans = (scopeSpans[s] as Json | undefined)?.spans
      if (!Array.isArray(spans)) continue
      for (let i = 0; i < spans.length; i++) {
        const id = (spans[i] as Json | undefined)?.spanId
        if (typeof id === 'string' && normalizeId(id) === spanId) return `$.${rsKey}[${r}].${ssKey}[${s}].spans[${i}]`
      }
    }
  }
  return undefined
}
