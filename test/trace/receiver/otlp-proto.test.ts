import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { parseTraces, tracesFromValue } from '../../../src/trace/parse'
import { fromReadableSpans } from '../../../src/trace/readers/readable-spans'
import {
  decodeRpcStatus,
  decodeTraceRequest,
  encodeRpcStatus,
  encodeTraceResponse,
} from '../../../src/trace/receiver/otlp-proto'
import { spanToJSON } from '../../../src/trace/span-json'
import { agentRun, at, createRecorder, openInferenceRun, record } from '../../helpers/otel'

/** Bytes exactly as `@opentelemetry/exporter-trace-otlp-proto` posts them. */
function protoBytes(spans: ReadableSpan[]): Uint8Array {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans)
  if (!bytes) throw new Error('the SDK serializer returned nothing')
  return bytes
}

function recorded(): ReadableSpan[] {
  const rec = createRecorder({ seed: 21 })
  agentRun(rec.tracer, { failure: 503 })
  openInferenceRun(rec.tracer, 10_000)
  record(rec.tracer, {
    name: 'typed attributes',
    start: at(20_000, 1),
    end: at(20_001, 2),
    attributes: {
      s: '',
      i: -42,
      big: 2 ** 40,
      d: 0.25,
      b: false,
      arr: ['a', ''],
      nums: [1, 2.5],
      flags: [true, false],
    },
    events: [{ name: 'checkpoint', time: at(20_000, 999), attributes: { step: 3 } }],
  })
  return rec.spans()
}

const json = (traces: ReturnType<typeof parseTraces>) =>
  traces.map((t) => ({ id: t.traceId, spans: t.spans.map(spanToJSON) }))

describe('decodeTraceRequest (protobufjs over the OTLP schema)', () => {
  it('gives the spans the JSON exporter path gives, for the same SDK spans', () => {
    const spans = recorded()
    const viaProto = tracesFromValue(decodeTraceRequest(protoBytes(spans)))
    const viaJson = parseTraces(createRecorder().otlpJson(spans))
    expect(viaProto).toHaveLength(3)
    expect(json(viaProto)).toEqual(json(viaJson))
  })

  it('gives the spans InMemorySpanExporter gives (ids, tree, attributes, events, status, exact ns)', () => {
    const spans = recorded()
    const direct = new Map(fromReadableSpans(spans).map((s) => [s.id, spanToJSON(s)]))
    const decoded = tracesFromValue(decodeTraceRequest(protoBytes(spans))).flatMap((t) => [...t.spans])
    expect(decoded).toHaveLength(spans.length)
    for (const s of decoded) expect(spanToJSON(s)).toEqual(direct.get(s.id))
    const failed = decoded.find((s) => s.status === 'error')!
    expect(failed.events.map((e) => e.name)).toEqual(['exception'])
  })

  it('writes ids as lowercase hex and 64-bit numbers as decimal strings, the OTLP JSON encoding', () => {
    const doc = decodeTraceRequest(protoBytes(recorded())) as any
    const span = doc.resourceSpans[0].scopeSpans[0].spans[0]
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/)
    expect(doc.resourceSpans[0].resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'support-agent' },
    })
  })

  it('keeps fixed64 timestamps and int64 attributes beyond 2^53 exact', () => {
    const rec = createRecorder({ seed: 22 })
    record(rec.tracer, {
      name: 'late',
      start: [4_102_444_800, 123_456_789],
      end: [4_102_444_801, 987_654_321],
      attributes: { n: Number.MAX_SAFE_INTEGER },
    })
    const [span] = tracesFromValue(decodeTraceRequest(protoBytes(rec.spans())))[0].spans
    expect(span.startNs).toBe(4_102_444_800_123_456_789n)
    expect(span.endNs).toBe(4_102_444_801_987_654_321n)
    expect(span.attributes.n).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('an empty request decodes to no spans', () => {
    expect(decodeTraceRequest(new Uint8Array())).toEqual({})
  })

  it.each([
    ['a length-delimited field that runs past the end', Uint8Array.from([0x0a, 0x7f, 0x01])],
    ['an unknown field with a wire type protobuf does not have', Uint8Array.from([0x2f, 0x00])],
    ['text sent as protobuf', new TextEncoder().encode('{"resourceSpans": []}')],
  ])('refuses %s', (_what, bytes) => {
    expect(() => decodeTraceRequest(bytes)).toThrow()
  })

  it('refuses a request cut short', () => {
    const bytes = protoBytes(recorded())
    expect(() => decodeTraceRequest(bytes.subarray(0, bytes.length - 7))).toThrow()
  })
})

describe('OTLP response messages', () => {
  it('a full success is an empty ExportTraceServiceResponse', () => {
    expect(encodeTraceResponse()).toHaveLength(0)
  })

  it('a partial success carries the rejected count and message', () => {
    expect(encodeTraceResponse({ rejectedSpans: 2, errorMessage: 'two spans had no id' }).length).toBeGreaterThan(4)
  })

  it('google.rpc.Status round-trips', () => {
    expect(decodeRpcStatus(encodeRpcStatus(3, 'not a trace'))).toEqual({ code: 3, message: 'not a trace' })
  })
})
