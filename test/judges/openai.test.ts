// The OpenAI provider against the real `openai` SDK client, with msw standing in for the API.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { JudgeAuthError, JudgeConfigError, JudgeOutputError } from '../../src/judges/errors'
import { openaiJudge } from '../../src/judges/openai'
import { completion, likertRequest, recordingSleep, shapesPng } from './helpers'

const API = 'https://api.openai.test/v1'
const bodies: any[] = []
const headers: Headers[] = []
let replies: Array<() => Response> = []

const server = setupServer(
  http.post(`${API}/chat/completions`, async ({ request }) => {
    bodies.push(await request.json())
    headers.push(request.headers)
    const next = replies.shift()
    if (!next) throw new Error('test bug: no scripted reply left')
    return next()
  }),
)

let client: OpenAI
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' })
  // Created after listen() so the SDK's fetch goes through msw.
  client = new OpenAI({ apiKey: 'sk-test-0123456789abcdef', baseURL: API })
})
afterEach(() => {
  bodies.length = 0
  headers.length = 0
  replies = []
})
afterAll(() => server.close())

const ok = (content: string, usage?: { prompt_tokens: number; completion_tokens: number }) => () =>
  HttpResponse.json(completion(content, usage))
const verdict = JSON.stringify({ reasoning: 'Both shapes are named correctly.', score: 4, category: null })

