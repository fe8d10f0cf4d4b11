// The registry of secrets (decision 0017): every configured credential — header values, URL
// userinfo, keys in code, AWS credentials, AGENT_VERDICT_JUDGE options — is scrubbed, in every form.
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { rejectionOf } from '../helpers/rejection'
import { attachVerdicts } from '../../runner/attach-verdicts'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import { bedrockJudge } from '../../src/judges/bedrock'
import { defineJudge, parseJudgeSpec } from '../../src/judges/config'
import { JudgeConfigError, JudgeError, JudgeOutputError } from '../../src/judges/errors'
import { parseJudgeText } from '../../src/judges/parse-output'
import { openaiJudge } from '../../src/judges/openai'
import { redactUrl, registerHeaderSecrets, scrubDeep, scrubSecrets, urlCredentials } from '../../src/config/secrets'
import { completion, LikertSchema, likertRequest } from './helpers'

const API = 'https://gateway.secrets.test/v1'
let echoHeaders = false
const server = setupServer(
  // A gateway that quotes the request headers in its error body, or in the verdict's reasoning.
  http.post(`${API}/chat/completions`, ({ request }) => {
    const headers = JSON.stringify(Object.fromEntries(request.headers.entries()))
    if (echoHeaders) return HttpResponse.json({ error: { message: `forbidden, you sent ${headers}` } }, { status: 403 })
    return HttpResponse.json(completion(JSON.stringify({ reasoning: `headers were ${headers}`, score: 4 })))
  }),
  http.post('https://bedrock-runtime.:region.amazonaws.com/model/:modelId/converse', ({ request }) =>
    HttpResponse.json(
      { message: `denied: ${JSON.stringify(Object.fromEntries(request.headers.entries()))}` },
      { status: 403, headers: { 'x-amzn-errortype': 'AccessDeniedException' } },
    ),
  ),
)
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => {
  echoHeaders = false
})
afterAll(() => server.close())

function withEnv<T>(name: string, value: string, run: () => T): T {
  const saved = process.env[name]
  process.env[name] = value
  try {
    return run()
  } finally {
    if (saved === undefined) delete process.env[name]
    else process.env[name] = saved
  }
}

/** Everything a user could see from an error. */
function everything(err: JudgeError): string {
  const cause = err.cause as Error | undefined
  return [
    err.message,
    String(err),
    err.stack,
    cause?.message,
    cause?.stack,
    JSON.stringify(err),
    JSON.stringify(cause),
  ].join('\n')
}

describe('scrubSecrets', () => {
  it('removes registered header values, also JSON-escaped and URL-encoded', () => {
    const token = 'gw"tok/Ab3+Xy9=Qz'
    registerHeaderSecrets({ 'x-gateway-token': token, 'x-list': ['listed-value-1234'] })
    const text = `raw ${token} json ${JSON.stringify(token)} url ${encodeURIComponent(token)} list listed-value-1234`
    const out = scrubSecrets(text)
    expect(out).not.toContain('Ab3+Xy9')
    expect(out).not.toContain('Ab3%2BXy9')
    expect(out).not.toContain('listed-value-1234')
  })

  it('removes header dumps of gateway credentials it was never told about', () => {
    const out = scrubSecrets(
      '{"x-gateway-token":"unregistered9876","Ocp-Apim-Subscription-Key":"apim0123456789","x-request-id":"req-1"}',
    )
    expect(out).not.toContain('unregistered9876')
    expect(out).not.toContain('apim0123456789')
    expect(out).toContain('"x-request-id":"req-1"') // ordinary headers survive
  })

  it('removes URL userinfo and leaves token counts alone', () => {
    expect(scrubSecrets('POST http://bob:pw-12345@judge.local/v1 failed')).toBe(
      'POST http://[redacted]@judge.local/v1 failed',
    )
    expect(scrubSecrets('max_tokens: 4096000, inputTokens=1234567')).toBe('max_tokens: 4096000, inputTokens=1234567')
  })

  it('reads header values and userinfo in AGENT_VERDICT_JUDGE, so a reporter process scrubs them too', () => {
    const saved = process.env.AGENT_VERDICT_JUDGE
    process.env.AGENT_VERDICT_JUDGE =
      'openai-compatible:http://127.0.0.1:1/v1#m;header.x-team-credential=envheader-5150'
    try {
      expect(scrubSecrets('quoted envheader-5150 back')).toBe('quoted [redacted] back')
    } finally {
      if (saved === undefined) delete process.env.AGENT_VERDICT_JUDGE
      else process.env.AGENT_VERDICT_JUDGE = saved
    }
  })
})

