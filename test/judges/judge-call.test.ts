// callJudge: self-consistency aggregation and the unjudgeable outcome. The judge here is a labelled
// test double that replays a fixed list of replies; real providers are covered in their own tests.
import { describe, expect, it } from 'vitest'
import { JudgeAbortError, JudgeConfigError, JudgeOutputError, JudgeServiceError } from '../../src/judges/errors'
import { callJudge } from '../../src/judges/judge-call'
import type { Judge, JudgeRequest, JudgeResponse } from '../../src/judges/types'
import { likertRequest, type Likert } from './helpers'

type Reply<T> = T | Error

function replayingJudge<T>(replies: Array<Reply<T>>) {
  let inFlight = 0
  let peak = 0
  const judge: Judge & { peak: () => number } = {
    id: 'test-double:replay',
    provider: 'test-double',
    model: 'replay',
    peak: () => peak,
    async evaluate<U>(_request: JudgeRequest<U>): Promise<JudgeResponse<U>> {
      const reply = replies.shift()
      inFlight++
      peak = Math.max(peak, inFlight)
      await new Promise((r) => setImmediate(r))
      inFlight--
      if (reply instanceof Error) throw reply
      return {
        output: reply as unknown as U,
        usage: { inputTokens: 10, outputTokens: 5 },
        latencyMs: 1,
        provider: 'test-double',
        model: 'replay',
        costUsd: null,
        cached: false,
        attempts: 1,
      }
    },
  }
  return judge
}
const likert = (score: number): Likert => ({ reasoning: `score ${score}`, score })
const ctx = { provider: 'test-double', model: 'replay' }

