// Fault injection end to end: the fake judge server on 127.0.0.1, the real openai client, our judge.
// Each fault is either retried (attempts counted on the server) or ends unjudgeable with its cause.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { JudgeOutputError, JudgeRateLimitError, JudgeServiceError, JudgeTimeoutError } from '../../src/judges/errors'
import { callJudge, type CallJudgeResult } from '../../src/judges/judge-call'
import { openaiJudge, type OpenAIJudgeOptions } from '../../src/judges/openai'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { likertRequest, type Likert } from './helpers'

let fake: FakeJudge
beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [{ name: 'shapes', when: { contains: 'shapes' }, respond: { score: 4, reason: 'Both shapes are named.' } }],
  })
})
afterEach(() => {
  fake.setFaults([])
  fake.reset()
})
afterAll(() => fake.close())

const judgeOf = (options: Partial<OpenAIJudgeOptions> = {}) =>
  openaiJudge({ model: 'fake-judge', baseURL: fake.baseURL, ...options })
const statuses = () => fake.calls.map((c) => c.status)

function expectOk(result: CallJudgeResult<Likert>): Likert {
  if (result.status !== 'ok') throw new Error(`expected a verdict, got unjudgeable: ${result.cause}`)
  return result.output
}
function expectUnjudgeable(result: CallJudgeResult<Likert>) {
  if (result.status !== 'unjudgeable')
    throw new Error(`expected unjudgeable, got a verdict: ${JSON.stringify(result.output)}`)
  return result
}

