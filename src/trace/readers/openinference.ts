import { checkAttributeDepth } from '../depth'
import { expected } from '../errors'
import type { Span, SpanEvent } from '../span'
import { isoDurationToNs, isoToNs } from '../time'
import { newSpan, toStatus } from './common'
import type { ReadContext } from './context'
import { applyOpenInference } from './openinference-attributes'

type Json = Record<string, unknown>

/** Where a span sits in the nested envelope; the JSON path is only built when an error needs it. */
interface Frame {
  node: unknown
  parent: Frame | undefined
  key: string
  index: number
  parentId: string | null
}

function pathOf(frame: Frame, base: string): string {
  const parts: string[] = []
  for (let f: Frame | undefined = frame; f; f = f.parent) parts.push(`.${f.key}[${f.index}]`)
  return base + parts.reverse().join('')
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** True for a TRAIL/OpenInference export: `{trace_id, spans: [root]}` with spans nested in `child_spans`. */
export function isOpenInferenceEnvelope(doc: unknown): doc is Json {
  if (!isObject(doc) || !Array.isArray(doc.spans)) return false
  const first = doc.spans[0]
  return typeof doc.trace_id === 'string' || (isObject(first) && ('span_id' in first || 'child_spans' in first))
}

/**
 * Reads an OpenInference envelope (as in TRAIL) into flat spans, in document order. Attributes are kept
 * by reference (no copy) and mapped with {@link applyOpenInference}.
 *
 * @example
 * const spans = readOpenInference(JSON.parse(text), new ReadContext('trace.json'))
 */
export function readOpenInference(doc: Json, ctx: ReadContext, base = '$'): Span[] {
  const file = ctx.source
  const envelopeTraceId = doc.trace_id
  if (envelopeTraceId !== undefined && typeof envelopeTraceId !== 'string')
    throw expected('a trace id string', envelopeTraceId, `${base}.trace_id`, file)
  const out: Span[] = []
  const stack: Frame[] = []
  const roots = doc.spans as unknown[]
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ node: roots[i], parent: undefined, key: 'spans', index: i, parentId: null })
  while (stack.length > 0) {
    const frame = stack.pop()!
    const node = frame.node
    if (!isObject(node)) throw expected('a span object', node, pathOf(frame, base), file)
    const span = readSpan(node, frame, envelopeTraceId, ctx, base)
    out.push(span)
    const kids = node.child_spans
    if (kids === undefined || kids === null) continue
    if (!Array.isArray(kids))
      throw expected('an array of child spans', kids, `${pathOf(frame, base)}.child_spans`, file)
    for (let i = kids.length - 1; i >= 0; i--)
      stack.push({ node: kids[i], parent: frame, key: 'child_spans', index: i, parentId: span.id })
  }
  return out
}

/** The error for a bad value at `<span path>.<key>`; paths are only built here, on the error path. */
function bad(
  frame: Frame,
  base: string,
  key: string,
  what: string,
  found: unknown,
  file: string | undefined,
  hint?: string,
): Error {
  return expected(what, found, `${pathOf(frame, base)}.${key}`, file, hint)
}

