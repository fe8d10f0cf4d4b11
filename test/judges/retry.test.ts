// The retry loop with an injected clock and sleep, fed with real SDK error objects.
import { APIConnectionError, InternalServerError, RateLimitError } from 'openai'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  JudgeAbortError,
  JudgeRateLimitError,
  JudgeRequestError,
  JudgeServiceError,
  JudgeTimeoutError,
} from '../../src/judges/errors'
import { AdaptiveLimiter } from '../../src/judges/limiter'
import { withRetry } from '../../src/judges/retry'
import { recordingSleep } from './helpers'

const ctx = { provider: 'openai', model: 'gpt-4.1' }
const rateLimit = (headers: Record<string, string> = {}) =>
  new RateLimitError(429, { message: 'Rate limit reached for gpt-4.1' }, undefined, new Headers(headers))
const serverError = () => new InternalServerError(500, { message: 'The server had an error' }, undefined, new Headers())
const reset = () =>
  new APIConnectionError({
    cause: Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    }),
  })

/** An attempt that throws the given errors in turn, then returns 'verdict'. */
function scripted(...errors: Error[]) {
  let calls = 0
  const attempt = async () => {
    const err = errors[calls++]
    if (err) throw err
    return 'verdict'
  }
  return { attempt, calls: () => calls }
}

afterEach(() => vi.useRealTimers())

