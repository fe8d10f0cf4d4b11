// Spans an agent process dumped from its InMemorySpanExporter (JSON over stdout), read back as the OTLP receiver
// tests compare them: the receiver's files against what the SDK itself recorded.
import { tracesFromValue } from '../../src/trace/parse'
import type { ReadableSpanLike } from '../../src/trace/readers/readable-spans'
import type { Trace } from '../../src/trace/trace'

/** One finished span as the exporting process writes it (`ReadableSpan` fields, ids flattened). */
export interface DumpedSpan {
  name: string
  traceId: string
  spanId: string
  parentSpanId?: string
  startTime: [number, number]
  endTime: [number, number]
  status: { code: number; message?: string }
  attributes: Record<string, unknown>
  events: Array<{ name: string; time: [number, number]; attributes?: Record<string, unknown> }>
}

/**
 * The dumped spans back as ReadableSpan-shaped objects, one Trace per trace id: what
 * `loadTrace(exporter.getFinishedSpans())` gives in the exporting process.
 */
export function inMemoryTraces(dump: DumpedSpan[]): Map<string, Trace> {
  const spans: ReadableSpanLike[] = dump.map((s) => ({
    ...s,
    spanContext: () => ({ traceId: s.traceId, spanId: s.spanId }),
    parentSpanContext: s.parentSpanId ? { spanId: s.parentSpanId } : undefined,
  }))
  return new Map(tracesFromValue(spans).map((t) => [t.traceId, t]))
}
