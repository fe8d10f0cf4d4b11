import { checkAttributeDepth } from '../depth'
import { expected } from '../errors'
import type { Span, SpanEvent } from '../span'
import { hrTimeToNs } from '../time'
import { newSpan, toStatus } from './common'
import { ReadContext } from './context'
import { applyConventions } from './conventions'

/** OTel `HrTime`: `[seconds, nanoseconds]`. */
export type HrTimeLike = readonly [number, number]

/**
 * The parts of an OTel SDK `ReadableSpan` the reader uses (sdk-trace-base 1.x and 2.x), so `src/`
 * needs no SDK at runtime. `InMemorySpanExporter.getFinishedSpans()` returns these.
 */
export interface ReadableSpanLike {
  readonly name: string
  spanContext(): { traceId: string; spanId: string }
  /** sdk 2.x */
  readonly parentSpanContext?: { spanId: string }
  /** sdk 1.x */
  readonly parentSpanId?: string
  readonly startTime: HrTimeLike
  readonly endTime: HrTimeLike
  readonly status: { code: number; message?: string }
  readonly attributes: Readonly<Record<string, unknown>>
  readonly events: ReadonlyArray<{ name: string; time: HrTimeLike; attributes?: Readonly<Record<string, unknown>> }>
}

/** True if the value has the shape of an SDK ReadableSpan (a `spanContext()` method and HrTimes). */
export function isReadableSpanLike(value: unknown): value is ReadableSpanLike {
  const v = value as ReadableSpanLike | null
  return v !== null && typeof v === 'object' && typeof v.spanContext === 'function' && Array.isArray(v.startTime)
}

/** The SDK span's own fields this reader looks at for the start order (SpanImpl in sdk-trace-base 1.9+ and 2.x). */
interface SdkClockFields {
  readonly _performanceStartTime?: unknown
  readonly _startTimeProvided?: unknown
}

/**
 * The span's start on the process's monotonic clock (`performance.now()` at start, in ns), or undefined.
 * The SDK stamps `startTime` with `Date.now()`, whole milliseconds, and derives the end from this
 * reading; it keeps the reading on the span object. A start the caller passed in (`startTime` option)
 * carries no such order, so it is left out.
 */
function monotonicStart(span: ReadableSpanLike): bigint | undefined {
  const fields = span as unknown as SdkClockFields
  const ms = fields._performanceStartTime
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || fields._startTimeProvided === true) return undefined
  return BigInt(Math.round(ms * 1e6))
}

function isHrTime(t: unknown): t is HrTimeLike {
  return Array.isArray(t) && t.length === 2 && Number.isInteger(t[0]) && Number.isInteger(t[1])
}

/**
 * Normalizes finished SDK spans (e.g. `InMemorySpanExporter.getFinishedSpans()`) into the span model,
 * mapping OpenInference / GenAI attributes like the file readers do. Exact ns timings.
 *
 * @example
 * const exporter = new InMemorySpanExporter()
 * // … run the agent with a provider that exports to it …
 * const trace = new Trace(fromReadableSpans(exporter.getFinishedSpans()))
 */
export function fromReadableSpans(spans: readonly ReadableSpanLike[], opts: { context?: ReadContext } = {}): Span[] {
  const ctx = opts.context ?? new ReadContext()
  const out: Span[] = new Array(spans.length)
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]
    const path = `$[${i}]`
    if (!isReadableSpanLike(s))
      throw expected('an SDK ReadableSpan (with spanContext() and startTime)', s, path, ctx.source)
    const { traceId, spanId } = s.spanContext()
    if (typeof spanId !== 'string' || spanId === '')
      throw expected('a span id', spanId, `${path}.spanContext().spanId`, ctx.source)
    const parentId = s.parentSpanContext?.spanId || s.parentSpanId || null
    if (!isHrTime(s.startTime))
      throw expected('an HrTime [seconds, nanos]', s.startTime, `${path}.startTime`, ctx.source)
    const startNs = hrTimeToNs(s.startTime)
    const endNs = isHrTime(s.endTime) ? hrTimeToNs(s.endTime) : startNs
    const events: SpanEvent[] = s.events.map((e, j) => {
      if (!isHrTime(e.time))
        throw expected('an HrTime [seconds, nanos]', e.time, `${path}.events[${j}].time`, ctx.source)
      if (e.attributes) checkAttributeDepth(e.attributes, `${path}.events[${j}].attributes`, ctx.source)
      return { name: e.name, timeNs: hrTimeToNs(e.time), attributes: { ...e.attributes } }
    })
    checkAttributeDepth(s.attributes, `${path}.attributes`, ctx.source)
    const span = newSpan(
      spanId,
      parentId,
      traceId,
      s.name,
      startNs,
      endNs,
      toStatus(s.status?.code),
      s.status?.message ?? '',
      { ...s.attributes },
      events,
    )
    const monotonic = monotonicStart(s)
    if (monotonic !== undefined) span.monotonicStartNs = monotonic
    applyConventions(span, ctx)
    out[i] = span
  }
  return out
}