describe('judge faults against the fake judge server', () => {
  it('no fault: a valid verdict from the scripted rule, usage read back', async () => {
    const result = await callJudge(judgeOf(), likertRequest())
    expect(expectOk(result)).toEqual({ reasoning: 'Both shapes are named.', score: 4, category: 'none' })
    if (result.status === 'ok') expect(result.responses[0].usage.inputTokens).toBe(fake.calls[0].usage!.prompt_tokens)
    expect(fake.calls[0]).toMatchObject({ responseFormat: 'json_schema', schemaName: 'overall_quality', imageCount: 1 })
  })

  it.each([
    ['retry-after: 0.2', { retryAfter: '0.2' }],
    ['retry-after-ms: 50', { retryAfterMs: 50 }],
    ['retry-after as an HTTP-date', { retryAfterDateMs: 10 }],
  ])('429 with %s is retried until it succeeds', async (_, header) => {
    fake.setFaults([{ type: 'rate-limit', times: 2, ...header }])
    const result = await callJudge(judgeOf(), likertRequest())
    expect(expectOk(result).score).toBe(4)
    expect(statuses()).toEqual([429, 429, 200])
    if (result.status === 'ok') expect(result.responses[0].attempts).toBe(3)
  })

  it('persistent 429s end unjudgeable with the rate-limit cause once the wait budget is spent', async () => {
    // Waits short against the budget, so at least three attempts fit even when a loaded machine makes the first
    // ones slow (the budget counts from the first attempt's start; under load one attempt took most of 300 ms).
    fake.setFaults([{ type: 'rate-limit', retryAfter: '0.05' }])
    const result = expectUnjudgeable(await callJudge(judgeOf({ maxWaitMs: 1_500 }), likertRequest()))
    expect(result.error).toBeInstanceOf(JudgeRateLimitError)
    expect(result.cause).toMatch(/rate limited \(429\)/)
    expect(fake.calls.length).toBe(result.error.attempts)
    expect(fake.calls.length).toBeGreaterThanOrEqual(3)
  })

  it.each([500, 503])('%s is retried until it succeeds', async (status) => {
    fake.setFaults([{ type: 'server-error', status, times: 2 }])
    expect(expectOk(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest())).score).toBe(4)
    expect(statuses()).toEqual([status, status, 200])
  })

  it('persistent 500s end unjudgeable with the service-error cause', async () => {
    fake.setFaults([{ type: 'server-error' }])
    const result = expectUnjudgeable(
      // A budget several attempts wide even on a loaded machine (under load one attempt took most of 300 ms).
      await callJudge(judgeOf({ maxWaitMs: 1_500, retry: { baseDelayMs: 20 } }), likertRequest()),
    )
    expect(result.error).toBeInstanceOf(JudgeServiceError)
    expect(result.cause).toContain('(500)')
    expect(fake.calls.length).toBe(result.error.attempts)
    expect(fake.calls.length).toBeGreaterThan(1)
  })

  it('a hang is cut by the per-call timeout, the socket is freed, and the retry succeeds', async () => {
    fake.setFaults([{ type: 'hang', times: 1 }])
    expect(expectOk(await callJudge(judgeOf({ timeoutMs: 1_000 }), likertRequest())).score).toBe(4)
    expect(fake.calls).toHaveLength(2)
    await vi.waitFor(() => expect(fake.calls[0]).toMatchObject({ fault: 'hang', aborted: true }))
    await vi.waitFor(() => expect(fake.inFlight).toBe(0))
  })

  it('a server that always hangs ends unjudgeable with the timeout cause', async () => {
    fake.setFaults([{ type: 'hang' }])
    // A second attempt must start inside the budget: it does at ~0.3 s, 1.2 s before the budget ends (with 150 ms
    // and 400 ms, a timer late by a quarter second on a loaded machine left one attempt).
    const result = expectUnjudgeable(
      await callJudge(judgeOf({ timeoutMs: 300, maxWaitMs: 1_500, retry: { baseDelayMs: 10 } }), likertRequest()),
    )
    expect(result.error).toBeInstanceOf(JudgeTimeoutError)
    expect(result.cause).toMatch(/no answer within 300 ms/)
    // Every attempt is counted; on a loaded machine the last one can time out before its body reaches the
    // server (CI saw 3 attempts, 2 arrivals), so the server sees at most the attempts, and every arrival hung.
    expect(result.error.attempts).toBeGreaterThanOrEqual(2)
    expect(fake.calls.length).toBeLessThanOrEqual(result.error.attempts ?? 0)
    expect(fake.calls.length).toBeGreaterThanOrEqual(1)
    await vi.waitFor(() => expect(fake.inFlight).toBe(0)) // the server saw every aborted socket close
    for (const call of fake.calls) expect(call).toMatchObject({ fault: 'hang', aborted: true, status: null })
  })

  it('a dropped connection is retried', async () => {
    fake.setFaults([{ type: 'disconnect', times: 1 }])
    expect(expectOk(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest())).score).toBe(4)
    expect(fake.calls).toHaveLength(2)
  })

  it('malformed JSON is re-asked once, then unjudgeable with an excerpt of the output', async () => {
    fake.setFaults([{ type: 'malformed-json' }])
    const result = expectUnjudgeable(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest()))
    expect(result.error).toBeInstanceOf(JudgeOutputError)
    expect(result.cause).toMatch(/not JSON/)
    expect((result.error as JudgeOutputError).excerpt).toContain('malformed-json fault')
    expect(fake.calls).toHaveLength(2)
  })

  it('malformed JSON once, then a valid reply: the re-ask recovers', async () => {
    fake.setFaults([{ type: 'malformed-json', times: 1 }])
    expect(expectOk(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest())).score).toBe(4)
    expect(fake.calls).toHaveLength(2)
  })

  it('an out-of-range score is never accepted: unjudgeable naming the score', async () => {
    fake.setFaults([{ type: 'out-of-range' }])
    const result = expectUnjudgeable(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest()))
    expect(result.error).toBeInstanceOf(JudgeOutputError)
    expect(result.cause).toMatch(/score/)
    expect(fake.calls).toHaveLength(2)
  })

  it('empty choices end unjudgeable', async () => {
    fake.setFaults([{ type: 'empty-choices' }])
    const result = expectUnjudgeable(await callJudge(judgeOf({ retry: { baseDelayMs: 20 } }), likertRequest()))
    expect(result.cause).toMatch(/no choices/)
  })

  it('a 2-second outage of 429s loses no verdict within the wait budget', async () => {
    fake.setFaults([{ type: 'rate-limit', firstMs: 2_000, retryAfter: '0.2' }])
    const judge = judgeOf({ concurrency: 8 })
    const results = await Promise.all(Array.from({ length: 40 }, () => callJudge(judge, likertRequest())))
    expect(results.filter((r) => r.status !== 'ok')).toEqual([])
    expect(fake.stats.byStatus['429']).toBeGreaterThan(0)
    expect(fake.stats.byStatus['200']).toBe(40)
  })

  it('sustained throttling cuts the judge’s concurrency; the cut shows on the server', async () => {
    fake.setFaults([{ type: 'rate-limit', rate: 0.7, seed: 11, retryAfterMs: 5 }])
    fake.setLatency(20)
    const judge = judgeOf({ concurrency: 8 })
    const results = await Promise.all(Array.from({ length: 60 }, () => callJudge(judge, likertRequest())))
    fake.setLatency(0)
    expect(results.every((r) => r.status === 'ok')).toBe(true)
    expect(judge.limiter.cuts).toBeGreaterThan(0)
  })

  it('sporadic 429s (10%) are retried without cutting concurrency', async () => {
    fake.setFaults([{ type: 'rate-limit', rate: 0.1, retryAfterMs: 5 }])
    const judge = judgeOf({ concurrency: 8 })
    const results = await Promise.all(Array.from({ length: 100 }, () => callJudge(judge, likertRequest())))
    expect(results.every((r) => r.status === 'ok')).toBe(true)
    expect(fake.stats.byStatus['200']).toBe(100)
    // Every 10th request fails, retries included: 10 or 11 of ~110.
    expect(fake.stats.byStatus['429']).toBe(Math.floor(fake.calls.length / 10))
    expect(judge.limiter.cuts).toBe(0)
    expect(judge.limiter.limit).toBe(8)
  })
})
