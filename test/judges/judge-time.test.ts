// Judge time that fits the runner (decision 0017): quick failure when no request can reach the judge,
// and a deadline before the test's timeout with a message saying who, what happened and what to do.
import { APIConnectionError, RateLimitError } from 'openai'
import { describe, expect, it } from 'vitest'
import { rejectionOf } from '../helpers/rejection'
import { classifyJudgeError } from '../../src/judges/classify-error'
import { deadlineOf, withTestDeadline } from '../../src/judges/deadline'
import { JudgeAbortError, JudgeDeadlineError, JudgeError, JudgeServiceError } from '../../src/judges/errors'
import { createReliableJudge } from '../../src/judges/reliable-judge'
import { withRetry } from '../../src/judges/retry'
import type { Judge } from '../../src/judges/types'
import { jestTimedOut, jestTimeLimit } from '../../runner/jest-state'
import { vitestTimedOut, vitestTimeLimit } from '../../runner/vitest-state'
import { likertRequest, recordingSleep } from './helpers'

const ctx = { provider: 'openai-compatible', model: 'local', endpoint: 'http://127.0.0.1:9/v1' }
const socketError = (code: string, message = code) =>
  new APIConnectionError({
    cause: Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code }) }),
  })
const rateLimit = () =>
  new RateLimitError(429, { message: 'Rate limit reached' }, undefined, new Headers({ 'retry-after-ms': '50' }))

describe('connection failures that no wait can fix', () => {
  it.each([
    ['ECONNREFUSED', 'refused', true, 'connection refused (ECONNREFUSED)'],
    ['ENOTFOUND', 'dns', false, "cannot resolve the judge's host (DNS, ENOTFOUND)"],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls', false, 'TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls', false, 'TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)'],
  ])('%s is classified as %s and names the endpoint', (code, network, retryable, wording) => {
    const error = classifyJudgeError(socketError(code), ctx)
    expect(error.network).toBe(network)
    expect(error.retryable).toBe(retryable)
    expect(error.message).toContain(`openai-compatible:local at http://127.0.0.1:9/v1 ${wording}`)
  })

  it('429s until the wait budget is spent: the final error says how many attempts it took', async () => {
    const { sleep } = recordingSleep()
    const attempt = async () => {
      throw rateLimit()
    }
    // A frozen clock: only the recorded waits count, so a loaded machine's slow attempts cannot change the count.
    const error = await rejectionOf(withRetry(attempt, ctx, { sleep, maxWaitMs: 200, now: () => 0 }), JudgeError)
    expect(error.message).toMatch(/rate limited \(429\).*\(gave up after 5 attempts in 0\.2 s\)$/) // 4 waits of 50 ms fill the 200 ms budget, a 5th would not fit
  })

  it('a reset connection stays an ordinary retryable failure (the request may have reached a busy server)', () => {
    const error = classifyJudgeError(socketError('ECONNRESET'), ctx)
    expect(error).toBeInstanceOf(JudgeServiceError)
    expect(error.network).toBeUndefined()
  })

  it('a refused connection gets 3 quick tries (0.2 s, 0.4 s), not a minute of backoff', async () => {
    const { waits, sleep } = recordingSleep()
    let calls = 0
    const attempt = async () => {
      calls++
      throw socketError('ECONNREFUSED')
    }
    const error = await rejectionOf(withRetry(attempt, ctx, { sleep }), JudgeError)
    expect(error.network).toBe('refused')
    expect(calls).toBe(3)
    expect(error.attempts).toBe(3)
    expect(waits).toEqual([200, 400])
    expect(error.message).toMatch(/connection refused \(ECONNREFUSED\).*\(gave up after 3 attempts in \d+\.\d s\)$/)
  })

  it('a refused connection that recovers on the second try succeeds', async () => {
    const { sleep } = recordingSleep()
    let calls = 0
    const result = await withRetry(
      async () => {
        if (++calls === 1) throw socketError('ECONNREFUSED')
        return 'verdict'
      },
      ctx,
      { sleep },
    )
    expect(result).toEqual({ value: 'verdict', attempts: 2, reasks: 0 })
  })
})

