import {
  JudgeAbortError,
  type JudgeError,
  type JudgeErrorContext,
  JudgeOutputError,
  JudgeRateLimitError,
  JudgeTimeoutError,
} from './errors'
import { classifyJudgeError } from './classify-error'
import { describeReplyProgress, type ReplyProgress, watchReplyProgress } from './reply-watch'
import type { PermitSource } from './run-limit'

export interface RetryOptions {
  /** Longest a call may spend failing and waiting before it gives up (ms). Default 60 000. */
  maxWaitMs?: number
  /** Safety net on attempts; the wait budget normally ends retrying first. Default 50. */
  maxAttempts?: number
  /** Per-attempt timeout (ms). Default 60 000. */
  timeoutMs?: number
  /** First backoff cap (ms). Default 500. */
  baseDelayMs?: number
  /** Largest backoff cap (ms). Default 8 000. */
  maxDelayMs?: number
  /** Re-asks after an invalid reply (models vary even at temperature 0; more wastes money). Default 1. */
  outputRetries?: number
  /** Attempts when no request reached the judge (refused, DNS, TLS), each after a short pause. Default 3. */
  networkAttempts?: number
  /** Pause before the 2nd, 3rd… network attempt (ms, doubled each time, no jitter needed). Default 200. */
  networkDelayMs?: number
  signal?: AbortSignal
  /** Shared slots; acquired per attempt so backoff sleeps never hold one. */
  limiter?: PermitSource
  /** Injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  now?: () => number
  random?: () => number
  /** Called with every failed attempt (e.g. to bill the tokens of a rejected reply). */
  onAttemptError?: (error: JudgeError, attempt: number) => void
}

export interface RetryResult<T> {
  value: T
  attempts: number
  /** Of those attempts, how many were re-asks after an invalid reply (the rest of the extra ones are retries). */
  reasks: number
}

export const RETRY_DEFAULTS = {
  maxWaitMs: 60_000,
  maxAttempts: 50,
  timeoutMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  outputRetries: 1,
  networkAttempts: 3,
  networkDelayMs: 200,
} as const

/**
 * Runs `attempt` until it succeeds or the failure is final. Retryable errors (see
 * `classifyJudgeError`) wait `retry-after` when the server sent one, else exponential backoff with
 * full jitter (0.5 s → 8 s cap). Retrying stops when the time spent failing and waiting would exceed
 * `maxWaitMs` (queueing for a limiter slot is not counted), after `maxAttempts`, or on abort, which
 * stops waiting immediately and throws `JudgeAbortError`.
 *
 * @example
 * const { value, attempts } = await withRetry((signal) => client.send(cmd, { abortSignal: signal }),
 *   { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' }, { maxWaitMs: 30_000 })
 */
export async function withRetry<T>(
  attempt: (signal: AbortSignal, attemptNumber: number) => Promise<T>,
  ctx: JudgeErrorContext,
  options: RetryOptions = {},
): Promise<RetryResult<T>> {
  const o = { ...RETRY_DEFAULTS, ...definedOnly(options) }
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? abortableSleep
  const random = options.random ?? Math.random
  const { signal, limiter } = options
  let spentMs = 0
  let outputFailures = 0
  let networkFailures = 0
  let lastError: JudgeError | undefined
  let inFlightSince: number | undefined
  let inFlightReply: ReplyProgress | undefined
  // An abort keeps what happened before it, so a caller with a deadline can say why it gave up.
  const aborted = (cause: unknown) => {
    const error = new JudgeAbortError({ ...ctx, cause })
    error.lastError = lastError
    error.inFlightSince = inFlightSince
    if (inFlightReply?.status !== undefined) error.inFlightReply = inFlightReply
    error.attempts = lastError?.attempts
    return error
  }

  for (let n = 1; ; n++) {
    if (signal?.aborted) throw aborted(signal.reason)
    const release = limiter
      ? await limiter.acquire(signal, { retry: n > 1 }).catch(() => {
          throw aborted(signal?.reason)
        })
      : undefined
    // A slot granted in the same tick as an abort must not start a request: hand it back unused.
    if (signal?.aborted) {
      release?.('error')
      throw aborted(signal.reason)
    }
    // A permit handed out ahead of its grant (decision 0033) is granted inside the attempt: the attempt's
    // time (its timeout, the time spent failing, "in flight since") starts there, as it does here otherwise.
    const deferred = (release as { deferred?: DeferredPermit } | undefined)?.deferred
    let started = now()
    inFlightSince = deferred ? undefined : Date.now()
    void deferred?.granted.then(() => {
      started = now()
      inFlightSince = Date.now()
    })
    // Filled in by the transport as the reply arrives: a timeout can then say the judge was still sending.
    const progress: ReplyProgress = { bytes: 0 }
    inFlightReply = progress
    let error: JudgeError
    try {
      const value = deferred
        ? await deferred.run(() => attemptWithTimeout(attempt, n, o.timeoutMs, ctx, signal, deferred.granted, progress))
        : await attemptWithTimeout(attempt, n, o.timeoutMs, ctx, signal, undefined, progress)
      release?.('ok')
      return { value, attempts: n, reasks: outputFailures }
    } catch (err) {
      error = classifyJudgeError(err, ctx)
      release?.(error instanceof JudgeRateLimitError ? 'throttled' : 'error')
    }
    error.attempts = n
    // Attempts made because the one before replied with no valid verdict (counted before this one's).
    error.reasks = outputFailures
    options.onAttemptError?.(error, n)
    if (signal?.aborted || error instanceof JudgeAbortError) throw aborted(signal?.reason ?? error)
    inFlightSince = undefined
    inFlightReply = undefined
    lastError = error
    spentMs += Math.max(0, now() - started)

    if (!error.retryable) throw error
    if (n >= o.maxAttempts) throw gaveUp(error, n, spentMs)
    if (error instanceof JudgeOutputError && ++outputFailures > o.outputRetries) throw error
    if (error.network && ++networkFailures >= o.networkAttempts) throw gaveUp(error, n, spentMs)
    const backoff = random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (n - 1))
    const delay = error.network
      ? o.networkDelayMs * 2 ** (networkFailures - 1)
      : error instanceof JudgeRateLimitError && error.retryAfterMs !== undefined
        ? error.retryAfterMs
        : backoff
    if (spentMs + delay > o.maxWaitMs) throw gaveUp(error, n, spentMs)
    try {
      await sleep(delay, signal)
    } catch {
      throw aborted(signal?.reason)
    }
    spentMs += delay
  }
}

