// Groups received OTLP spans by trace id, decides when a trace is complete, and hands complete traces to
// the callers waiting for them. Pure bookkeeping over OTLP JSON documents: no HTTP here.
import { tracesFromValue } from '../parse'
import { RESOURCE_SPANS, SCOPE_SPANS } from '../readers/otlp'
import { normalizeId } from '../readers/otlp-values'
import type { Trace } from '../trace'
import {
  describeWhere,
  matches,
  nameMatches,
  TraceReceiverClosedError,
  TraceReceiverTimeoutError,
  type TraceWaitOptions,
  type TraceWhere,
} from './wait'

type Json = Record<string, unknown>

/** One trace's share of one (request, resource, scope). */
interface Piece {
  traceId: string
  resourceSpans: Json
}

/** What one request would store, grouped by trace id and measured; see {@link TraceCollector.plan}. */
export interface RequestPlan {
  pieces: Piece[]
  spans: number
  /** Distinct (normalized) trace ids the request carries. */
  traceIds: string[]
  /** Of those, ids not stored yet. */
  newTraces: number
  /** Bytes of OTLP JSON it adds to the stored traces. */
  bytes: number
}

/** `{"resourceSpans":[…]}`, `"scopeSpans":[{…}]`, `"spans":[…]` and commas around one piece. */
const PIECE_OVERHEAD = 40

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}

function firstScope(resourceSpans: Json): Json {
  return (resourceSpans.scopeSpans as Json[])[0]
}

/** What the collector knows of one trace id. */
interface Entry {
  traceId: string
  /** One resourceSpans per (request, resource, scope) that carried spans of this trace, in arrival order. */
  resourceSpans: Json[]
  spanIds: Set<string>
  /** Parent ids named by the spans (to tell a local root from a span whose parent is elsewhere). */
  parents: Array<{ name: string; parentId: string }>
  hasRoot: boolean
  /** True once no span arrived for the quiet period; false again when one does. */
  settled: boolean
  /** Returned to a caller that did not ask for it by id. */
  claimed: boolean
  timer?: NodeJS.Timeout
  /** The Trace built from the spans so far; dropped when a span arrives (waiters with predicates look often). */
  built?: Trace
}

interface Waiter {
  where?: TraceWhere
  resolve(trace: Trace): void
  reject(error: unknown): void
}

const DEFAULT_TIMEOUT_MS = 10_000

/**
 * Received spans, grouped by trace id. A trace is complete once it has a root span (no parent id, or the
 * `rootName` asked for with its parent elsewhere) and no new span of it arrived for `quietMs`: OTLP
 * exporters send spans only once they have ended, and a root ends after its children, so the quiet period
 * only has to cover batches still in flight.
 *
 * @example
 * const collector = new TraceCollector({ quietMs: 200, source: 'otlp receiver' })
 * collector.add(decodeTraceRequest(body))
 * const trace = await collector.trace({ where: { rootName: 'invoke_agent support' } })
 */
export class TraceCollector {
  private readonly entries = new Map<string, Entry>()
  private readonly waiters: Waiter[] = []
  private readonly quietMs: number
  /** Named as the file of reader errors and `trace.source`. */
  source?: string
  private closed = false
  private spans = 0
  private bytes = 0
  /** Called each time a trace goes quiet (no new span for `quietMs`), root or not, e.g. to write it to disk. */
  onSettled?: (traceId: string) => void

  constructor(opts: { quietMs: number; source?: string }) {
    this.quietMs = opts.quietMs
    this.source = opts.source
  }

  /** Number of trace ids received. */
  get traceCount(): number {
    return this.entries.size
  }

  /** Number of spans received (after dropping retried requests). */
  get spanCount(): number {
    return this.spans
  }

  /** Bytes of OTLP JSON the stored traces hold (what `out` writes, give or take the separators). */
  get byteCount(): number {
    return this.bytes
  }

