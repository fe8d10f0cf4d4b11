// What diagnose() accepts besides a Trace: the spans of a live capture, in any of the shapes users hold.
import { TraceFormatError } from '../trace/errors'
import { pickTrace, tracesFromValue } from '../trace/parse'
import { isReadableSpanLike, type ReadableSpanLike } from '../trace/readers/readable-spans'
import { SpanSchema, type Span } from '../trace/span'
import { Trace } from '../trace/trace'

/**
 * A run to diagnose: a {@link Trace}, what `captureTrace` resolves to (`{ result, trace }`), normalized spans
 * (`fromReadableSpans(...)`, `trace.spans`), the SDK's finished spans, or an `InMemorySpanExporter`.
 */
export type DiagnoseInput =
  | Trace
  | { readonly trace: Trace }
  | readonly Span[]
  | readonly ReadableSpanLike[]
  | { getFinishedSpans(): readonly ReadableSpanLike[] }

const WHAT_TO_PASS =
  'pass a Trace (await loadTrace(path)), the spans of one run (fromReadableSpans(exporter.getFinishedSpans()) or trace.spans), SDK ReadableSpans, or an InMemorySpanExporter'

/**
 * The Trace of a {@link DiagnoseInput}, normalized as the matchers do; a TypeError naming what to pass
 * for anything else, a TraceFormatError for spans that hold no run or several.
 *
 * @example
 * const trace = traceToDiagnose(fromReadableSpans(exporter.getFinishedSpans()))
 */
export function traceToDiagnose(input: unknown): Trace {
  if (input instanceof Trace) return input
  if (input !== null && typeof input === 'object' && (input as { trace?: unknown }).trace instanceof Trace)
    return (input as { trace: Trace }).trace
  const items = hasFinishedSpans(input) ? input.getFinishedSpans() : input
  if (!Array.isArray(items)) throw new TypeError(`diagnose: cannot diagnose ${describe(input)} — ${WHAT_TO_PASS}`)
  if (items.length === 0)
    throw new TraceFormatError(
      'no spans to diagnose: nothing was recorded — check that the exporter was attached and the spans ended before diagnose()',
    )
  if (isReadableSpanLike(items[0])) return pickTrace(tracesFromValue(items), {}, undefined, true)
  const spans = items.map((item: unknown, i) => {
    const parsed = SpanSchema.safeParse(item)
    if (parsed.success) return parsed.data
    const issue = parsed.error.issues[0]
    throw new TypeError(
      `diagnose: item ${i} of the array is not a span (${issue.path.join('.') || '(root)'}: ${issue.message}) — ${WHAT_TO_PASS}`,
    )
  })
  // Spans of one capture may belong to several traces (a context that was not propagated): say so, as loadTrace does.
  const byTrace = new Map<string, Span[]>()
  for (const span of spans) {
    const group = byTrace.get(span.traceId)
    if (group) group.push(span)
    else byTrace.set(span.traceId, [span])
  }
  return pickTrace(
    [...byTrace.values()].map((group) => new Trace(group)),
    {},
    undefined,
    true,
  )
}

function hasFinishedSpans(value: unknown): value is { getFinishedSpans(): unknown } {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { getFinishedSpans?: unknown }).getFinishedSpans === 'function'
  )
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? '…' : ''}): load it first with await loadTrace(path)`
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`
  return `a ${typeof value}`
}