/** A retryable failure that is now final says how long it was tried ("N retries on 429" is what a user needs to read). */
function gaveUp(error: JudgeError, attempts: number, spentMs: number): JudgeError {
  if (attempts > 1)
    error.message = `${error.message} (gave up after ${attempts} attempts in ${(spentMs / 1000).toFixed(1)} s)`
  return error
}

/** A permit handed out before it is granted: the attempt runs in its scope (`AttemptPermit` in run-limit). */
interface DeferredPermit {
  readonly granted: Promise<void>
  run<T>(attempt: () => Promise<T>): Promise<T>
}

/**
 * One attempt under its own timeout; the caller's abort and the timeout both stop waiting at once. The
 * timeout runs from `startAfter` when given (a permit granted inside the attempt).
 */
async function attemptWithTimeout<T>(
  attempt: (signal: AbortSignal, attemptNumber: number) => Promise<T>,
  n: number,
  timeoutMs: number,
  ctx: JudgeErrorContext,
  outer?: AbortSignal,
  startAfter?: Promise<void>,
  progress?: ReplyProgress,
): Promise<T> {
  if (outer?.aborted) throw new JudgeAbortError({ ...ctx, cause: outer.reason })
  const controller = new AbortController()
  if (progress) watchReplyProgress(controller.signal, progress)
  // Built only when the timer fires: an Error per attempt (stack + scrub) is measurable at 160 calls/s.
  let timeoutError: JudgeTimeoutError | undefined
  let cleanup = () => {}
  const stopped = new Promise<never>((_, reject) => {
    const onOuterAbort = () => {
      controller.abort(outer!.reason)
      reject(new JudgeAbortError({ ...ctx, cause: outer!.reason }))
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    let over = false
    const arm = () => {
      if (over) return
      timer = setTimeout(() => {
        const sending = describeReplyProgress(progress)
        timeoutError = new JudgeTimeoutError(
          sending
            ? `${ctx.provider}:${ctx.model}${ctx.endpoint ? ` at ${ctx.endpoint}` : ''} did not finish its reply within ${timeoutMs} ms: ${sending}; check the judge server (a reply that slow is a stuck or throttled stream), or raise timeoutMs (or timeout=DURATION in AGENT_VERDICT_JUDGE)`
            : `${ctx.provider}:${ctx.model}${ctx.endpoint ? ` at ${ctx.endpoint}` : ''} gave no answer within ${timeoutMs} ms; raise timeoutMs (or timeout=DURATION in AGENT_VERDICT_JUDGE) if the model is slow`,
          ctx,
        )
        controller.abort(timeoutError)
        reject(timeoutError)
      }, timeoutMs)
    }
    if (startAfter) void startAfter.then(arm)
    else arm()
    outer?.addEventListener('abort', onOuterAbort, { once: true })
    cleanup = () => {
      over = true
      clearTimeout(timer)
      outer?.removeEventListener('abort', onOuterAbort)
    }
  })
  stopped.catch(() => {})
  try {
    return await Promise.race([attempt(controller.signal, n), stopped])
  } catch (err) {
    // The SDK reports our timeout as a user abort; say what really happened.
    if (timeoutError) throw timeoutError
    throw err
  } finally {
    cleanup()
  }
}

/** setTimeout as a promise that rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
