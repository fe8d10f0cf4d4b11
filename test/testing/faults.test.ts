import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import * as z from 'zod'
import { startFakeJudge, type FakeJudge } from '../../src/testing'
import { clientFor, judgeOnce, judgeParams } from './client'

const Likert = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) })
const likert = z.toJSONSchema(Likert) as Record<string, unknown>

let judge: FakeJudge
beforeAll(async () => {
  judge = await startFakeJudge()
})
afterAll(() => judge.close())
beforeEach(() => {
  judge.setFaults([])
  judge.setLatency(0)
  judge.reset()
})

/** Runs a request and returns the SDK error it raised (the test fails if it succeeds). */
async function failure(client: OpenAI, user = 'judge this'): Promise<InstanceType<typeof OpenAI.APIError>> {
  const result = await client.chat.completions.create(judgeParams({ user, schema: likert })).then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(result).toBeInstanceOf(OpenAI.APIError)
  return result as InstanceType<typeof OpenAI.APIError>
}

/** Waits (bounded) until the server has nothing open — how we observe that a socket was freed. */
async function drained(j: FakeJudge): Promise<number> {
  for (let i = 0; i < 200 && j.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 10))
  return j.inFlight
}

describe('faults as the openai SDK sees them', () => {
  test('rate-limit: 429 with retry-after seconds, retry-after-ms, or an HTTP-date', async () => {
    judge.setFaults([{ type: 'rate-limit', times: 1, retryAfter: '0.2' }])
    const seconds = await failure(clientFor(judge))
    expect(seconds).toBeInstanceOf(OpenAI.RateLimitError)
    expect(seconds.status).toBe(429)
    expect(seconds.headers?.get('retry-after')).toBe('0.2')
    expect(seconds.code).toBe('rate_limit_exceeded')

    judge.setFaults([{ type: 'rate-limit', times: 1, retryAfterMs: 150 }])
    const ms = await failure(clientFor(judge))
    expect(ms.headers?.get('retry-after-ms')).toBe('150')
    expect(ms.headers?.get('retry-after')).toBeNull()

    judge.setFaults([{ type: 'rate-limit', times: 1, retryAfterDateMs: 1500 }])
    const date = await failure(clientFor(judge))
    const header = date.headers?.get('retry-after') ?? ''
    expect(header).toMatch(/GMT$/)
    expect(Date.parse(header)).toBeGreaterThan(Date.now())

    // times: 1 — the next request is answered normally.
    expect((await judgeOnce(clientFor(judge), { user: 'x', schema: likert })).reply.score).toBe(5)
    expect(judge.stats.byStatus).toEqual({ '429': 3, '200': 1 })
    expect(judge.stats.byFault).toEqual({ 'rate-limit': 3 })
  })

  test('server-error: 500 by default, 503 on request, in OpenAI error JSON', async () => {
    judge.setFaults([
      { type: 'server-error', times: 1 },
      { type: 'server-error', status: 503, times: 1, retryAfter: 1 },
    ])
    const first = await failure(clientFor(judge))
    const second = await failure(clientFor(judge))
    expect(first).toBeInstanceOf(OpenAI.InternalServerError)
    expect([first.status, second.status]).toEqual([500, 503])
    expect(second.headers?.get('retry-after')).toBe('1')
    expect(second.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' })
    expect(judge.calls.map((c) => [c.status, c.fault])).toEqual([
      [500, 'server-error'],
      [503, 'server-error'],
    ])
  })

  test('hang: no answer until the client times out; the server frees the request', async () => {
    judge.setFaults([{ type: 'hang', times: 1 }])
    const error = await failure(clientFor(judge, { timeout: 300 }))
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
    expect(await drained(judge)).toBe(0)
    expect(judge.calls[0]).toMatchObject({ fault: 'hang', status: null, aborted: true })
  })

  test('close() ends a hanging request instead of waiting for it', async () => {
    const own = await startFakeJudge({ faults: [{ type: 'hang' }] })
    const pending = clientFor(own)
      .chat.completions.create(judgeParams({ user: 'x', schema: likert }))
      .catch((e: unknown) => e)
    for (let i = 0; i < 200 && own.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    expect(own.inFlight).toBe(1)
    await own.close()
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError)
    expect(own.inFlight).toBe(0)
  })

  test('disconnect: the socket is destroyed and the client sees a connection error', async () => {
    judge.setFaults([{ type: 'disconnect', times: 1 }])
    const error = await failure(clientFor(judge))
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError)
    expect(judge.calls[0]).toMatchObject({ fault: 'disconnect', status: null, aborted: false })
  })

  test('malformed-json: 200 whose content does not parse', async () => {
    judge.setFaults([{ type: 'malformed-json' }])
    const completion = await clientFor(judge).chat.completions.create(judgeParams({ user: 'x', schema: likert }))
    const content = completion.choices[0].message.content ?? ''
    expect(content.length).toBeGreaterThan(0)
    expect(() => JSON.parse(content)).toThrow(SyntaxError)
  })

  test('out-of-range: valid JSON whose score is outside the schema range', async () => {
    judge.setFaults([{ type: 'out-of-range' }])
    const { reply } = await judgeOnce(clientFor(judge), { user: 'x', schema: likert })
    expect(reply).toEqual({ reasoning: 'fake judge: no rule matched', score: 6 })
    expect(Likert.safeParse(reply).success).toBe(false)
    const boolean = { type: 'object', properties: { reasoning: { type: 'string' }, pass: { type: 'boolean' } } }
    expect((await judgeOnce(clientFor(judge), { user: 'x', schema: boolean })).reply.pass).toBe('out-of-range')
  })

  test('empty-choices: a 200 chat.completion with no choices', async () => {
    judge.setFaults([{ type: 'empty-choices' }])
    const completion = await clientFor(judge).chat.completions.create(judgeParams({ user: 'x', schema: likert }))
    expect(completion.choices).toEqual([])
    expect(judge.calls[0]).toMatchObject({ fault: 'empty-choices', status: 200 })
  })

  test('when: only requests whose prompt matches fail', async () => {
    judge.setFaults([{ type: 'server-error', when: { contains: 'flaky' } }])
    const client = clientFor(judge)
    expect((await failure(client, 'flaky upstream')).status).toBe(500)
    expect((await judgeOnce(client, { user: 'steady', schema: likert })).reply.score).toBe(5)
  })
})

