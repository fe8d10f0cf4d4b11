/**
 * How far a batch is: items done (answered or failed) of the total, and the time left at the rate so far.
 *
 * @example
 * onProgress: (p) => console.error(formatBatchProgress(p)) // 'batch batch_abc in_progress: 120/200 done (3 failed), ETA 4m 10s'
 */
export interface BatchProgress {
  id: string
  status: string
  done: number
  failed: number
  /** null when the provider does not report counts while running (Bedrock). */
  total: number | null
  elapsedMs: number
  /** null until something is done (no rate yet) or when the total is unknown. */
  etaMs: number | null
}

/** The ETA at the rate observed so far. */
export function etaOf(done: number, total: number | null, elapsedMs: number): number | null {
  if (total === null || done <= 0 || elapsedMs <= 0) return null
  return Math.round((elapsedMs / done) * Math.max(0, total - done))
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`
}

/**
 * One progress line for a terminal.
 *
 * @example
 * formatBatchProgress({ id: 'b1', status: 'in_progress', done: 50, failed: 0, total: 200, elapsedMs: 60_000, etaMs: 180_000 })
 * // 'batch b1 in_progress: 50/200 done, ETA 3m 0s (1m 0s elapsed)'
 */
export function formatBatchProgress(p: BatchProgress): string {
  const count = p.total === null ? `${p.done} done` : `${p.done}/${p.total} done`
  const failed = p.failed > 0 ? ` (${p.failed} failed)` : ''
  const eta = p.etaMs === null ? '' : `, ETA ${duration(p.etaMs)}`
  return `batch ${p.id} ${p.status}: ${count}${failed}${eta} (${duration(p.elapsedMs)} elapsed)`
}

/** Options shared by the providers' wait loops. */
export interface BatchWaitOptions {
  /** Time between status polls (default 30 s: batches take minutes to hours). */
  pollMs?: number
  onProgress?: (progress: BatchProgress) => void
  signal?: AbortSignal
  /** Clock and sleep (tests). */
  now?: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

/** Consecutive failed status polls tolerated before a wait gives up (it can be resumed with `batch wait`). */
export const MAX_POLL_FAILURES = 5

/**
 * Whether a failed status poll is worth repeating: throttling, a server error or a dropped connection.
 * A 4xx such as 401 or 404 will not heal by waiting.
 *
 * @example
 * isTransientPollError({ status: 503 }) // true
 */
export function isTransientPollError(err: unknown): boolean {
  const e = err as {
    status?: unknown
    name?: unknown
    $metadata?: { httpStatusCode?: number }
    $retryable?: unknown
  } | null
  const status = typeof e?.status === 'number' ? e.status : e?.$metadata?.httpStatusCode
  if (typeof status === 'number') return status === 408 || status === 429 || status >= 500
  if (e?.$retryable || e?.name === 'ThrottlingException') return true
  // No HTTP status: the request never got an answer (connection reset, DNS hiccup, timeout) — but not an abort.
  return e?.name !== 'AbortError' && e?.name !== 'APIUserAbortError'
}

/** The retry loop's abortable sleep, for the batch pollers. */
export { abortableSleep } from '../retry'
