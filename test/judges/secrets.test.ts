// No API key or Authorization header may leak into an error message, a cause, or an unjudgeable cause.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { APIConnectionError, BadRequestError } from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { classifyJudgeError } from '../../src/judges/classify-error'
import { JudgeError } from '../../src/judges/errors'
import { callJudge } from '../../src/judges/judge-call'
import { openaiJudge } from '../../src/judges/openai'
import { scrubSecrets } from '../../src/config/secrets'
import { likertRequest, recordingSleep } from './helpers'

const PLANTED = 'sk-planted-7f3c9a1e5b2d4c6e8f0a1b2c3d4e5f6a'
const API = 'https://api.openai.test/v1'
let status = 400

// A hostile server that echoes the request's Authorization header back in its error body.
const server = setupServer(
  http.post(`${API}/chat/completions`, ({ request }) =>
    HttpResponse.json(
      {
        error: {
          message: `Invalid request. Headers: {"Authorization":"${request.headers.get('authorization')}","x-api-key":"${PLANTED}"}`,
          type: 'invalid_request_error',
        },
      },
      { status },
    ),
  ),
)

let savedKey: string | undefined
beforeAll(() => {
  savedKey = process.env.OPENAI_API_KEY
  process.env.OPENAI_API_KEY = PLANTED
  server.listen({ onUnhandledRequest: 'error' })
})
afterEach(() => {
  status = 400
})
afterAll(() => {
  server.close()
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY
  else process.env.OPENAI_API_KEY = savedKey
})

/** Every string a user could see from an error. */
function everything(err: JudgeError): string {
  const cause = err.cause as Error | undefined
  return [
    err.message,
    String(err),
    err.stack,
    cause?.message,
    cause?.stack,
    String(cause),
    JSON.stringify(err),
    JSON.stringify(cause),
  ].join('\n')
}

describe('secrets never leak', () => {
  it('scrubs the planted env key and the echoed Authorization header from a 400 (openai client built from OPENAI_API_KEY)', async () => {
    const judge = openaiJudge({ model: 'gpt-4.1', baseURL: API, provider: 'openai' })
    const err = await judge.evaluate(likertRequest()).catch((e) => e)
    expect(err).toBeInstanceOf(JudgeError)
    const text = everything(err)
    expect(text).toContain('Invalid request') // the useful part survives
    expect(text).not.toContain(PLANTED)
    expect(text).not.toContain('planted-7f3c')
    expect(text).not.toMatch(/Bearer sk-/)
  })

  it('scrubs the unjudgeable cause of callJudge after retries of a 500', async () => {
    status = 500
    const { sleep } = recordingSleep()
    const judge = openaiJudge({
      model: 'gpt-4.1',
      baseURL: API,
      provider: 'openai',
      maxWaitMs: 5_000,
      retry: { sleep, random: () => 1 },
    })
    const result = await callJudge(judge, likertRequest())
    expect(result.status).toBe('unjudgeable')
    if (result.status !== 'unjudgeable') return
    expect(result.cause).toContain('500')
    expect(result.cause).not.toContain(PLANTED)
    expect(everything(result.error)).not.toContain(PLANTED)
  })

  it('scrubs a key passed in code (not from the env) and SDK errors that embed request headers', () => {
    const inCode = 'sk-proj-inlinekey-000111222333444555'
    openaiJudge({ model: 'gpt-4.1', apiKey: inCode }) // registers the key for scrubbing
    const embedded = new APIConnectionError({
      message: `Connection error. request headers: { authorization: 'Bearer ${inCode}', 'x-stainless-os': 'Linux' }`,
      cause: new Error(`socket closed while sending Authorization: Bearer ${inCode}`),
    })
    const bad = new BadRequestError(400, { message: `key ${inCode} is not allowed` }, undefined, new Headers())
    for (const raw of [embedded, bad]) {
      const text = everything(classifyJudgeError(raw, { provider: 'openai', model: 'gpt-4.1' }))
      expect(text).not.toContain(inCode)
      expect(text).not.toContain('inlinekey')
    }
  })

  it('scrubs AWS keys and SigV4 signatures', () => {
    const text = scrubSecrets(
      'Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260301/us-east-1/bedrock/aws4_request, Signature=deadbeef0123',
    )
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE')
    expect(text).not.toContain('deadbeef0123')
  })
})
