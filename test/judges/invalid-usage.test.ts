// Issue 33 classes 11 and 13 at the source: token counts a judge reports that are not counts (-1, "12", 1e308,
// NaN). A direct call's reply is then no verdict (readUsage names the field; class 11); counts read from a batch
// file mark the usage invalid and the cost unknown (usageFromCounts), never a silent 0 or a negative cost.
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bedrockJudge } from '../../src/judges/bedrock'
import { openaiJudge } from '../../src/judges/openai'
import { usageFromCounts } from '../../src/judges/usage'
import { tokenUsageOf } from '../../src/metrics/judge-calls'
import { completion, likertRequest } from './helpers'

const OPENAI = ['prompt_tokens', 'completion_tokens'] as const

describe('usageFromCounts', () => {
  const invalid: Array<[string, unknown, string]> = [
    ['a negative count', { prompt_tokens: 10, completion_tokens: -1 }, 'completion_tokens: -1'],
    ['a string count', { prompt_tokens: '1200', completion_tokens: 5 }, 'prompt_tokens: "1200"'],
    ['1e308', { prompt_tokens: 10, completion_tokens: 1e308 }, 'completion_tokens: 1e+308'],
    ['NaN', { prompt_tokens: Number.NaN, completion_tokens: 5 }, 'prompt_tokens: NaN'],
    ['Infinity', { prompt_tokens: 10, completion_tokens: Number.POSITIVE_INFINITY }, 'completion_tokens: Infinity'],
    ['a fraction', { prompt_tokens: 10.5, completion_tokens: 5 }, 'prompt_tokens: 10.5'],
    ['an object', { prompt_tokens: { n: 1 }, completion_tokens: 5 }, 'prompt_tokens: [object Object]'],
    ['usage as a string', 'lots', 'usage: not an object (string)'],
    ['usage as an array', [1, 2], 'usage: not an object (object)'],
  ]
  it.each(invalid)('%s: the count reads 0 and the usage is marked invalid', (_what, counts, note) => {
    const usage = usageFromCounts(counts, OPENAI)
    expect(usage.invalid).toBe(note)
    expect(usage.inputTokens).toBeGreaterThanOrEqual(0)
    expect(usage.outputTokens).toBeGreaterThanOrEqual(0)
    expect(tokenUsageOf([usage, { inputTokens: 1, outputTokens: 1 }]).invalid).toBe(`the judge reported ${note}`)
  })

  it('controls: real counts, 0, and missing counts (read as 0, as before) are valid', () => {
    expect(usageFromCounts({ prompt_tokens: 1200, completion_tokens: 80 }, OPENAI)).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
    })
    expect(usageFromCounts({ prompt_tokens: 0 }, OPENAI)).toEqual({ inputTokens: 0, outputTokens: 0 })
    expect(usageFromCounts(undefined, OPENAI)).toEqual({ inputTokens: 0, outputTokens: 0 })
    expect(tokenUsageOf([{ inputTokens: 3, outputTokens: 4 }])).toEqual({ input: 3, output: 4 })
  })
})

describe('openaiJudge with a reply whose usage is not counts', () => {
  const API = 'https://api.openai.test/v1'
  let usage: Record<string, unknown> = {}
  const server = setupServer(
    http.post(`${API}/chat/completions`, () =>
      HttpResponse.json({
        ...completion(JSON.stringify({ reasoning: 'Both shapes are named.', score: 4, category: null })),
        usage,
      }),
    ),
  )
  let client: OpenAI
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' })
    client = new OpenAI({ apiKey: 'sk-test-0123456789abcdef', baseURL: API })
  })
  afterAll(() => server.close())

  it.each([
    ['completion_tokens -1', { prompt_tokens: 1200, completion_tokens: -1, total_tokens: 1199 }],
    ['string counts', { prompt_tokens: '1200', completion_tokens: '80' }],
    ['1e308', { prompt_tokens: 1e308, completion_tokens: 80 }],
  ])('%s: no verdict, and the error names the field', async (_w, u) => {
    usage = u
    await expect(openaiJudge({ model: 'gpt-4.1', client, maxAttempts: 1 }).evaluate(likertRequest())).rejects.toThrow(
      /usage\.(prompt|completion)_tokens is .*not a token count/,
    )
  })

  it('control: valid counts are priced', async () => {
    usage = { prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 }
    const res = await openaiJudge({ model: 'gpt-4.1', client }).evaluate(likertRequest())
    expect(res.usage).toEqual({ inputTokens: 1_000_000, outputTokens: 0 })
    expect(res.costUsd).toBe(2)
  })
})

describe('bedrockJudge with a Converse reply whose usage is not counts', () => {
  let usage: Record<string, unknown> = {}
  const server = setupServer(
    http.post('https://bedrock-runtime.:region.amazonaws.com/model/:modelId/converse', () =>
      HttpResponse.json({
        output: {
          message: {
            role: 'assistant',
            content: [
              { toolUse: { toolUseId: 't1', name: 'overall_quality', input: { reasoning: 'Right.', score: 5 } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage,
        metrics: { latencyMs: 900 },
      }),
    ),
  )
  let client: BedrockRuntimeClient
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' })
    client = new BedrockRuntimeClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    })
  })
  afterAll(() => server.close())

  it('outputTokens -1: no verdict, and the error names the field', async () => {
    usage = { inputTokens: 1500, outputTokens: -1, totalTokens: 1499 }
    await expect(bedrockJudge({ client, maxAttempts: 1 }).evaluate(likertRequest())).rejects.toThrow(
      /usage\.outputTokens is -1, not a token count/,
    )
  })

  it('control: valid counts are priced', async () => {
    usage = { inputTokens: 1_000_000, outputTokens: 0, totalTokens: 1_000_000 }
    const res = await bedrockJudge({ client }).evaluate(likertRequest())
    expect(res.usage).toEqual({ inputTokens: 1_000_000, outputTokens: 0 })
    expect(res.costUsd).toBe(3)
  })
})
