// The adaptive limiter: enforces its limit, halves under sustained 429s, ignores sporadic ones, grows back.
import { describe, expect, it } from 'vitest'
import { AdaptiveLimiter, type LimiterOutcome } from '../../src/judges/limiter'

/** Runs one acquire/release cycle per outcome, one at a time. */
async function feed(limiter: AdaptiveLimiter, outcomes: LimiterOutcome[]): Promise<void> {
  for (const outcome of outcomes) (await limiter.acquire())(outcome)
}
const pattern = (n: number, throttledEvery: number): LimiterOutcome[] =>
  Array.from({ length: n }, (_, i) => ((i + 1) % throttledEvery === 0 ? 'throttled' : 'ok'))

describe('AdaptiveLimiter', () => {
  it('never runs more than its limit at once and serves waiters in order', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 3 })
    let active = 0
    let peak = 0
    const order: number[] = []
    const tasks = Array.from({ length: 12 }, (_, i) =>
      limiter.run(async () => {
        active++
        peak = Math.max(peak, active)
        await new Promise((r) => setImmediate(r))
        order.push(i)
        active--
      }),
    )
    expect(limiter.inFlight).toBe(3)
    expect(limiter.queued).toBe(9)
    await Promise.all(tasks)
    expect(peak).toBe(3)
    expect(order).toEqual([...Array(12).keys()])
  })

  it('serves queued retries before first attempts', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 1 })
    const release = await limiter.acquire()
    const order: string[] = []
    const fresh = limiter.acquire().then((r) => (order.push('fresh'), r('ok')))
    const retry = limiter.acquire(undefined, { retry: true }).then((r) => (order.push('retry'), r('ok')))
    release('ok')
    await Promise.all([fresh, retry])
    expect(order).toEqual(['retry', 'fresh'])
  })

  it('halves the limit (min 1) when 429s dominate the window', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 8 })
    // 60% throttled over 10 outcomes → cut.
    await feed(limiter, [
      'throttled',
      'ok',
      'throttled',
      'throttled',
      'ok',
      'throttled',
      'ok',
      'throttled',
      'ok',
      'throttled',
    ])
    expect(limiter.limit).toBe(4)
    await feed(limiter, Array(10).fill('throttled'))
    expect(limiter.limit).toBe(2)
    await feed(limiter, Array(40).fill('throttled'))
    expect(limiter.limit).toBe(1)
    expect(limiter.cuts).toBe(3)
  })

  it('does not cut for sporadic 429s (10%), however long they go on', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 8 })
    await feed(limiter, pattern(500, 10))
    expect(limiter.limit).toBe(8)
    expect(limiter.cuts).toBe(0)
  })

  it('does not cut on a few 429s before the window has enough samples', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 8 })
    await feed(limiter, ['throttled', 'throttled', 'throttled'])
    expect(limiter.limit).toBe(8)
  })

  it('grows back one slot per success up to the configured concurrency', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 8 })
    await feed(limiter, Array(30).fill('throttled'))
    expect(limiter.limit).toBe(1)
    await feed(limiter, Array(3).fill('ok'))
    expect(limiter.limit).toBe(4)
    await feed(limiter, Array(20).fill('ok'))
    expect(limiter.limit).toBe(8)
  })

  it('neutral errors (timeouts, 5xx) neither cut nor grow', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 8 })
    await feed(limiter, Array(30).fill('error'))
    expect(limiter.limit).toBe(8)
  })

  it('removes an aborted waiter from the queue', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 1 })
    const release = await limiter.acquire()
    const controller = new AbortController()
    const waiting = limiter.acquire(controller.signal)
    expect(limiter.queued).toBe(1)
    controller.abort(new Error('cancelled'))
    await expect(waiting).rejects.toThrow('cancelled')
    expect(limiter.queued).toBe(0)
    release('ok')
    expect(limiter.inFlight).toBe(0)
  })

  it('rejects a nonsensical concurrency', () => {
    expect(() => new AdaptiveLimiter({ concurrency: 0 })).toThrow(/concurrency must be a positive integer/)
  })

  it('run() does not start fn when the abort lands in the tick its queued slot is granted', async () => {
    const limiter = new AdaptiveLimiter({ concurrency: 1 })
    const hold = await limiter.acquire()
    const controller = new AbortController()
    let started = false
    const pending = limiter.run(
      async () => {
        started = true
      },
      undefined,
      controller.signal,
    )
    hold('ok')
    controller.abort(new Error('cancelled'))
    await expect(pending).rejects.toThrow('cancelled')
    expect(started).toBe(false)
    expect(limiter.inFlight).toBe(0)
  })
})