  /**
   * Groups the spans of one OTLP JSON request already read without error by the JSON reader (so ids are
   * non-empty strings and the containers are arrays) by trace id, and measures what storing them would add,
   * without storing anything: the caller checks its limits, then passes the plan to {@link commit}.
   */
  plan(doc: Json): RequestPlan {
    const pieces: Piece[] = []
    const traceIds = new Set<string>()
    let spans = 0
    let bytes = 0
    for (const rs of pick<Json>(doc, RESOURCE_SPANS)) {
      // Stored under the spec's key names whatever the client wrote (the reader accepts all of them).
      const {
        scopeSpans: _s,
        scope_spans: _ss,
        instrumentationLibrarySpans: _i,
        instrumentation_library_spans: _is,
        ...resource
      } = rs
      // Measured once per resource and scope, though copied into every trace they carry spans of.
      const resourceBytes = jsonBytes(resource)
      for (const ss of pick<Json>(rs, SCOPE_SPANS)) {
        const { spans: _sp, ...scope } = ss
        const scopeBytes = jsonBytes(scope)
        const byTrace = new Map<string, { spans: Json[]; bytes: number }>()
        for (const span of (ss.spans as Json[] | undefined) ?? []) {
          const traceId = normalizeId(span.traceId as string)
          let group = byTrace.get(traceId)
          if (!group) byTrace.set(traceId, (group = { spans: [], bytes: resourceBytes + scopeBytes + PIECE_OVERHEAD }))
          group.spans.push(span)
          group.bytes += jsonBytes(span) + 1
          spans++
        }
        for (const [traceId, group] of byTrace) {
          traceIds.add(traceId)
          bytes += group.bytes
          pieces.push({ traceId, resourceSpans: { ...resource, scopeSpans: [{ ...ss, spans: group.spans }] } })
        }
      }
    }
    let newTraces = 0
    for (const id of traceIds) if (!this.entries.has(id)) newTraces++
    return { pieces, spans, traceIds: [...traceIds], newTraces, bytes }
  }

  /** Stores a request {@link plan}ned before. */
  commit(plan: RequestPlan): void {
    const touched = new Set<Entry>()
    for (const piece of plan.pieces) {
      const entry = this.entryFor(piece.traceId)
      for (const span of firstScope(piece.resourceSpans).spans as Json[]) {
        entry.spanIds.add(normalizeId(span.spanId as string))
        this.spans++
        const parentId = span.parentSpanId
        if (typeof parentId === 'string' && parentId !== '')
          entry.parents.push({ name: String(span.name ?? ''), parentId: normalizeId(parentId) })
        else entry.hasRoot = true
      }
      entry.resourceSpans.push(piece.resourceSpans)
      touched.add(entry)
    }
    this.bytes += plan.bytes
    for (const entry of touched) this.touch(entry)
  }

  /** Stores the spans of one OTLP JSON request: {@link plan} then {@link commit}, with no limits. */
  add(doc: Json): void {
    this.commit(this.plan(doc))
  }

  private entryFor(traceId: string): Entry {
    let entry = this.entries.get(traceId)
    if (!entry) {
      entry = {
        traceId,
        resourceSpans: [],
        spanIds: new Set(),
        parents: [],
        hasRoot: false,
        settled: false,
        claimed: false,
      }
      this.entries.set(traceId, entry)
    }
    return entry
  }

  /** New spans: the trace is unsettled until the quiet period passes again. */
  private touch(entry: Entry): void {
    entry.settled = false
    entry.built = undefined
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = setTimeout(() => {
      entry.timer = undefined
      entry.settled = true
      this.onSettled?.(entry.traceId)
      this.dispatch()
    }, this.quietMs)
    // A pending quiet timer must not keep a test process (or the CLI after close) alive.
    entry.timer.unref()
  }

  /** The OTLP JSON request holding every span received for this trace id, or undefined. */
  request(traceId: string): Json | undefined {
    const entry = this.entries.get(traceId)
    return entry && { resourceSpans: entry.resourceSpans }
  }

  /** Every trace received so far, complete or not, in order of their first span's arrival. */
  traces(): Trace[] {
    return [...this.entries.values()].map((e) => this.build(e))
  }

  private build(entry: Entry): Trace {
    entry.built ??= tracesFromValue({ resourceSpans: entry.resourceSpans }, this.source)[0]
    return entry.built
  }

  /** True if the trace has its root: a span without a parent, or one named `rootName` whose parent is not here. */
  private complete(entry: Entry, where: TraceWhere | undefined): boolean {
    if (!entry.settled) return false
    if (entry.hasRoot) return true
    const rootName = typeof where === 'object' ? where.rootName : undefined
    if (rootName === undefined) return false
    return entry.parents.some((p) => nameMatches(p.name, rootName) && !entry.spanIds.has(p.parentId))
  }

