// The Bedrock provider against the real Converse client (NodeHttpHandler), with msw standing in for AWS.
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { bedrockJudge } from '../../src/judges/bedrock'
import { JudgeAuthError, JudgeOutputError, JudgeRequestError } from '../../src/judges/errors'
import { likertRequest, recordingSleep, shapesPng } from './helpers'

const requests: Array<{ url: string; body: any; headers: Headers }> = []
let replies: Array<() => Response> = []

const server = setupServer(
  http.post('https://bedrock-runtime.:region.amazonaws.com/model/:modelId/converse', async ({ request }) => {
    requests.push({ url: request.url, body: await request.json(), headers: request.headers })
    const next = replies.shift()
    if (!next) throw new Error('test bug: no scripted reply left')
    return next()
  }),
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
afterEach(() => {
  requests.length = 0
  replies = []
})
afterAll(() => server.close())

const toolReply =
  (input: unknown, usage = { inputTokens: 1500, outputTokens: 120 }) =>
  () =>
    HttpResponse.json({
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'overall_quality', input } }],
        },
      },
      stopReason: 'tool_use',
      usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
      metrics: { latencyMs: 900 },
    })
const awsError =
  (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json(
      { message },
      {
        status,
        headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, ...headers },
      },
    )

describe('bedrockJudge', () => {
  it('forces the verdict tool, sends image bytes, and reads the tool input and usage back', async () => {
    replies = [toolReply({ reasoning: 'Both shapes are right.', score: 5 })]
    const judge = bedrockJudge({ client })
    const res = await judge.evaluate(likertRequest())

    expect(judge.id).toBe('bedrock:global.anthropic.claude-sonnet-4-6')
    expect(res.output).toEqual({ reasoning: 'Both shapes are right.', score: 5 })
    expect(res.usage).toEqual({ inputTokens: 1500, outputTokens: 120 })
    expect(res.costUsd).toBeCloseTo((1500 * 3 + 120 * 15) / 1e6, 12)
    expect(res.attempts).toBe(1)

    const { url, body, headers } = requests[0]
    expect(decodeURIComponent(url)).toContain('/model/global.anthropic.claude-sonnet-4-6/converse')
    expect(headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKE\//)
    expect(body.system).toEqual([{ text: likertRequest().system }])
    expect(body.inferenceConfig.temperature).toBe(0)
    expect(body.toolConfig.toolChoice).toEqual({ tool: { name: 'overall_quality' } })
    const spec = body.toolConfig.tools[0].toolSpec
    expect(spec.name).toBe('overall_quality')
    expect(Object.keys(spec.inputSchema.json.properties)).toEqual(['reasoning', 'score', 'category'])
    expect(spec.inputSchema.json.properties.score).toMatchObject({ minimum: 1, maximum: 5 })

    const [text, image] = body.messages[0].content
    expect(body.messages[0].role).toBe('user')
    expect(text.text).toContain('Describe the shapes')
    expect(image.image.format).toBe('png')
    expect(Buffer.from(image.image.source.bytes, 'base64').equals(shapesPng)).toBe(true)
  })

  it('retries a ThrottlingException and a ServiceUnavailableException, then succeeds', async () => {
    const { waits, sleep } = recordingSleep()
    replies = [
      awsError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
      awsError(503, 'ServiceUnavailableException', 'Service unavailable'),
      toolReply({ reasoning: 'ok', score: 3 }),
    ]
    const res = await bedrockJudge({ client, retry: { sleep, random: () => 0.5 } }).evaluate(likertRequest())
    expect(res.output.score).toBe(3)
    expect(res.attempts).toBe(3)
    expect(requests).toHaveLength(3) // maxAttempts: 1 on the client; our loop made all three
    expect(waits).toEqual([250, 500]) // full jitter at random()=0.5 of the 0.5 s and 1 s caps
  })

  it('does not retry AccessDenied or ValidationException', async () => {
    replies = [
      awsError(403, 'AccessDeniedException', 'You do not have access to the model with the specified model ID.'),
    ]
    await expect(bedrockJudge({ client }).evaluate(likertRequest())).rejects.toBeInstanceOf(JudgeAuthError)
    replies = [awsError(400, 'ValidationException', 'The provided model identifier is invalid.')]
    await expect(bedrockJudge({ client, model: 'anthropic.nope' }).evaluate(likertRequest())).rejects.toBeInstanceOf(
      JudgeRequestError,
    )
    expect(requests).toHaveLength(2)
  })

  it('rejects an out-of-range tool input as a JudgeOutputError after one re-ask', async () => {
    const { sleep } = recordingSleep()
    replies = [toolReply({ reasoning: 'x', score: 0 }), toolReply({ reasoning: 'x', score: 0 })]
    const err = await bedrockJudge({ client, retry: { sleep } })
      .evaluate(likertRequest())
      .catch((e) => e)
    expect(err).toBeInstanceOf(JudgeOutputError)
    expect(err.excerpt).toContain('"score":0')
    expect(requests).toHaveLength(2)
  })

  it('builds its own client from AWS_DEFAULT_REGION and the env credentials, with SDK retries off', async () => {
    // The default client speaks HTTP/2, which msw cannot intercept: swap only the transport.
    const keys = [
      'AWS_REGION',
      'AWS_DEFAULT_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_PROFILE',
    ] as const
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]))
    delete process.env.AWS_REGION
    delete process.env.AWS_PROFILE
    Object.assign(process.env, {
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIAFAKE',
      AWS_SECRET_ACCESS_KEY: 'fake',
    })
    try {
      const { sleep } = recordingSleep()
      replies = [awsError(500, 'InternalServerException', 'internal'), toolReply({ reasoning: 'ok', score: 4 })]
      const res = await bedrockJudge({
        retry: { sleep },
        clientConfig: { requestHandler: new NodeHttpHandler() },
      }).evaluate(likertRequest())
      expect(res.output.score).toBe(4)
      expect(res.attempts).toBe(2)
      expect(requests).toHaveLength(2) // the SDK's own retry (maxAttempts 3 by default) would have made more
      expect(new URL(requests[0].url).hostname).toBe('bedrock-runtime.eu-west-1.amazonaws.com')
    } finally {
      for (const k of keys) {
        if (saved[k] === undefined) delete process.env[k]
        else process.env[k] = saved[k]
      }
    }
  })
})