describe('withRetry', () => {
  it.each([
    ['fractional seconds', { 'retry-after': '0.2' }, 200],
    ['integer seconds', { 'retry-after': '3' }, 3000],
    ['retry-after-ms', { 'retry-after-ms': '750' }, 750],
  ])('honours retry-after as %s', async (_, headers, expected) => {
    const { waits, sleep } = recordingSleep()
    const { attempt, calls } = scripted(rateLimit(headers))
    const result = await withRetry(attempt, ctx, { sleep })
    expect(result).toEqual({ value: 'verdict', attempts: 2, reasks: 0 })
    expect(calls()).toBe(2)
    expect(waits).toEqual([expected])
  })

  it('honours retry-after as an HTTP-date', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T12:00:00Z'), toFake: ['Date'] })
    const { waits, sleep } = recordingSleep()
    const { attempt } = scripted(rateLimit({ 'retry-after': 'Sun, 01 Mar 2026 12:00:04 GMT' }))
    await withRetry(attempt, ctx, { sleep })
    expect(waits).toEqual([4000])
  })

  it('retries 500s and connection resets with full-jitter exponential backoff capped at 8 s', async () => {
    const { waits, sleep } = recordingSleep()
    const errors = [serverError(), reset(), serverError(), reset(), serverError(), serverError(), serverError()]
    const { attempt, calls } = scripted(...errors)
    const result = await withRetry(attempt, ctx, { sleep, random: () => 1 })
    expect(result.attempts).toBe(8)
    expect(calls()).toBe(8)
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000])
  })

  it('draws each backoff uniformly below its cap (full jitter)', async () => {
    const { waits, sleep } = recordingSleep()
    const { attempt } = scripted(serverError(), serverError(), serverError())
    await withRetry(attempt, ctx, { sleep, random: () => 0.25 })
    expect(waits).toEqual([125, 250, 500])
  })

  it('stops at the total wait budget, not at a small count, and throws the last error with its attempts', async () => {
    const { waits, sleep } = recordingSleep()
    const attempt = async () => {
      throw serverError()
    }
    const err = await withRetry(attempt, ctx, { sleep, random: () => 1, maxWaitMs: 20_000, now: () => 0 }).catch(
      (e) => e,
    )
    expect(err).toBeInstanceOf(JudgeServiceError)
    expect(err.status).toBe(500)
    // 0.5 + 1 + 2 + 4 + 8 = 15.5 s; another 8 s would exceed 20 s.
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000])
    expect(err.attempts).toBe(6)
  })

  it('gives up at once when retry-after is longer than the remaining budget', async () => {
    const { waits, sleep } = recordingSleep()
    const { attempt } = scripted(rateLimit({ 'retry-after': '3600' }))
    const err = await withRetry(attempt, ctx, { sleep, maxWaitMs: 60_000 }).catch((e) => e)
    expect(err).toBeInstanceOf(JudgeRateLimitError)
    expect(err.retryAfterMs).toBe(3_600_000)
    expect(waits).toEqual([])
  })

  it('keeps a generous max-attempts safety net', async () => {
    const { sleep } = recordingSleep()
    const attempt = async () => {
      throw rateLimit({ 'retry-after-ms': '0' })
    }
    const err = await withRetry(attempt, ctx, { sleep }).catch((e) => e)
    expect(err).toBeInstanceOf(JudgeRateLimitError)
    expect(err.attempts).toBe(50)
  })

  it('does not retry a non-retryable error', async () => {
    const { sleep, waits } = recordingSleep()
    const { attempt, calls } = scripted(Object.assign(new Error('400 Invalid model'), { status: 400 }))
    const err = await withRetry(attempt, ctx, { sleep }).catch((e) => e)
    expect(err).toBeInstanceOf(JudgeRequestError)
    expect(err.attempts).toBe(1)
    expect(calls()).toBe(1)
    expect(waits).toEqual([])
  })

  it('loses nothing to a 2-second outage of 429s without retry-after (virtual clock)', async () => {
    let now = 0
    const sleep = async (ms: number) => {
      now += ms
    }
    let calls = 0
    const attempt = async () => {
      calls++
      now += 100 // each attempt takes 100 ms
      if (now < 2_000) throw rateLimit()
      return 'verdict'
    }
    const result = await withRetry(attempt, ctx, { sleep, now: () => now, random: () => 0.7 })
    expect(result.value).toBe('verdict')
    expect(now).toBeGreaterThanOrEqual(2_000)
    expect(calls).toBe(result.attempts)
  })

  it('times out a hanging attempt, aborts its signal, and retries it', async () => {
    const { sleep } = recordingSleep()
    const signals: AbortSignal[] = []
    let calls = 0
    const attempt = (signal: AbortSignal) => {
      signals.push(signal)
      return ++calls === 1 ? new Promise<string>(() => {}) : Promise.resolve('verdict')
    }
    const result = await withRetry(attempt, ctx, { sleep, timeoutMs: 20 })
    expect(result).toEqual({ value: 'verdict', attempts: 2, reasks: 0 })
    expect(signals[0].aborted).toBe(true)
    expect(signals[0].reason).toBeInstanceOf(JudgeTimeoutError)
    expect(signals[1].aborted).toBe(false)
  })

  it('reports a timeout as JudgeTimeoutError once the budget is spent', async () => {
    const err = await withRetry(() => new Promise(() => {}), ctx, { timeoutMs: 20, maxWaitMs: 0 }).catch((e) => e)
    expect(err).toBeInstanceOf(JudgeTimeoutError)
    expect(err.message).toMatch(/within 20 ms/)
    expect(err.attempts).toBe(1)
  })

  it('stops waiting immediately when the caller aborts during a backoff', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    let calls = 0
    const attempt = async () => {
      calls++
      throw rateLimit({ 'retry-after': '30' })
    }
    const pending = withRetry(attempt, ctx, { signal: controller.signal }).catch((e) => e)
    await vi.advanceTimersByTimeAsync(0) // first attempt fails; now sleeping 30 s on fake timers
    controller.abort()
    const err = await pending // settles without advancing the 30 s timer
    expect(err).toBeInstanceOf(JudgeAbortError)
    expect(calls).toBe(1)
  })

  it('stops waiting immediately when the caller aborts mid-attempt', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const pending = withRetry(
      (signal) => {
        seen = signal
        return new Promise(() => {})
      },
      ctx,
      { signal: controller.signal },
    ).catch((e) => e)
    await vi.advanceTimersByTimeAsync(0)
    controller.abort()
    expect(await pending).toBeInstanceOf(JudgeAbortError)
    expect(seen?.aborted).toBe(true)
  })

  it('starts no attempt when the caller aborts in the tick its queued limiter slot is granted', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 1 })
    const hold = await limiter.acquire()
    const controller = new AbortController()
    let attempts = 0
    const pending = withRetry(
      async () => {
        attempts++
        return 'verdict'
      },
      ctx,
      { signal: controller.signal, limiter },
    ).catch((e) => e)
    await new Promise((r) => setImmediate(r)) // queued behind `hold`
    hold('ok') // grants the slot to the queued call…
    controller.abort() // …and the caller aborts before that call resumes
    expect(await pending).toBeInstanceOf(JudgeAbortError)
    expect(attempts).toBe(0)
    expect(limiter.inFlight).toBe(0) // the unused slot was handed back
  })
})
