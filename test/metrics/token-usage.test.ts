// One token-usage shape per layer: judges count JudgeUsage, verdicts carry TokenUsage, and
// tokenUsageOf is the one conversion; cassettes and batch results validate with the judges' schema.
import { describe, expect, it } from 'vitest'
import { cassetteSchemas } from '../../src/cassette/store'
import { batchSchemas } from '../../src/judges/batch/queue'
import { JudgeUsageSchema } from '../../src/judges/usage'
import { JudgeOutputError } from '../../src/judges/errors'
import type { JudgeResponse } from '../../src/judges/types'
import { judgeInfo, tokenUsageOf } from '../../src/metrics/judge-calls'
import { JudgeInfoSchema, TokenUsageSchema } from '../../src/verdict/verdict'

describe('tokenUsageOf', () => {
  it('sums every call behind a verdict, counting a call without counts as 0', () => {
    expect(tokenUsageOf([])).toEqual({ input: 0, output: 0 })
    expect(tokenUsageOf([undefined])).toEqual({ input: 0, output: 0 })
    expect(
      tokenUsageOf([{ inputTokens: 1200, outputTokens: 80 }, undefined, { inputTokens: 5, outputTokens: 7 }]),
    ).toEqual({ input: 1205, output: 87 })
  })

  it('gives exactly the verdict contract shape (no judge-side keys leak into a report)', () => {
    const usage = tokenUsageOf([{ inputTokens: 3, outputTokens: 4, extra: 1 } as never])
    expect(Object.keys(usage).sort()).toEqual(['input', 'output'])
    expect(TokenUsageSchema.strict().parse(usage)).toEqual({ input: 3, output: 4 })
    expect(JudgeInfoSchema.shape.tokens).toBe(TokenUsageSchema)
  })
})

describe('JudgeUsageSchema is the one judge-side schema', () => {
  it('is what cassette entries and batch results validate with', () => {
    expect(cassetteSchemas().entry.shape.usage).toBe(JudgeUsageSchema)
    expect(batchSchemas().result.shape.usage.unwrap()).toBe(JudgeUsageSchema)
  })

  it.each([
    [{ inputTokens: -1, outputTokens: 0 }],
    [{ inputTokens: 1.5, outputTokens: 0 }],
    [{ inputTokens: '10', outputTokens: 0 }],
    [{ input: 10, output: 0 }],
  ])('refuses %j', (usage) => {
    expect(JudgeUsageSchema.safeParse(usage).success).toBe(false)
  })
})

describe('judgeInfo: cached only when nothing was asked live', () => {
  const who = { provider: 'fake', model: 'judge-1', promptVersion: 'v1', latencyMs: 1 }
  const response = (cached: boolean) =>
    ({
      output: {},
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: null,
      latencyMs: 1,
      cached,
    }) as unknown as JudgeResponse<unknown>
  const failed = (replayed: boolean) => {
    const error = new JudgeOutputError('no verdict', { provider: 'fake', model: 'judge-1', raw: 'garbage' })
    if (replayed) error.replayed = true
    return error
  }

  it.each([
    ['every response replayed', [response(true)], [], true],
    ['a replayed unjudgeable sample beside replayed responses (decision 0043)', [response(true)], [failed(true)], true],
    ['only replayed unjudgeable samples', [], [failed(true), failed(true)], true],
    ['a live response', [response(true), response(false)], [], false],
    ['a sample that failed live', [response(true)], [failed(false)], false],
    ['nothing at all', [], [], false],
  ])('%s → %s', (_, responses, errors, cached) => {
    expect(judgeInfo({ ...who, responses, errors }).cached).toBe(cached)
  })
})