describe('bedrockJudge countTokens (prompt budgets in Claude tokens)', () => {
  const counted: any[] = []
  let countReply: () => Response = () => HttpResponse.json({ inputTokens: 4321 })
  beforeAll(() => {
    server.use(
      http.post(
        'https://bedrock-runtime.:region.amazonaws.com/model/:modelId/count-tokens',
        async ({ request, params }) => {
          counted.push({ modelId: params.modelId, body: await request.json() })
          return countReply()
        },
      ),
    )
  })

  it('asks CountTokens with the Converse shape of the prompt and returns its count', async () => {
    counted.length = 0
    countReply = () => HttpResponse.json({ inputTokens: 4321 })
    const judge = bedrockJudge({ client })
    const n = await judge.countTokens('You judge spans.', 'span text <|endoftext|> and more')
    expect(n).toBe(4321)
    expect(decodeURIComponent(counted[0].modelId)).toBe('global.anthropic.claude-sonnet-4-6')
    expect(counted[0].body).toEqual({
      input: {
        converse: {
          system: [{ text: 'You judge spans.' }],
          messages: [{ role: 'user', content: [{ text: 'span text <|endoftext|> and more' }] }],
        },
      },
    })
  })

  it('budgets use it, and fall back to o200k × margin when the API refuses (e.g. no access in this region)', async () => {
    const { promptTokenCounter, loadO200k, CLAUDE_O200K_MARGIN } = await import('../../src/judges/tokenizer')
    const judge = bedrockJudge({ client })
    countReply = () => HttpResponse.json({ inputTokens: 77 })
    const count = await promptTokenCounter(judge)
    expect(await count('sys', 'user')).toBe(77)
    countReply = awsError(403, 'AccessDeniedException', 'not authorized to perform bedrock:CountTokens')
    const o200k = await loadO200k()
    expect(await count('sys', 'user text')).toBe(Math.ceil((o200k('sys') + o200k('user text')) * CLAUDE_O200K_MARGIN))
  })
})