describe('deadlineOf', () => {
  it('keeps 10% of the timeout (250 ms to 2 s) for the failure to be reported', () => {
    expect(deadlineOf({ startedAt: 0, timeoutMs: 5_000, setting: '' })).toBe(4_500)
    expect(deadlineOf({ startedAt: 0, timeoutMs: 1_000, setting: '' })).toBe(750)
    expect(deadlineOf({ startedAt: 0, timeoutMs: 60_000, setting: '' })).toBe(58_000)
  })
})

/** A reliable judge over a scripted attempt, with its requests counted. */
function scriptedJudge(attempt: (signal: AbortSignal) => Promise<unknown>) {
  const seen = { requests: 0, aborted: 0 }
  const judge = createReliableJudge(
    'openai-compatible',
    'local',
    async (_request, signal) => {
      seen.requests++
      signal.addEventListener('abort', () => seen.aborted++, { once: true })
      return { output: (await attempt(signal)) as never, usage: { inputTokens: 1, outputTokens: 1 } }
    },
    { endpoint: 'http://127.0.0.1:9/v1' },
  )
  return { judge, seen }
}

const limit = (timeoutMs: number) => ({
  startedAt: Date.now(),
  timeoutMs,
  setting: 'test.testTimeout in vitest.config',
})

describe('withTestDeadline', () => {
  it('a judge that never answers is aborted before the test timeout, with who, what and what to do', async () => {
    const { judge, seen } = scriptedJudge(
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    )
    const started = Date.now()
    const error = await rejectionOf(withTestDeadline(judge, limit(1_000)).evaluate(likertRequest()), JudgeError)
    const elapsed = Date.now() - started
    expect(error).toBeInstanceOf(JudgeDeadlineError)
    expect(error.retryable).toBe(false)
    expect(elapsed).toBeLessThan(1_000)
    expect(error.message).toMatch(
      /^openai-compatible:local at http:\/\/127\.0\.0\.1:9\/v1 gave no verdict before the test's 1\.0 s timeout \(0\.\d s left for the judge\): no answer after 0\.\d s \(first attempt still waiting\)\./,
    )
    expect(error.message).toContain(
      "raise the test's timeout (test.testTimeout in vitest.config; 60 s is recommended for judge tests)",
    )
    expect(seen).toEqual({ requests: 1, aborted: 1 })
  })

  it('says how many attempts were rate limited, and sends no request after it gave up', async () => {
    const { judge, seen } = scriptedJudge(async () => {
      throw rateLimit()
    })
    const error = await rejectionOf(withTestDeadline(judge, limit(1_000)).evaluate(likertRequest()), JudgeError)
    expect(error).toBeInstanceOf(JudgeDeadlineError)
    expect(error.message).toMatch(/: rate limited \(429\) on \d+ attempts/)
    expect(error.message).toContain('Lower the judge concurrency (concurrency=N)')
    const requests = seen.requests
    expect(requests).toBeGreaterThan(2)
    await new Promise((done) => setTimeout(done, 300))
    expect(seen.requests).toBe(requests)
  })

  it('a final error before the deadline passes through unchanged', async () => {
    const { judge } = scriptedJudge(async () => {
      throw socketError('DEPTH_ZERO_SELF_SIGNED_CERT')
    })
    const error = await rejectionOf(withTestDeadline(judge, limit(5_000)).evaluate(likertRequest()), JudgeError)
    expect(error).not.toBeInstanceOf(JudgeDeadlineError)
    expect(error.network).toBe('tls')
  })

  it('no time left: fails at once without calling the judge', async () => {
    const { judge, seen } = scriptedJudge(async () => ({ reasoning: 'ok', score: 5 }))
    const error = await rejectionOf(
      withTestDeadline(judge, { startedAt: Date.now() - 10_000, timeoutMs: 5_000, setting: 'testTimeout' }).evaluate(
        likertRequest(),
      ),
      JudgeError,
    )
    expect(error).toBeInstanceOf(JudgeDeadlineError)
    expect(error.message).toContain("no time left for the judge before the test's 5.0 s timeout")
    expect(seen.requests).toBe(0)
  })

  it('a custom judge that ignores its signal still cannot outlive the deadline', async () => {
    const stubborn: Judge = {
      id: 'custom:judge',
      provider: 'custom',
      model: 'judge',
      evaluate: () => new Promise(() => {}),
    }
    const error = await rejectionOf(withTestDeadline(stubborn, limit(600)).evaluate(likertRequest()), JudgeError)
    expect(error).toBeInstanceOf(JudgeDeadlineError)
    expect(error.message).toMatch(/^custom:judge gave no verdict before the test's 0\.6 s timeout/)
  })

  it("the caller's abort stays an abort, not a deadline", async () => {
    const { judge } = scriptedJudge(
      (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    )
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const error = await rejectionOf(
      withTestDeadline(judge, limit(5_000)).evaluate(likertRequest(), controller.signal),
      JudgeError,
    )
    expect(error).toBeInstanceOf(JudgeAbortError)
  })

  it('without a usable limit the judge is returned as it is', () => {
    const { judge } = scriptedJudge(async () => ({}))
    expect(withTestDeadline(judge, undefined)).toBe(judge)
    expect(withTestDeadline(judge, { startedAt: 0, timeoutMs: 0, setting: '' })).toBe(judge)
  })

  it('keeps the wrapped judge’s id, endpoint and other members', () => {
    const { judge } = scriptedJudge(async () => ({}))
    const wrapped = withTestDeadline(judge, limit(5_000))
    expect([wrapped.id, wrapped.endpoint, wrapped.limiter]).toEqual([judge.id, judge.endpoint, judge.limiter])
  })
})

describe('reading the test timeout', () => {
  it('Vitest: the task timeout and start time; none without a timeout', () => {
    expect(vitestTimeLimit({ timeout: 5_000, result: { startTime: 1_000 } })).toMatchObject({
      startedAt: 1_000,
      timeoutMs: 5_000,
    })
    expect(vitestTimeLimit({ timeout: 0 })).toBeUndefined()
    expect(vitestTimeLimit(undefined)).toBeUndefined()
    expect(vitestTimedOut({ result: { errors: [{ message: 'Test timed out in 5000ms.' }] } })).toBe(true)
    expect(vitestTimedOut({ result: { errors: [{ message: 'expected 1 to be 2' }] } })).toBe(false)
  })

  it('Jest: the running test’s own timeout, else testTimeout, from the circus state', () => {
    const symbol = Symbol('JEST_STATE_SYMBOL')
    const g = globalThis as Record<symbol, unknown>
    try {
      g[symbol] = { testTimeout: 5_000, currentlyRunningTest: { timeout: undefined, startedAt: 2_000, errors: [] } }
      expect(jestTimeLimit()).toMatchObject({ startedAt: 2_000, timeoutMs: 5_000 })
      g[symbol] = {
        testTimeout: 5_000,
        currentlyRunningTest: {
          timeout: 20_000,
          startedAt: 2_000,
          errors: [[new Error('Exceeded timeout of 20000 ms for a test.'), new Error('x')]],
        },
      }
      expect(jestTimeLimit()).toMatchObject({ timeoutMs: 20_000 })
      expect(jestTimedOut()).toBe(true)
      g[symbol] = { testTimeout: 5_000, currentlyRunningTest: null }
      expect(jestTimeLimit()).toBeUndefined()
    } finally {
      delete g[symbol]
    }
  })
})