describe('fault selection', () => {
  test('firstMs: an outage window after setFaults, then normal answers', async () => {
    judge.setFaults([{ type: 'server-error', status: 503, firstMs: 1500 }])
    const client = clientFor(judge)
    expect((await failure(client)).status).toBe(503)
    await new Promise((r) => setTimeout(r, 1600))
    expect((await judgeOnce(client, { user: 'x', schema: likert })).reply.score).toBe(5)
  })

  test('an OpenAI client with retries rides out a short outage that sends retry-after-ms', async () => {
    judge.setFaults([{ type: 'rate-limit', firstMs: 300, retryAfterMs: 100 }])
    const { reply } = await judgeOnce(clientFor(judge, { maxRetries: 20 }), { user: 'x', schema: likert })
    expect(reply.score).toBe(5)
    expect(judge.stats.byStatus['429']).toBeGreaterThanOrEqual(1)
  })

  async function faultedIndices(faults: Parameters<FakeJudge['setFaults']>[0], count: number): Promise<number[]> {
    judge.setFaults(faults)
    judge.reset()
    const client = clientFor(judge)
    for (let i = 0; i < count; i++)
      await client.chat.completions.create(judgeParams({ user: 'x', schema: likert })).catch(() => undefined)
    return judge.calls.filter((c) => c.fault !== null).map((c) => c.n)
  }

  test('rate with a seed is deterministic: same seed → same requests fail', async () => {
    const a = await faultedIndices([{ type: 'rate-limit', rate: 0.3, seed: 7 }], 30)
    const b = await faultedIndices([{ type: 'rate-limit', rate: 0.3, seed: 7 }], 30)
    const c = await faultedIndices([{ type: 'rate-limit', rate: 0.3, seed: 8 }], 30)
    expect(a).toEqual(b)
    expect(a).not.toEqual(c)
    expect(a.length).toBeGreaterThan(2)
    expect(a.length).toBeLessThan(20)
  })

  test('rate without a seed spreads failures evenly (every k-th); times caps them', async () => {
    expect(await faultedIndices([{ type: 'server-error', rate: 0.25 }], 12)).toEqual([4, 8, 12])
    expect(await faultedIndices([{ type: 'server-error', rate: 0.5, times: 2 }], 10)).toEqual([2, 4])
    expect(await faultedIndices([{ type: 'server-error', times: 3 }], 5)).toEqual([1, 2, 3])
  })
})

describe('latency and concurrency', () => {
  test('fixed and ranged latency delay each answer by at least the minimum', async () => {
    judge.setLatency(150)
    let started = performance.now()
    await judgeOnce(clientFor(judge), { user: 'x', schema: likert })
    expect(performance.now() - started).toBeGreaterThanOrEqual(149)
    judge.setLatency({ min: 80, max: 120 })
    started = performance.now()
    await judgeOnce(clientFor(judge), { user: 'x', schema: likert })
    expect(performance.now() - started).toBeGreaterThanOrEqual(79)
  })

  test('429/5xx rejections skip the model latency (a gateway answers them), unless delayMs is set', async () => {
    // The model latency is far beyond the client timeout: a rejection held for it would surface as a timeout.
    judge.setLatency(60_000)
    judge.setFaults([
      { type: 'rate-limit', times: 1, retryAfter: '0.2' },
      { type: 'server-error', times: 1 },
    ])
    expect((await failure(clientFor(judge, { timeout: 5_000 }))).status).toBe(429)
    expect((await failure(clientFor(judge, { timeout: 5_000 }))).status).toBe(500)
    judge.setLatency(0)
    judge.setFaults([{ type: 'rate-limit', times: 1, delayMs: 120 }])
    const started = performance.now()
    expect((await failure(clientFor(judge))).status).toBe(429)
    expect(performance.now() - started).toBeGreaterThanOrEqual(119)
  })

  test('50 parallel requests with 100 ms latency are all answered, held open together', async () => {
    judge.setLatency(100)
    const client = clientFor(judge)
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => judgeOnce(client, { user: `request ${i}`, schema: likert })),
    )
    expect(replies.map((r) => r.reply.score)).toEqual(Array(50).fill(5))
    expect(new Set(judge.calls.map((c) => c.n)).size).toBe(50)
    expect(judge.calls.every((c) => c.status === 200)).toBe(true)
    // Latency is a timer, not a blocking wait: the server held many requests open at once.
    expect(judge.stats.maxInFlight).toBeGreaterThanOrEqual(16)
  })
})