describe('scrubDeep', () => {
  it('copies plain data with every string scrubbed, never mutating the input, and survives deep nesting', () => {
    registerHeaderSecrets({ 'x-k': 'deep-secret-000111' })
    const input = {
      reasoning: 'saw deep-secret-000111',
      evidence: ['a', 'deep-secret-000111'],
      score: 1,
      ok: true,
      none: null,
    }
    const out = scrubDeep(input)
    expect(out).toEqual({ reasoning: 'saw [redacted]', evidence: ['a', '[redacted]'], score: 1, ok: true, none: null })
    expect(input.reasoning).toBe('saw deep-secret-000111')
    let deep: unknown = 'deep-secret-000111'
    for (let i = 0; i < 20_000; i++) deep = [deep]
    let inner = scrubDeep(deep)
    for (let i = 0; i < 20_000; i++) inner = (inner as unknown[])[0]
    expect(inner).toBe('[redacted]')
  })
})

describe('URL credentials', () => {
  it('urlCredentials and redactUrl', () => {
    expect(urlCredentials('http://bob:s3cret%21pass@127.0.0.1:8080/v1')).toEqual({
      username: 'bob',
      password: 's3cret!pass',
    })
    expect(urlCredentials('http://127.0.0.1:8080/v1?x=a@b')).toBeUndefined()
    expect(redactUrl('https://u:p@host/v1')).toBe('https://[redacted]@host/v1')
  })

  it("a key in the query string (a gateway's ?subscription-key=…) is redacted from endpoints and registered", () => {
    expect(redactUrl('https://apim.test/v1?subscription-key=qs-secret-1a2b3c4d&x=1')).toBe(
      'https://apim.test/v1?subscription-key=[redacted]&x=[redacted]',
    )
    expect(redactUrl('judge at https://u:p@apim.test/v1 failed')).toBe(
      'judge at https://[redacted]@apim.test/v1 failed',
    )
    urlCredentials('https://apim.test/v1?key=qs-secret-9z8y7x6w')
    expect(scrubSecrets('the gateway echoed qs-secret-9z8y7x6w')).toBe('the gateway echoed [redacted]')
    // From AGENT_VERDICT_JUDGE, in every process (a reporter's too).
    withEnv('AGENT_VERDICT_JUDGE', 'openai-compatible:https://apim.test/v1?subscription-key=qs-env-5v4u3t2s#m', () =>
      expect(scrubSecrets('refused qs-env-5v4u3t2s')).toBe('refused [redacted]'),
    )
  })

  it('a header value with any scheme word (Token, Key…) registers its bare token too', () => {
    registerHeaderSecrets({
      Authorization: 'Token tok-value-77665544',
      'Proxy-Authorization': 'Key key-value-33221100',
    })
    expect(scrubSecrets('quoted tok-value-77665544 and key-value-33221100')).toBe('quoted [redacted] and [redacted]')
  })

  it.each([
    [
      'AGENT_VERDICT_JUDGE',
      () => parseJudgeSpec('openai-compatible:http://judge-user:spec-pass-4242@127.0.0.1:1/v1#m'),
    ],
    [
      'defineJudge',
      () =>
        defineJudge({
          provider: 'openai-compatible',
          baseURL: 'http://judge-user:define-pass-4242@127.0.0.1:1/v1',
          model: 'm',
        }),
    ],
    ['openaiJudge', () => openaiJudge({ model: 'm', baseURL: 'http://judge-user:code-pass-4242@127.0.0.1:1/v1' })],
    [
      'a client built elsewhere',
      () =>
        openaiJudge({
          model: 'm',
          client: new OpenAI({ apiKey: 'x', baseURL: 'http://judge-user:client-pass-4242@127.0.0.1:1/v1' }),
        }),
    ],
    [
      'OPENAI_BASE_URL',
      () =>
        withEnv('OPENAI_BASE_URL', 'http://judge-user:envurl-pass-4242@127.0.0.1:1/v1', () =>
          openaiJudge({ model: 'm' }),
        ),
    ],
  ])('%s refuses a base URL with user:password up front, without echoing it', (_, build) => {
    let error: unknown
    try {
      build()
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(JudgeConfigError)
    const err = error as JudgeConfigError
    expect(err.retryable).toBe(false)
    expect(err.message).toContain('contains credentials (user:password@)')
    expect(err.message).toContain('http://[redacted]@127.0.0.1:1/v1')
    expect(everything(err)).not.toMatch(/pass-4242|judge-user/)
  })
})

describe('AGENT_VERDICT_JUDGE options', () => {
  it('parses timeout, retry budget, concurrency and headers', () => {
    expect(parseJudgeSpec('openai:gpt-4.1;timeout=20s;retry=1.5m;concurrency=4')).toEqual({
      provider: 'openai',
      model: 'gpt-4.1',
      timeoutMs: 20_000,
      maxWaitMs: 90_000,
      concurrency: 4,
    })
    expect(
      parseJudgeSpec(
        'openai-compatible:http://127.0.0.1:1/v1?api-version=1#m;timeout=1500ms;header.Ocp-Apim-Subscription-Key=k-123456789',
      ),
    ).toEqual({
      provider: 'openai-compatible',
      baseURL: 'http://127.0.0.1:1/v1?api-version=1',
      model: 'm',
      timeoutMs: 1500,
      headers: { 'Ocp-Apim-Subscription-Key': 'k-123456789' },
    })
  })

  it.each([
    ['openai:gpt-4.1;timeout=20', /timeout=20 needs a duration with a unit/],
    ['openai:gpt-4.1;retries=3', /unknown option "retries"; accepted: timeout=DURATION/],
    ['openai:gpt-4.1;concurrency=0', /concurrency=0 needs a positive integer/],
    ['bedrock;header.x-a=abcdefgh', /header.NAME=VALUE is for openai/],
  ])('rejects %s saying what to write', (spec, why) => {
    expect(() => parseJudgeSpec(spec)).toThrow(why)
  })

  it.each([
    [
      "an unknown option's value",
      'openai-compatible:http://127.0.0.1:1/v1#m;key=opt-secret-1234',
      /unknown option "key"/,
    ],
    ['a token option', 'openai-compatible:http://127.0.0.1:1/v1#m;token=opt-secret-1234', /unknown option "token"/],
    [
      'a header value holding a ;',
      'openai-compatible:http://127.0.0.1:1/v1#m;header.x-gateway-token=abc;opt-secret-1234',
      /unknown option \(not shown: it looks like a value or a credential, not a name\)/,
    ],
    ['a query key', 'openai-compatible:http://127.0.0.1:1/v1?subscription-key=opt-secret-1234#m;bogus=1', /"bogus"/],
  ])('never echoes %s in a configuration error', (_, spec, why) => {
    const error = (() => {
      try {
        parseJudgeSpec(spec)
      } catch (e) {
        return e as Error
      }
      throw new Error('expected a configuration error')
    })()
    expect(error.message).toMatch(why)
    expect(error.message).not.toContain('opt-secret')
  })

  it('never echoes a header value in a configuration error', () => {
    let message = ''
    try {
      parseJudgeSpec('openai:gpt-4.1;header.x-gateway-token=never-shown-777;bogus=1')
    } catch (e) {
      message = (e as Error).message
    }
    expect(message).toContain('unknown option "bogus"')
    expect(message).not.toContain('never-shown-777')
  })
})

describe('providers register their credentials', () => {
  it('openai: defaultHeaders and apiKey in code are scrubbed from an echoed error and from an echoed reason', async () => {
    const key = 'sk-code-registry-1a2b3c4d5e6f'
    const gateway = 'gw-registry-9z8y7x6w'
    const bearer = 'upstream-bearer-5q4r3s2t'
    const judge = openaiJudge({
      model: 'gpt-4.1',
      baseURL: API,
      apiKey: key,
      defaultHeaders: { 'x-gateway-token': gateway, 'x-upstream-authorization': `Bearer ${bearer}` },
    })
    const reply = await judge.evaluate(likertRequest())
    expect(reply.output.reasoning).toContain('headers were')
    expect(JSON.stringify(reply)).not.toMatch(/registry-1a2b|registry-9z8y|bearer-5q4r/)
    echoHeaders = true
    const err = await rejectionOf(judge.evaluate(likertRequest()), JudgeError)
    expect(err).toBeInstanceOf(JudgeError)
    expect(err.message).toContain('forbidden, you sent')
    expect(everything(err)).not.toMatch(/registry-1a2b|registry-9z8y|bearer-5q4r/)
  })

  it('openai: a client built elsewhere has its key and default headers registered', async () => {
    const client = new OpenAI({
      apiKey: 'client-key-0a9b8c7d6e',
      baseURL: API,
      defaultHeaders: { 'x-gateway-token': 'client-gw-1f2e3d4c' },
      maxRetries: 0,
    })
    echoHeaders = true
    const err = await rejectionOf(openaiJudge({ model: 'gpt-4.1', client }).evaluate(likertRequest()), JudgeError)
    expect(everything(err)).not.toMatch(/client-key-0a9b|client-gw-1f2e/)
  })

  it('bedrock: static AWS credentials (key id, secret, session token) are scrubbed from an echoed signed request', async () => {
    const credentials = {
      accessKeyId: 'AKIAREGISTRY7Q2W4E6R',
      secretAccessKey: 'registrySecret/Ab12Cd34Ef56',
      sessionToken: 'registrySessionTok-Gh78Ij90',
    }
    const judge = bedrockJudge({
      region: 'us-east-1',
      clientConfig: { credentials, requestHandler: new NodeHttpHandler() },
    })
    const err = await rejectionOf(judge.evaluate(likertRequest()), JudgeError)
    expect(err).toBeInstanceOf(JudgeError)
    expect(err.message).toContain('denied')
    expect(everything(err)).not.toMatch(/REGISTRY7Q2W|Ab12Cd34Ef56|Gh78Ij90/)
  })

  it('bedrock: credentials from a provider function are registered when it resolves them', async () => {
    const credentials = async () => ({
      accessKeyId: 'AKIAPROVIDED1Z2X3C4V',
      secretAccessKey: 'providedSecret-Qw12Er34',
      sessionToken: 'providedToken-Ty56Ui78',
    })
    const client = bedrockJudge({
      region: 'us-east-1',
      clientConfig: { credentials, requestHandler: new NodeHttpHandler() },
    })
    const err = await rejectionOf(client.evaluate(likertRequest()), JudgeError)
    expect(everything(err)).not.toMatch(/PROVIDED1Z2X|Qw12Er34|Ty56Ui78/)
    expect(BedrockRuntimeClient).toBeDefined()
  })
})

describe('verdicts attached to a test', () => {
  it('are scrubbed in the worker, where secrets configured in code are known (the reporter process does not know them)', () => {
    registerHeaderSecrets({ 'x-gateway-token': 'attach-secret-6t5r4e' })
    const task = { name: 't', meta: {} as Record<string, unknown> }
    const verdict = {
      metric: 'faithfulness',
      level: 'output' as const,
      scale: 'binary' as const,
      raw: 0,
      score: 0,
      threshold: 1,
      pass: false,
      outcome: 'fail' as const,
      subject: 'agent said attach-secret-6t5r4e',
      reason: 'the judge quoted attach-secret-6t5r4e',
    }
    const traces = [
      {
        id: 'tr',
        spans: [
          {
            id: 's',
            parentId: null,
            name: 'call attach-secret-6t5r4e',
            kind: 'tool' as const,
            failed: true,
            verdictIds: [],
          },
        ],
      },
    ]
    attachVerdicts({ task }, [verdict], traces)
    const meta = task.meta[VERDICT_META_KEY] as TestVerdictMeta
    expect(JSON.stringify(meta)).not.toContain('attach-secret-6t5r4e')
    expect(meta.verdicts[0].reason).toBe('the judge quoted [redacted]')
    expect(verdict.reason).toBe('the judge quoted attach-secret-6t5r4e') // the caller's object is not mutated
  })
})

describe('a cut never splits a secret', () => {
  const KEY = 'cut-secret-abcdefghijklmnop'
  registerHeaderSecrets({ 'x-gateway-token': KEY })

  it('the invalid-reply message: scrubbed first, then cut to its excerpt', () => {
    // The 160-character cut falls inside the key: cut first, the tail "cut-secret-abcdef…" matched no secret.
    const reply = `${'x'.repeat(150)} ${KEY} and more prose`
    const error = (() => {
      try {
        parseJudgeText(reply, LikertSchema, { provider: 'openai', model: 'm', metric: 'quality' })
      } catch (e) {
        return e as JudgeOutputError
      }
      throw new Error('expected a JudgeOutputError')
    })()
    expect(error.message).not.toContain('cut-sec')
    expect(error.excerpt).not.toContain('cut-sec')
  })

  it('the excerpt of a long raw reply (head and tail)', () => {
    for (let at = 100; at < 200; at += 7) {
      const raw = `${'h'.repeat(at)}${KEY}${'m'.repeat(900)}${KEY}${'t'.repeat(at)}`
      const error = new JudgeOutputError('bad', { provider: 'openai', model: 'm', raw })
      expect(error.excerpt, `key at ${at}`).not.toContain('cut-sec')
    }
  })
})