describe('callJudge', () => {
  it('returns the single reply without samples when samples = 1', async () => {
    const result = await callJudge(replayingJudge([likert(4)]), likertRequest())
    expect(result).toMatchObject({ status: 'ok', output: likert(4), disagreement: false })
    expect(result).not.toHaveProperty('samples')
  })

  it('takes the median of n concurrent samples and returns that sample’s reply', async () => {
    const judge = replayingJudge([likert(4), likert(2), likert(5)])
    const result = await callJudge(judge, likertRequest(), { samples: 3 })
    expect(judge.peak()).toBe(3)
    expect(result).toMatchObject({ status: 'ok', output: likert(4), samples: [4, 2, 5], disagreement: true })
    if (result.status === 'ok') expect(result.responses).toHaveLength(3)
  })

  it('uses the lower middle for an even count, so a split never rounds up', async () => {
    const result = await callJudge(replayingJudge([likert(5), likert(2), likert(4), likert(3)]), likertRequest(), {
      samples: 4,
    })
    expect(result).toMatchObject({ output: likert(3) })
  })

  it('takes the majority of binary verdicts; a tie goes to fail', async () => {
    const request = likertRequest() as unknown as JudgeRequest<{ reasoning: string; score: boolean }>
    const pass = (score: boolean) => ({ reasoning: String(score), score })
    const majority = await callJudge(replayingJudge([pass(true), pass(false), pass(true)]), request, { samples: 3 })
    expect(majority).toMatchObject({ output: pass(true), samples: [1, 0, 1], disagreement: true })
    const tie = await callJudge(replayingJudge([pass(true), pass(false)]), request, { samples: 2 })
    expect(tie).toMatchObject({ output: pass(false) })
  })

  it('reports agreement, and honours scoreOf and an explicit aggregate', async () => {
    const result = await callJudge(replayingJudge([likert(3), likert(3), likert(3)]), likertRequest(), {
      samples: 3,
      scoreOf: (o) => o.score >= 3,
      aggregate: 'majority',
    })
    expect(result).toMatchObject({ status: 'ok', samples: [1, 1, 1], disagreement: false })
  })

  it('turns a judge failure into unjudgeable with its cause instead of throwing', async () => {
    const failure = new JudgeOutputError(
      'test-double:replay returned an invalid verdict for overall-quality (score: Too big)',
      { ...ctx, raw: '{"score":9}' },
    )
    const result = await callJudge(replayingJudge<Likert>([failure]), likertRequest())
    expect(result).toEqual({ status: 'unjudgeable', error: failure, cause: failure.message })
  })

  it('wraps a non-JudgeError failure of a custom judge', async () => {
    const result = await callJudge(
      replayingJudge<Likert>([Object.assign(new Error('503 Service Unavailable'), { status: 503 })]),
      likertRequest(),
    )
    expect(result.status).toBe('unjudgeable')
    if (result.status === 'unjudgeable') expect(result.error).toBeInstanceOf(JudgeServiceError)
  })

  it('aggregates the samples that succeeded and keeps the errors of the rest', async () => {
    const failure = new JudgeServiceError('boom', ctx)
    const result = await callJudge(replayingJudge([likert(2), failure, likert(2)]), likertRequest(), { samples: 3 })
    expect(result).toMatchObject({ status: 'ok', samples: [2, 2], disagreement: false, errors: [failure] })
  })

  it('is unjudgeable without a strict majority of valid samples, and says how many failed', async () => {
    const bad = () =>
      new JudgeOutputError('replied with text that is not one JSON document', { ...ctx, raw: 'I think 5' })
    const one = await callJudge(replayingJudge([bad(), likert(5), bad()]), likertRequest(), { samples: 3 })
    expect(one).toMatchObject({ status: 'unjudgeable', sampleCount: { asked: 3, failed: 2 } })
    expect(one.status === 'unjudgeable' && one.cause).toMatch(/^only 1 of 3 samples gave a valid verdict \(2 failed/)
    // Half is not a majority either: 1 valid of 2.
    expect(await callJudge(replayingJudge([likert(5), bad()]), likertRequest(), { samples: 2 })).toMatchObject({
      status: 'unjudgeable',
      sampleCount: { asked: 2, failed: 1 },
    })
    const none = await callJudge(replayingJudge<Likert>([bad(), bad(), bad()]), likertRequest(), { samples: 3 })
    expect(none.status === 'unjudgeable' && none.cause).toMatch(/^none of 3 samples gave a valid verdict/)
  })

  it('a configuration error in one sample aborts the samples still in flight before it is thrown', async () => {
    const seen: Array<'aborted' | 'answered'> = []
    const judge: Judge = {
      id: 'test-double:slow',
      provider: 'test-double',
      model: 'slow',
      async evaluate<U>(_request: JudgeRequest<U>, signal?: AbortSignal): Promise<JudgeResponse<U>> {
        if (seen.length === 0) {
          seen.push('answered')
          throw new JudgeConfigError('no judge configured')
        }
        // The other samples wait for a reply that would come in 10 s, unless they are aborted.
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 10_000)
          signal?.addEventListener('abort', () => {
            clearTimeout(timer)
            seen.push('aborted')
            reject(new JudgeAbortError(ctx))
          })
        })
        seen.push('answered')
        throw new Error('unreachable: the sample was not aborted')
      },
    }
    await expect(callJudge(judge, likertRequest(), { samples: 3 })).rejects.toBeInstanceOf(JudgeConfigError)
    expect(seen).toEqual(['answered', 'aborted', 'aborted'])
  })

  it('throws configuration errors and aborts instead of hiding them as unjudgeable', async () => {
    const config = new JudgeConfigError('no judge configured')
    await expect(callJudge(replayingJudge<Likert>([config]), likertRequest())).rejects.toBe(config)
    const abort = new JudgeAbortError(ctx)
    await expect(callJudge(replayingJudge<Likert>([abort, likert(3)]), likertRequest(), { samples: 2 })).rejects.toBe(
      abort,
    )
  })

  it('asks for scoreOf when the reply has no score', async () => {
    const request = likertRequest() as unknown as JudgeRequest<{ label: string }>
    await expect(callJudge(replayingJudge([{ label: 'a' }, { label: 'b' }]), request, { samples: 2 })).rejects.toThrow(
      /pass scoreOf/,
    )
  })
})
