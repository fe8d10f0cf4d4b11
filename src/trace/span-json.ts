import type { Span, SpanEvent } from './span'

/** A span as plain JSON: bigint nanoseconds become decimal strings (JSON.stringify rejects bigint). */
export type SpanJSON = Omit<Span, 'startNs' | 'endNs' | 'events' | 'monotonicStartNs'> & {
  startNs: string
  endNs: string
  monotonicStartNs?: string
  events: Array<Omit<SpanEvent, 'timeNs'> & { timeNs: string }>
}

/**
 * A JSON-safe copy of a span for reports and CLI output (`startNs`, `endNs`, event `timeNs` as strings).
 *
 * @example
 * JSON.stringify(trace.spans.map(spanToJSON))
 */
export function spanToJSON(span: Span): SpanJSON {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(span)) if (value !== undefined) out[key] = value
  out.startNs = span.startNs.toString()
  out.endNs = span.endNs.toString()
  if (span.monotonicStartNs !== undefined) out.monotonicStartNs = span.monotonicStartNs.toString()
  out.events = span.events.map((e) => ({ ...e, timeNs: e.timeNs.toString() }))
  return out as SpanJSON
}