function readSpan(node: Json, frame: Frame, envelopeTraceId: string | undefined, ctx: ReadContext, base: string): Span {
  const file = ctx.source
  const id = node.span_id
  if (typeof id !== 'string' || id === '')
    throw bad(frame, base, 'span_id', 'a span id string (16 hex chars)', id, file, 'every span needs its own `span_id`')
  const traceId = node.trace_id ?? envelopeTraceId
  if (typeof traceId !== 'string') throw bad(frame, base, 'trace_id', 'a trace id string', node.trace_id, file)
  const rawParent = node.parent_span_id
  if (rawParent !== undefined && rawParent !== null && typeof rawParent !== 'string')
    throw bad(frame, base, 'parent_span_id', 'a parent span id string or null', rawParent, file)
  // The tree is encoded twice (nesting and parent ids); the id wins, nesting fills in when it is missing.
  const parentId = rawParent ? rawParent : frame.parentId
  const name = node.span_name ?? ''
  if (typeof name !== 'string') throw bad(frame, base, 'span_name', 'a span name string', name, file)
  const startNs = typeof node.timestamp === 'string' ? isoToNs(node.timestamp) : undefined
  if (startNs === undefined)
    throw bad(
      frame,
      base,
      'timestamp',
      'an ISO-8601 start timestamp like "2025-03-25T09:12:19.740766Z"',
      node.timestamp,
      file,
    )
  const endNs = readEnd(node, startNs, frame, base, file)
  const attributes = node.span_attributes ?? {}
  if (!isObject(attributes)) throw bad(frame, base, 'span_attributes', 'an object of span attributes', attributes, file)
  checkAttributeDepth(attributes, () => `${pathOf(frame, base)}.span_attributes`, file)
  const statusMessage = node.status_message ?? ''
  if (typeof statusMessage !== 'string')
    throw bad(frame, base, 'status_message', 'a status message string', statusMessage, file)
  const rawEvents = node.events
  const events =
    rawEvents === undefined || rawEvents === null || (Array.isArray(rawEvents) && rawEvents.length === 0)
      ? []
      : readEvents(rawEvents, frame, base, file)
  const span = newSpan(
    id,
    parentId,
    traceId,
    name,
    startNs,
    endNs,
    toStatus(node.status_code),
    statusMessage,
    attributes,
    events,
  )
  applyOpenInference(span, ctx)
  return span
}

function readEnd(node: Json, startNs: bigint, frame: Frame, base: string, file: string | undefined): bigint {
  const duration = node.duration
  if (duration !== undefined && duration !== null) {
    const ns = typeof duration === 'string' ? isoDurationToNs(duration) : undefined
    if (ns === undefined) throw bad(frame, base, 'duration', 'an ISO-8601 duration like "PT4.829649S"', duration, file)
    return startNs + ns
  }
  const end = node.end_time
  if (typeof end === 'string') {
    const ns = isoToNs(end)
    if (ns === undefined) throw bad(frame, base, 'end_time', 'an ISO-8601 end timestamp', end, file)
    return ns
  }
  return startNs
}

function readEvents(raw: unknown, frame: Frame, base: string, file: string | undefined): SpanEvent[] {
  if (!Array.isArray(raw)) throw bad(frame, base, 'events', 'an array of events', raw, file)
  const events: SpanEvent[] = []
  for (let i = 0; i < raw.length; i++) {
    const e = raw[i]
    const at = `events[${i}]`
    if (!isObject(e)) throw bad(frame, base, at, 'an event object', e, file)
    // TRAIL capitalises event keys (`Timestamp`, `Name`, `Attributes`); other exporters do not.
    const stampKey = 'Timestamp' in e ? 'Timestamp' : 'timestamp'
    const stamp = e[stampKey]
    const timeNs = typeof stamp === 'string' ? isoToNs(stamp) : undefined
    if (timeNs === undefined) throw bad(frame, base, `${at}.${stampKey}`, 'an ISO-8601 event timestamp', stamp, file)
    const name = e.Name ?? e.name ?? ''
    if (typeof name !== 'string') throw bad(frame, base, `${at}.Name`, 'an event name string', name, file)
    const attributes = e.Attributes ?? e.attributes ?? {}
    if (!isObject(attributes))
      throw bad(frame, base, `${at}.Attributes`, 'an object of event attributes', attributes, file)
    checkAttributeDepth(attributes, () => `${pathOf(frame, base)}.${at}.Attributes`, file)
    events.push({ name, timeNs, attributes })
  }
  return events
}

/** JSON path of the span with this id in an envelope (for errors found after reading, e.g. cycles). */
export function locateOpenInferenceSpan(doc: Json, spanId: string, base = '$'): string | undefined {
  const stack: Frame[] = []
  const roots = Array.isArray(doc.spans) ? doc.spans : []
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ node: roots[i], parent: undefined, key: 'spans', index: i, parentId: null })
  while (stack.length > 0) {
    const frame = stack.pop()!
    const node = frame.node as Json
    if (node?.span_id === spanId) return pathOf(frame, base)
    const kids = node?.child_spans
    if (Array.isArray(kids))
      for (let i = kids.length - 1; i >= 0; i--)
        stack.push({ node: kids[i], parent: frame, key: 'child_spans', index: i, parentId: null })
  }
  return undefined
}
