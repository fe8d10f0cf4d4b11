import type { HrTimeLike, ReadableSpanLike } from '../trace/readers/readable-spans'

/** A span as a span processor sees it: an SDK span (1.x or 2.x), readable once ended. */
export type CapturableSpan = ReadableSpanLike

/** One span of a capture: the live SDK span and when it started and ended among the capture's events. */
interface Entry {
  readonly span: CapturableSpan
  readonly startSeq: number
  /** Infinity while the span is open. */
  endSeq: number
}

/** A replayed call inside the capture: `addNs` of recorded time to put back at this point of the run. */
interface ReplayNote {
  readonly seq: number
  readonly addNs: bigint
  /** For each span open at the call, how many events it had then (later events move with the call). */
  readonly eventsSoFar: Map<Entry, number>
}

/** What a finished capture hands the trace layer. */
export interface CaptureSnapshot {
  /** Spans in the order they started (positional span keys rely on it), with replay time put back. */
  readonly spans: ReadableSpanLike[]
  /** Names and ids of spans still open when the capture ended (given the capture's end as their end). */
  readonly unfinished: Array<{ id: string; name: string }>
  readonly replayedCalls: number
}

const NS_PER_S = 1_000_000_000n

function toNs(t: HrTimeLike): bigint {
  return BigInt(t[0]) * NS_PER_S + BigInt(t[1])
}

function toHrTime(ns: bigint): [number, number] {
  return [Number(ns / NS_PER_S), Number(ns % NS_PER_S)]
}

/**
 * The spans of one `captureTrace` call, collected by trace id as the SDK starts and ends them.
 *
 * Replayed calls put their recorded time back with one rule (decision 0035): a replayed call is an instant of
 * the run at which `recordedMs` is inserted. Whatever happened before it keeps its time; whatever happened
 * after it moves later by that much. So a span open across the call (the call's own span and its ancestors)
 * ends later, and spans, ends and events after it shift: a monotone shift of the whole capture's clock, which
 * keeps every parent around its children and every sibling order. "Before" and "after" are read from the
 * order in which the SDK reported starts and ends, not from clocks.
 *
 * @example
 * const capture = new Capture(traceId, rootSpanId)
 * capture.start(span); capture.noteReplay(1500); capture.end(span)
 * capture.snapshot().spans[0] // lasts 1.5 s more than it ran
 */
export class Capture {
  private seq = 0
  private readonly entries: Entry[] = []
  private readonly bySpan = new Map<CapturableSpan, Entry>()
  private readonly notes: ReplayNote[] = []
  private open = 0
  private onIdle: (() => void) | undefined

  constructor(
    readonly traceId: string,
    /** The id of the fresh root context's (never exported) span: the agent's top spans name it as parent. */
    readonly rootSpanId: string,
  ) {}

  /** Spans started so far (what the capture saw, for messages). */
  get size(): number {
    return this.entries.length
  }

  start(span: CapturableSpan): void {
    if (this.bySpan.has(span)) return // the same processor twice in one provider
    const entry: Entry = { span, startSeq: ++this.seq, endSeq: Number.POSITIVE_INFINITY }
    this.entries.push(entry)
    this.bySpan.set(span, entry)
    this.open++
  }

  end(span: CapturableSpan): void {
    const entry = this.bySpan.get(span)
    if (!entry) {
      // Ended but never seen starting (a processor added mid-run): it started before anything we know of.
      const late: Entry = { span, startSeq: 0, endSeq: ++this.seq }
      this.entries.push(late)
      this.bySpan.set(span, late)
      return
    }
    if (entry.endSeq !== Number.POSITIVE_INFINITY) return
    entry.endSeq = ++this.seq
    this.open--
    if (this.open === 0) this.onIdle?.()
  }

  /** A call answered from a recording that took `recordedMs` when it was recorded. */
  noteReplay(recordedMs: number): void {
    if (!(Number.isFinite(recordedMs) && recordedMs > 0)) return
    const eventsSoFar = new Map<Entry, number>()
    for (const e of this.entries) if (e.endSeq === Number.POSITIVE_INFINITY) eventsSoFar.set(e, e.span.events.length)
    this.notes.push({ seq: ++this.seq, addNs: BigInt(Math.round(recordedMs * 1e6)), eventsSoFar })
  }

  /** Resolves when every span started in the capture has ended, or after `waitMs`, whichever comes first. */
  settle(waitMs: number): Promise<void> {
    if (this.open === 0 || waitMs <= 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, waitMs)
      const self = this
      function done() {
        clearTimeout(timer)
        self.onIdle = undefined
        resolve()
      }
      this.onIdle = done
    })
  }

  /** The captured spans as they are now; open spans end at `nowNs` (ns since the epoch). */
  snapshot(nowNs: bigint): CaptureSnapshot {
    const unfinished: CaptureSnapshot['unfinished'] = []
    const spans = this.entries.map((entry) => {
      const s = entry.span
      const open = entry.endSeq === Number.POSITIVE_INFINITY
      const startNs = toNs(s.startTime)
      const endNs = open ? (nowNs > startNs ? nowNs : startNs) : toNs(s.endTime)
      if (open) unfinished.push({ id: s.spanContext().spanId, name: s.name })
      return this.shifted(entry, s, startNs, endNs)
    })
    return { spans, unfinished, replayedCalls: this.notes.length }
  }

  private shifted(entry: Entry, s: CapturableSpan, startNs: bigint, endNs: bigint): ReadableSpanLike {
    let startShift = 0n
    let endShift = 0n
    for (const n of this.notes) {
      if (n.seq < entry.startSeq) startShift += n.addNs
      if (n.seq < entry.endSeq) endShift += n.addNs
    }
    const events = s.events.map((e, k) => {
      let shift = startShift
      for (const n of this.notes) {
        const before = n.eventsSoFar.get(entry)
        if (before !== undefined && k >= before) shift += n.addNs
      }
      return { ...e, time: shift === 0n ? e.time : toHrTime(toNs(e.time) + shift) }
    })
    const context = s.spanContext()
    const parentId = s.parentSpanContext?.spanId || s.parentSpanId || undefined
    // The fresh root's span is a placeholder that never ends: the agent's top spans are the trace's roots.
    const parentSpanContext = parentId && parentId !== this.rootSpanId ? { spanId: parentId } : undefined
    return {
      name: s.name,
      spanContext: () => context,
      parentSpanContext,
      startTime: toHrTime(startNs + startShift),
      endTime: toHrTime(endNs + endShift),
      status: { ...s.status },
      attributes: { ...s.attributes },
      events,
    }
  }
}
