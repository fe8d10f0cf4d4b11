// The judged view of a trace is canonical: what a judge prompt says about where a span sits must not
// change between two captures of the same run, or its cassette key changes and nothing replays.
// Live captures give new random span ids each run and spans of one step often share a millisecond
// start (the OTel SDK starts spans at Date.now()), and exporters list spans by end, not start.
import { canonical } from '../metrics/detectors/repeated-calls'
import type { Span } from '../trace/span'
import type { Trace } from '../trace/trace'

/** Spans in canonical depth-first order and each span's positional id. */
export interface CanonicalView {
  /** Depth-first; siblings by start (monotonic when the SDK gave it), those running at the same time by content. */
  readonly spans: readonly Span[]
  /** Positional id: parent path + 1-based sibling index (`1.2.3`); '' for a span not in the trace. */
  position(spanId: string): string
  /** Index in `spans`; -1 for a span not in the trace. */
  index(spanId: string): number
}

const views = new WeakMap<Trace, CanonicalView>()

/** The OTel JS SDK's start stamps are whole milliseconds: time differences below this are noise. */
const START_QUANTUM_NS = 1_000_000n

/**
 * The canonical view of a trace (computed once per trace): span ids replaced by positional ids, and
 * siblings that run at the same time ordered by what they contain (kind, name, tool, status,
 * arguments, input, output) rather than by exporter order.
 *
 * @example
 * const view = canonicalView(trace)
 * view.position(toolSpan.id) // '1.3.2' — the same in every capture of the same run
 */
export function canonicalView(trace: Trace): CanonicalView {
  let view = views.get(trace)
  if (!view) {
    view = build(trace)
    views.set(trace, view)
  }
  return view
}

function build(trace: Trace): CanonicalView {
  const keys = new Map<string, string>()
  const keyOf = (s: Span) => {
    let k = keys.get(s.id)
    if (k === undefined) {
      k = canonical([
        s.kind,
        s.name,
        s.toolName ?? '',
        s.model ?? '',
        s.status,
        s.statusMessage ?? '',
        s.toolArgs ?? null,
        s.input ?? null,
        s.output ?? null,
      ])
      keys.set(s.id, k)
    }
    return k
  }
  // Siblings in time order, except those that ran at the same time, which are ordered by content
  // (whichever of two parallel calls starts or ends first can vary between captures of one run).
  //
  // In-process SDK spans carry their start on the monotonic clock (`monotonicStartNs`), and the SDK
  // derives their end from the same clock, so "ran at the same time" is exact: a span joins the group
  // when it started before the group's spans had all ended. Steps shorter than a millisecond (a
  // synchronous planner, mocked tools) keep the order they ran in whichever millisecond they start in.
  //
  // Spans with millisecond start stamps only (OTLP files and exports: the JS SDK stamps the start with
  // Date.now() and the end as that start plus a precise duration): siblings that start in the same
  // millisecond, or overlap an earlier sibling of their group by more than that millisecond, form a
  // group. A span started after the previous ones ended never joins (its start is at most 1 ms early on
  // that clock), so a changed answer does not reorder its neighbours. What no such trace can tell apart:
  // a span that ran and ended within the millisecond its next sibling started in, from two parallel
  // calls; both are ordered by content (decision 0040).
  const order = (list: readonly Span[]): Span[] => {
    if (list.length < 2) return [...list]
    const exact = list.every((s) => s.monotonicStartNs !== undefined)
    const start = exact ? (s: Span) => s.monotonicStartNs! : (s: Span) => s.startNs
    const end = exact ? (s: Span) => s.monotonicStartNs! + (s.endNs - s.startNs) : (s: Span) => s.endNs
    const slack = exact ? 0n : START_QUANTUM_NS
    const byStart = [...list].sort((a, b) => {
      const sa = start(a)
      const sb = start(b)
      return sa < sb ? -1 : sa > sb ? 1 : compareText(keyOf(a), keyOf(b))
    })
    const out: Span[] = []
    let group: Span[] = [byStart[0]]
    let groupEnd = end(byStart[0])
    const flush = () => {
      if (group.length > 1) group.sort((a, b) => compareText(keyOf(a), keyOf(b)))
      out.push(...group)
    }
    for (let i = 1; i < byStart.length; i++) {
      const span = byStart[i]
      const together = start(span) === start(byStart[i - 1]) || start(span) + slack < groupEnd
      if (!together) {
        flush()
        group = []
        groupEnd = end(span)
      }
      group.push(span)
      if (end(span) > groupEnd) groupEnd = end(span)
    }
    flush()
    return out
  }

  const spans: Span[] = []
  const positions = new Map<string, string>()
  const indexes = new Map<string, number>()
  // Iterative, like Trace itself: synthetic traces can be deeper than the stack.
  const stack: Array<{ span: Span; position: string }> = []
  const push = (list: readonly Span[], prefix: string) => {
    const sorted = order(list)
    for (let i = sorted.length - 1; i >= 0; i--) stack.push({ span: sorted[i], position: `${prefix}${i + 1}` })
  }
  push(trace.roots, '')
  while (stack.length > 0) {
    const { span, position } = stack.pop()!
    positions.set(span.id, position)
    indexes.set(span.id, spans.length)
    spans.push(span)
    const kids = trace.children(span.id)
    if (kids.length > 0) push(kids, `${position}.`)
  }
  return {
    spans,
    position: (id) => positions.get(id) ?? '',
    index: (id) => indexes.get(id) ?? -1,
  }
}

// Code-unit order, not localeCompare: the same on every machine and locale.
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
