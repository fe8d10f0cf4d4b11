// What one request and one run of the receiver may store, and which trace ids may name a file. A receiver is
// a test endpoint anything on the machine can post to: without these caps 26 requests wrote 70,477 files.
import { HttpRefusal } from './body'

/**
 * Caps on what the receiver stores. A request over a per-request cap is refused whole with 413 (the
 * exporter should send smaller batches); a request that would take the run past a per-run cap is refused
 * whole with 429 and no `retry-after` (the cap never frees up while the receiver runs: stored spans are
 * kept until `close()`), and later requests that still fit are accepted. Bytes are those the stored traces
 * hold as OTLP JSON (what `out` writes), counting the resource and scope copied into each trace a request
 * touches, so one request cannot multiply its size across many trace files.
 */
export interface TraceReceiverLimits {
  /** Spans in one request; default 20,000 (an SDK batch is 512). */
  requestSpans?: number
  /** Distinct trace ids in one request (files one request may write); default 1,000. */
  requestTraces?: number
  /** Bytes one request adds to the stored traces; default 64 MiB. */
  requestBytes?: number
  /** Spans stored in the run; default 200,000. */
  runSpans?: number
  /** Trace ids stored in the run (files written with `out`); default 10,000. */
  runTraces?: number
  /** Bytes stored in the run (the total size of the `out` files); default 512 MiB. */
  runBytes?: number
  /** Requests read at once; more get 429 with `retry-after: 1`; default 16 (each may buffer `maxBodyBytes`). */
  concurrentRequests?: number
}

export const DEFAULT_LIMITS: Required<TraceReceiverLimits> = {
  requestSpans: 20_000,
  requestTraces: 1_000,
  requestBytes: 64 * 1024 * 1024,
  runSpans: 200_000,
  runTraces: 10_000,
  runBytes: 512 * 1024 * 1024,
  concurrentRequests: 16,
}

/** The limits with defaults filled in; a cap that is not a positive integer is a TypeError. */
export function resolveLimits(limits: TraceReceiverLimits = {}): Required<TraceReceiverLimits> {
  const resolved = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof TraceReceiverLimits>) {
    const value = limits[key]
    if (value === undefined) continue
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new TypeError(`limits.${key} must be a positive integer, got ${String(value)}`)
    resolved[key] = value
  }
  return resolved
}

/** What one request would add, worked out before anything is stored. */
export interface RequestSize {
  spans: number
  /** Distinct trace ids it carries. */
  traceIds: string[]
  /** Of those, ids the receiver has not stored yet. */
  newTraces: number
  bytes: number
}

/** What the run has stored so far. */
export interface RunSize {
  spans: number
  traces: number
  bytes: number
}

/** Throws the 413 or 429 a request over a cap gets; returns when it fits. */
export function checkLimits(size: RequestSize, run: RunSize, limits: Required<TraceReceiverLimits>): void {
  const perRequest: Array<[number, number, string, string]> = [
    [size.spans, limits.requestSpans, 'spans', 'requestSpans'],
    [size.traceIds.length, limits.requestTraces, 'trace ids', 'requestTraces'],
    [size.bytes, limits.requestBytes, 'bytes of trace JSON', 'requestBytes'],
  ]
  for (const [value, cap, what, key] of perRequest) {
    if (value > cap)
      throw new HttpRefusal(
        413,
        `the request carries ${value} ${what}, over the ${cap} one request may store (limits.${key}, CLI --max-${flag(key)}); export smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE) or raise the limit`,
      )
  }
  const perRun: Array<[number, number, number, string, string]> = [
    [run.spans, size.spans, limits.runSpans, 'spans', 'runSpans'],
    [run.traces, size.newTraces, limits.runTraces, 'traces', 'runTraces'],
    [run.bytes, size.bytes, limits.runBytes, 'bytes of trace JSON', 'runBytes'],
  ]
  for (const [stored, adding, cap, what, key] of perRun) {
    if (stored + adding > cap)
      throw new HttpRefusal(
        429,
        `the receiver has stored ${stored} ${what} and this request would add ${adding}, over the ${cap} one run may store (limits.${key}, CLI --max-${flag(key)}); nothing of it was stored; start the receiver with a larger limit or a new receiver per test`,
      )
  }
}

const TRACE_ID = /^[0-9a-f]{32}$/
const ZERO_ID = '0'.repeat(32)

/**
 * Refuses (400) a trace id that is not 32 lowercase hex digits or is all zero (the OTLP rule for a valid
 * trace id). Ids are normalized first (uppercase hex lowered, base64 decoded), so only an id that could
 * never be a trace id is refused; the check is what makes `<traceId>.json` safe as a file name.
 */
export function checkTraceId(traceId: string): void {
  if (TRACE_ID.test(traceId) && traceId !== ZERO_ID) return
  const shown = JSON.stringify(traceId.length > 80 ? `${traceId.slice(0, 80)}…` : traceId)
  throw new HttpRefusal(
    400,
    `a span has trace id ${shown}: a trace id must be 32 hex digits (16 bytes, as hex or base64), not all zero (OTLP); check the exporter's id generator`,
  )
}

/** A trace id that passed {@link checkTraceId}, as a file name; anything else is a bug and throws. */
export function traceFileName(traceId: string): string {
  if (!TRACE_ID.test(traceId) || traceId === ZERO_ID)
    throw new Error(`refusing to use ${JSON.stringify(traceId)} as a file name`)
  return `${traceId}.json`
}

function flag(key: string): string {
  return key.replace(/^(request|run)(\w+)$/, (_, scope: string, what: string) => `${scope}-${what.toLowerCase()}`)
}