  /** The complete trace `where` asks for, claiming it; undefined if there is none yet. */
  private take(where: TraceWhere | undefined): Trace | undefined {
    const byId = typeof where === 'object' && where.traceId !== undefined ? where.traceId.toLowerCase() : undefined
    for (const entry of this.entries.values()) {
      if (byId !== undefined ? entry.traceId !== byId : entry.claimed) continue
      if (!this.complete(entry, where)) continue
      const trace = this.build(entry)
      if (!matches(trace, where)) continue
      entry.claimed = true
      return trace
    }
    return undefined
  }

  /** Hands complete traces to waiters, oldest waiter first. */
  private dispatch(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const waiter = this.waiters[i]
      let trace: Trace | undefined
      try {
        trace = this.take(waiter.where)
      } catch (error) {
        // A trace the reader refuses as a whole (a parent-id cycle across requests) fails its waiter.
        this.waiters.splice(i, 1)
        waiter.reject(error)
        continue
      }
      if (trace) {
        this.waiters.splice(i, 1)
        waiter.resolve(trace)
      } else i++
    }
  }

  /**
   * The first complete trace matching `where` that no earlier call returned (or the one with `traceId`),
   * waiting for it up to `timeout` ms.
   */
  trace(opts: TraceWaitOptions = {}, describe: () => string = () => ''): Promise<Trace> {
    if (this.closed)
      return Promise.reject(
        new TraceReceiverClosedError('the trace receiver is closed; start a new one with startTraceReceiver()'),
      )
    const timeoutMs = opts.timeout ?? DEFAULT_TIMEOUT_MS
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      return Promise.reject(new TypeError(`timeout must be a number of milliseconds ≥ 0, got ${String(opts.timeout)}`))
    try {
      const ready = this.take(opts.where)
      if (ready) return Promise.resolve(ready)
    } catch (error) {
      return Promise.reject(error)
    }
    return new Promise<Trace>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        opts.signal?.removeEventListener('abort', onAbort)
        const i = this.waiters.indexOf(waiter)
        if (i !== -1) this.waiters.splice(i, 1)
      }
      const waiter: Waiter = {
        where: opts.where,
        resolve: (trace) => {
          done()
          resolve(trace)
        },
        reject: (error) => {
          done()
          reject(error)
        },
      }
      const timer = setTimeout(
        () => waiter.reject(new TraceReceiverTimeoutError(this.timeoutMessage(opts.where, timeoutMs, describe()))),
        timeoutMs,
      )
      const onAbort = () => waiter.reject(opts.signal?.reason)
      if (opts.signal?.aborted) return onAbort()
      opts.signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(waiter)
    })
  }

  private timeoutMessage(where: TraceWhere | undefined, timeoutMs: number, extra: string): string {
    const what = describeWhere(where)
    const seen = [...this.entries.values()]
    const list = seen
      .slice(0, 10)
      .map((e) => `${e.traceId} (${e.spanIds.size} span${e.spanIds.size === 1 ? '' : 's'}, ${this.stateOf(e, where)})`)
    const received =
      seen.length === 0
        ? 'no span arrived at all'
        : `received ${seen.length} trace(s): ${list.join('; ')}${seen.length > 10 ? '; …' : ''}`
    return `no complete trace ${what}arrived within ${timeoutMs} ms; ${received}.${extra ? ` ${extra}` : ''}`
  }

  private stateOf(entry: Entry, where: TraceWhere | undefined): string {
    if (entry.claimed && !(typeof where === 'object' && where.traceId))
      return 'already returned by an earlier trace() call'
    if (this.complete(entry, where)) return 'complete, but not the one asked for'
    if (!entry.hasRoot)
      return 'no root span yet: the root has not ended or not been exported, or pass where.rootName if its parent is in another process'
    return 'still receiving spans'
  }

  /** Rejects every pending wait, stops the timers, and calls `onSettled` for traces still inside their quiet period. */
  close(): void {
    this.closed = true
    for (const entry of this.entries.values()) {
      if (!entry.timer) continue
      clearTimeout(entry.timer)
      entry.timer = undefined
      // Spans that arrived just before close are still handed on (written, with `out`), not dropped.
      this.onSettled?.(entry.traceId)
    }
    for (const waiter of [...this.waiters])
      waiter.reject(new TraceReceiverClosedError('the trace receiver was closed while waiting for a trace'))
  }
}

/** The array under the first of `keys` present (the reader has checked it is an array), or none. */
function pick<T>(obj: Json, keys: readonly string[]): T[] {
  for (const k of keys) if (obj[k] !== undefined) return obj[k] as T[]
  return []
}
