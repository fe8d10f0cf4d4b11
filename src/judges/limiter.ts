/** How one attempt ended, as far as the limiter cares. */
export type LimiterOutcome = 'ok' | 'throttled' | 'error'

export interface AdaptiveLimiterOptions {
  /** Most calls in flight at once, and the ceiling growth returns to. Default 8. */
  concurrency?: number
  /** Recent outcomes considered. Default 20. */
  window?: number
  /** Outcomes needed in the window before it may cut. Default 10. */
  minSamples?: number
  /** Cut when throttled outcomes exceed this share of the window. Default 0.5. */
  cutAbove?: number
}

/** Returned by `acquire`: call exactly once with how the attempt ended. */
export type LimiterRelease = (outcome: LimiterOutcome) => void

/**
 * A concurrency limiter that backs off under sustained throttling. It keeps the last `window`
 * outcomes; when 429s dominate (> `cutAbove`, default 50% of the last 20) it halves the in-flight
 * limit (min 1) and forgets the window, then grows back by one slot per successful call up to
 * `concurrency`. Sporadic 429s (≤ 10%) never reach the threshold, so they are only retried.
 *
 * @example
 * const limiter = new AdaptiveLimiter({ concurrency: 8 })
 * const release = await limiter.acquire(signal)
 * try { await call(); release('ok') } catch (err) { release(isRateLimit(err) ? 'throttled' : 'error'); throw err }
 */
export class AdaptiveLimiter {
  readonly max: number
  private current: number
  private active = 0
  private readonly waiters: Array<() => void> = []
  // Retries are served first: they already waited, and queueing them behind every fresh call would
  // bunch them (and their own 429s) at the end of a batch.
  private readonly retryWaiters: Array<() => void> = []
  private readonly outcomes: LimiterOutcome[] = []
  private readonly windowSize: number
  private readonly minSamples: number
  private readonly cutAbove: number
  /** Times the limit was cut, for benchmarks and diagnostics. */
  cuts = 0

  constructor(options: AdaptiveLimiterOptions = {}) {
    this.max = positiveInt(options.concurrency ?? 8, 'concurrency')
    this.current = this.max
    this.windowSize = positiveInt(options.window ?? 20, 'window')
    this.minSamples = Math.min(positiveInt(options.minSamples ?? 10, 'minSamples'), this.windowSize)
    this.cutAbove = options.cutAbove ?? 0.5
  }

  /** Current in-flight limit (between 1 and `max`). */
  get limit(): number {
    return this.current
  }

  get inFlight(): number {
    return this.active
  }

  get queued(): number {
    return this.waiters.length + this.retryWaiters.length
  }

  /**
   * Waits for a slot; rejects with the signal's reason if it aborts while queued. `retry: true`
   * queues ahead of first attempts.
   */
  acquire(signal?: AbortSignal, options: { retry?: boolean } = {}): Promise<LimiterRelease> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (this.active < this.current && this.queued === 0) return Promise.resolve(this.grant())
    const queue = options.retry ? this.retryWaiters : this.waiters
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve(this.grant())
      }
      const onAbort = () => {
        const index = queue.indexOf(wake)
        if (index >= 0) queue.splice(index, 1)
        reject(signal!.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      queue.push(wake)
    })
  }

  /** Runs `fn` in a slot; `outcomeOf` maps a thrown error to an outcome (default 'error'). */
  async run<T>(
    fn: () => Promise<T>,
    outcomeOf: (err: unknown) => LimiterOutcome = () => 'error',
    signal?: AbortSignal,
  ): Promise<T> {
    const release = await this.acquire(signal)
    // Granted in the same tick as an abort: hand the slot back rather than start `fn`.
    if (signal?.aborted) {
      release('error')
      throw signal.reason
    }
    try {
      const value = await fn()
      release('ok')
      return value
    } catch (err) {
      release(outcomeOf(err))
      throw err
    }
  }

  private grant(): LimiterRelease {
    this.active++
    let released = false
    return (outcome) => {
      if (released) return
      released = true
      this.active--
      this.record(outcome)
      this.drain()
    }
  }

  private record(outcome: LimiterOutcome): void {
    this.outcomes.push(outcome)
    if (this.outcomes.length > this.windowSize) this.outcomes.shift()
    if (outcome === 'throttled') {
      const throttled = this.outcomes.filter((o) => o === 'throttled').length
      if (this.outcomes.length >= this.minSamples && throttled / this.outcomes.length > this.cutAbove) {
        // Sustained throttling: halve (multiplicative decrease) and demand fresh evidence before cutting again.
        const next = Math.max(1, Math.floor(this.current / 2))
        if (next < this.current) this.cuts++
        this.current = next
        this.outcomes.length = 0
      }
    } else if (outcome === 'ok' && this.current < this.max) {
      // Additive increase: one slot back per success, so recovery after an outage takes a few round trips.
      this.current++
    }
  }

  private drain(): void {
    while (this.active < this.current && this.queued > 0) (this.retryWaiters.shift() ?? this.waiters.shift())!()
  }
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`AdaptiveLimiter: ${name} must be a positive integer, got ${value}`)
  return value
}