describe('openaiJudge', () => {
  it('sends a strict json_schema with reasoning before score, the image as a data URL, temperature 0; reads usage back', async () => {
    replies = [ok(verdict, { prompt_tokens: 1200, completion_tokens: 80 })]
    const judge = openaiJudge({ model: 'gpt-4.1', client })
    const res = await judge.evaluate(likertRequest())

    expect(res.output).toEqual({ reasoning: 'Both shapes are named correctly.', score: 4 })
    expect(res.usage).toEqual({ inputTokens: 1200, outputTokens: 80 })
    expect(res.costUsd).toBeCloseTo((1200 * 2 + 80 * 8) / 1e6, 12)
    expect(res).toMatchObject({ provider: 'openai', model: 'gpt-4.1', attempts: 1, cached: false })
    expect(judge.id).toBe('openai:gpt-4.1')

    const body = bodies[0]
    expect(body.model).toBe('gpt-4.1')
    expect(body.temperature).toBe(0)
    expect(body.response_format.type).toBe('json_schema')
    const { json_schema } = body.response_format
    expect(json_schema).toMatchObject({ name: 'overall_quality', strict: true })
    expect(Object.keys(json_schema.schema.properties)).toEqual(['reasoning', 'score', 'category'])
    expect(json_schema.schema.required).toEqual(['reasoning', 'score', 'category'])
    expect(json_schema.schema.additionalProperties).toBe(false)
    expect(json_schema.schema.properties.score).toMatchObject({ type: 'integer', minimum: 1, maximum: 5 })
    expect(json_schema.schema.properties.category.anyOf).toContainEqual({ type: 'null' })

    expect(body.messages[0]).toEqual({ role: 'system', content: likertRequest().system })
    const [text, image] = body.messages[1].content
    expect(text.type).toBe('text')
    expect(image.type).toBe('image_url')
    const url: string = image.image_url.url
    expect(url.startsWith('data:image/png;base64,')).toBe(true)
    expect(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64').equals(shapesPng)).toBe(true)
    expect(headers[0].get('authorization')).toBe('Bearer sk-test-0123456789abcdef')
  })

  it('omits temperature for reasoning models and uses max_completion_tokens', async () => {
    replies = [ok(verdict)]
    await openaiJudge({ model: 'o4-mini', client }).evaluate(likertRequest({ maxOutputTokens: 500 }))
    expect(bodies[0]).not.toHaveProperty('temperature')
    // Its hidden reasoning counts against the bound: a verdict's own 500 would cut the reply before it starts.
    expect(bodies[0].max_completion_tokens).toBe(16_384)
    replies = [ok(verdict)]
    await openaiJudge({ model: 'o4-mini', client, maxOutputTokens: 500 }).evaluate(
      likertRequest({ maxOutputTokens: 900 }),
    )
    // The user's bound wins, over the request's and the reasoning floor.
    expect(bodies[1].max_completion_tokens).toBe(500)
  })

  it('drops temperature and asks again when the model rejects it', async () => {
    replies = [
      () =>
        HttpResponse.json(
          {
            error: {
              message: "Unsupported value: 'temperature' does not support 0 with this model.",
              type: 'invalid_request_error',
              param: 'temperature',
              code: 'unsupported_value',
            },
          },
          { status: 400 },
        ),
      ok(verdict),
    ]
    const res = await openaiJudge({ model: 'gpt-4o-search-preview', client }).evaluate(likertRequest())
    expect(res.output.score).toBe(4)
    expect(bodies[0].temperature).toBe(0)
    expect(bodies[1]).not.toHaveProperty('temperature')
  })

  it('retries a 429 after the retry-after the server sent, with the SDK retries disabled', async () => {
    const { waits, sleep } = recordingSleep()
    replies = [
      () =>
        HttpResponse.json(
          { error: { message: 'Rate limit reached', type: 'requests' } },
          { status: 429, headers: { 'retry-after': '0.2' } },
        ),
      ok(verdict),
    ]
    const res = await openaiJudge({ model: 'gpt-4.1', client, retry: { sleep } }).evaluate(likertRequest())
    expect(res.attempts).toBe(2)
    expect(bodies).toHaveLength(2) // the SDK did not retry on its own
    expect(waits).toEqual([200])
  })

  it('re-asks once after an out-of-range score, then fails with a JudgeOutputError holding an excerpt', async () => {
    const { sleep } = recordingSleep()
    const bad = JSON.stringify({ reasoning: 'Great.', score: 9, category: null })
    replies = [ok(bad), ok(bad)]
    const err = await openaiJudge({ model: 'gpt-4.1', client, retry: { sleep } })
      .evaluate(likertRequest())
      .catch((e) => e)
    expect(err).toBeInstanceOf(JudgeOutputError)
    expect(err.message).toMatch(/score/)
    expect(err.excerpt).toContain('"score":9')
    expect(err.attempts).toBe(2)
    expect(bodies).toHaveLength(2)
  })

  it('does not retry rejected credentials and never echoes the key', async () => {
    replies = [
      () =>
        HttpResponse.json(
          {
            error: {
              message: 'Incorrect API key provided: sk-test-0123456789abcdef.',
              type: 'invalid_request_error',
              code: 'invalid_api_key',
            },
          },
          { status: 401 },
        ),
    ]
    const err = await openaiJudge({ model: 'gpt-4.1', client })
      .evaluate(likertRequest())
      .catch((e) => e)
    expect(err).toBeInstanceOf(JudgeAuthError)
    expect(bodies).toHaveLength(1)
    expect(err.message).not.toContain('sk-test-0123456789abcdef')
    expect(String(err.cause?.message)).not.toContain('sk-test-0123456789abcdef')
  })

  it('creates its client lazily and reports a missing OPENAI_API_KEY as a configuration error', async () => {
    const saved = process.env.OPENAI_API_KEY
    delete process.env.OPENAI_API_KEY
    try {
      const judge = openaiJudge({ model: 'gpt-4.1' }) // constructing without a key is fine (cassette replay)
      const err = await judge.evaluate(likertRequest()).catch((e) => e)
      expect(err).toBeInstanceOf(JudgeConfigError)
      expect(err.message).toContain('OPENAI_API_KEY')
      expect(err.message).toContain('AGENT_VERDICT_JUDGE')
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved
    }
  })
  it('takes an empty or blank OPENAI_API_KEY for no key and says it is empty, instead of sending it', async () => {
    const saved = process.env.OPENAI_API_KEY
    try {
      for (const blank of ['', '   ', '\n']) {
        process.env.OPENAI_API_KEY = blank
        const err = await openaiJudge({ model: 'gpt-4.1' })
          .evaluate(likertRequest())
          .catch((e) => e)
        expect(err).toBeInstanceOf(JudgeConfigError)
        expect(err.message).toContain('OPENAI_API_KEY (or apiKey) is set but empty')
      }
      expect(bodies).toHaveLength(0)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })
})

describe('openaiJudge with an OpenAI-compatible server (baseURL)', () => {
  it('works without an API key, accepts a reply that is one fenced json block and uses max_tokens', async () => {
    replies = [ok('```json\n' + verdict + '\n```')]
    const judge = openaiJudge({ model: 'llama3.2-vision', baseURL: API })
    const res = await judge.evaluate(likertRequest({ maxOutputTokens: 300 }))
    expect(judge.id).toBe('openai-compatible:llama3.2-vision')
    expect(res.output.score).toBe(4)
    expect(res.costUsd).toBeNull()
    expect(bodies[0].max_tokens).toBe(300)
  })

  it('works with an empty OPENAI_API_KEY too (a blank line in .env): the placeholder key is sent, not an empty one', async () => {
    const saved = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = ''
    try {
      replies = [ok(verdict)]
      const res = await openaiJudge({ model: 'llama3.2-vision', baseURL: API }).evaluate(likertRequest())
      expect(res.output.score).toBe(4)
      expect(headers[0].get('authorization')).toBe('Bearer not-needed')
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })

  it('sends a key read with surrounding whitespace (a secrets file ending in a newline) trimmed', async () => {
    replies = [ok(verdict)]
    await openaiJudge({ model: 'llama3.2-vision', baseURL: API, apiKey: ' sk-gateway-0123456789\n' }).evaluate(
      likertRequest(),
    )
    expect(headers[0].get('authorization')).toBe('Bearer sk-gateway-0123456789')
  })

  it('re-asks once when the verdict is wrapped in prose, then gives up with a JudgeOutputError', async () => {
    const wrapped = ok('Here is my verdict:\n```json\n' + verdict + '\n```')
    replies = [wrapped, wrapped]
    const judge = openaiJudge({ model: 'llama3.2-vision', baseURL: API, retry: recordingSleep() })
    await expect(judge.evaluate(likertRequest())).rejects.toThrow(JudgeOutputError)
    expect(bodies).toHaveLength(2)
  })

  describe('reply shapes some compatible servers send', () => {
    const withMessage =
      (message: Record<string, unknown>, extra: Array<Record<string, unknown>> = []) =>
      () => {
        const body = completion('') as { choices: Array<Record<string, unknown>> }
        body.choices = [{ ...body.choices[0], message: { role: 'assistant', refusal: null, ...message } }, ...extra]
        return HttpResponse.json(body)
      }
    const judge = () => openaiJudge({ model: 'm', baseURL: API, retry: recordingSleep() })

    it('content as an array of text parts is the reply they join to', async () => {
      replies = [
        withMessage({
          content: [
            { type: 'text', text: verdict.slice(0, 20) },
            { type: 'text', text: verdict.slice(20) },
          ],
        }),
      ]
      expect((await judge().evaluate(likertRequest())).output).toMatchObject({ score: 4 })
    })

    it('content of another type, or tool calls instead of a reply, is no verdict, said as such', async () => {
      replies = [withMessage({ content: { verdict: 'pass' } }), withMessage({ content: { verdict: 'pass' } })]
      await expect(judge().evaluate(likertRequest())).rejects.toThrow(
        /replied with message content of type object .*a verdict is text/,
      )
      const call = { id: 'c1', type: 'function', function: { name: 'verdict', arguments: verdict } }
      replies = [withMessage({ content: null, tool_calls: [call] }), withMessage({ content: null, tool_calls: [call] })]
      await expect(judge().evaluate(likertRequest())).rejects.toThrow(
        /replied with tool calls \(tool_calls\) .*no tool was offered/,
      )
    })

    it('a second choice that was refused or cut off makes the reply no verdict, though its text agrees', async () => {
      const second = (over: Record<string, unknown>) => ({
        index: 1,
        message: { role: 'assistant', content: verdict, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
        ...over,
      })
      replies = [
        withMessage({ content: verdict }, [
          second({ message: { role: 'assistant', content: verdict, refusal: 'no' } }),
        ]),
      ]
      await expect(judge().evaluate(likertRequest())).rejects.toThrow(/refused to judge/)
      replies = [withMessage({ content: verdict }, [second({ finish_reason: 'length' })])]
      await expect(judge().evaluate(likertRequest())).rejects.toThrow(/cut off at its length limit/)
    })
  })

  it('falls back to json_object with the schema in the prompt when json_schema is rejected', async () => {
    replies = [
      () =>
        HttpResponse.json(
          {
            error: {
              message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model",
              type: 'invalid_request_error',
            },
          },
          { status: 400 },
        ),
      ok(verdict),
      ok(verdict),
    ]
    const judge = openaiJudge({ model: 'llava', baseURL: API })
    expect((await judge.evaluate(likertRequest())).output.score).toBe(4)
    expect(bodies[0].response_format.type).toBe('json_schema')
    expect(bodies[1].response_format).toEqual({ type: 'json_object' })
    expect(bodies[1].messages[0].content).toContain('"reasoning"')
    // The judge remembers: the next call goes straight to json_object.
    await judge.evaluate(likertRequest())
    expect(bodies[2].response_format).toEqual({ type: 'json_object' })
  })
})
