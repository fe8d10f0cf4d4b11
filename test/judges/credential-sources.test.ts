// Issue 33, classes 6, 7 and 17 through the real SDK clients (msw stands in for the servers): AWS credentials
// from a profile file (not the env) are registered and scrubbed from a judge's echo; a base URL with a query
// keeps the query on every request URL and its value never reaches a verdict or an error; a reply that echoes
// a key as JSON escapes, percent-encoding or HTML entities is scrubbed in every form.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { scrubSecrets } from '../../src/config/secrets'
import { withBaseQuery } from '../../src/judges/base-url'
import { bedrockJudge } from '../../src/judges/bedrock'
import { openaiBatchClient } from '../../src/judges/openai-batch'
import { openaiJudge } from '../../src/judges/openai'
import { callJudge } from '../../src/judges/judge-call'
import { leaksIn } from '../support/decoded-forms'
import { completion, likertRequest } from './helpers'

// Unique per run of this file, so a registration left by another test cannot make a row pass.
const PROFILE = {
  accessKeyId: 'ASIAPROFILEQ7W2X9K3M5',
  secretAccessKey: 'profileSecret+Tq8Wn3/Lz5Kx7Jc2Vb9Hm4',
  sessionToken: 'IQoJb3JpZ2luX2VjEProfileSessionTok7Pq2Rw9Zx4Lm8Nb3',
}
const QUERY_KEY = 'qk-gatewayKey7Hs2Vb9Qw4Zx'
const GATEWAY = 'https://gateway.query.test/v1'

let echo: (url: URL, headers: Headers) => string = () => ''
const seen: URL[] = []
const server = setupServer(
  http.post('https://bedrock-runtime.:region.amazonaws.com/model/:modelId/converse', ({ request }) =>
    HttpResponse.json({
      output: {
        message: {
          role: 'assistant',
          content: [
            {
              toolUse: {
                toolUseId: 't1',
                name: 'overall_quality',
                input: { reasoning: `echo: ${echo(new URL(request.url), request.headers)}`, score: 4 },
              },
            },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    }),
  ),
  http.post(`${GATEWAY}/chat/completions`, ({ request }) => {
    const url = new URL(request.url)
    seen.push(url)
    if (url.searchParams.get('api-key') !== QUERY_KEY)
      return HttpResponse.json({ error: { message: `no key in ${request.url}` } }, { status: 401 })
    return HttpResponse.json(completion(JSON.stringify({ reasoning: `echo: ${echo(url, request.headers)}`, score: 4 })))
  }),
  http.get(`${GATEWAY}/models`, ({ request }) => {
    seen.push(new URL(request.url))
    return HttpResponse.json({ object: 'list', data: [] })
  }),
  // A gateway that rejects with the whole request URL in its error body.
  http.post('https://gateway.reject.test/v1/chat/completions', ({ request }) =>
    HttpResponse.json({ error: { message: `forbidden: ${request.url}` } }, { status: 403 }),
  ),
)

const AWS_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_EC2_METADATA_DISABLED',
] as const
let saved: Record<string, string | undefined>
let dir: string
beforeAll(() => {
  saved = Object.fromEntries(AWS_VARS.map((k) => [k, process.env[k]]))
  for (const k of AWS_VARS) delete process.env[k]
  dir = mkdtempSync(join(tmpdir(), 'av-profile-'))
  writeFileSync(
    join(dir, 'credentials'),
    `[judge]\naws_access_key_id = ${PROFILE.accessKeyId}\naws_secret_access_key = ${PROFILE.secretAccessKey}\naws_session_token = ${PROFILE.sessionToken}\n`,
  )
  writeFileSync(join(dir, 'config'), '[profile judge]\nregion = us-west-2\n')
  Object.assign(process.env, {
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_CONFIG_FILE: join(dir, 'config'),
    AWS_PROFILE: 'judge',
    AWS_EC2_METADATA_DISABLED: 'true',
  })
  server.listen({ onUnhandledRequest: 'error' })
})
afterEach(() => {
  echo = () => ''
  seen.length = 0
})
afterAll(() => {
  server.close()
  rmSync(dir, { recursive: true, force: true })
  for (const k of AWS_VARS) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
})

/** The ways a judge can write a value back: literal, JSON escapes, percent-encoded, HTML entities, layered. */
const ENCODINGS: Array<[string, (s: string) => string]> = [
  ['literal', (s) => s],
  [
    'JSON \\u escapes of every char',
    (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  ],
  ['JSON \\u escape of the first char only', (s) => `\\u${s.charCodeAt(0).toString(16).padStart(4, '0')}${s.slice(1)}`],
  [
    'percent, upper-case hex, every char',
    (s) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
  ],
  ['percent, lower-case hex, / + = only', (s) => s.replace(/[/+=]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)],
  [
    'HTML entities &#x2F; &#47; &sol;',
    (s) => s.replace(/\//g, '&#x2F;').replace(/\+/g, '&#43').replace(/=/g, '&equals;'),
  ],
  ['HTML decimal entities without ;', (s) => [...s].map((c) => `&#${c.charCodeAt(0)}`).join('')],
  [
    'percent-encoded HTML entities',
    (s) => encodeURIComponent([...s].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('')),
  ],
  [
    'JSON escapes inside a JSON string inside a URL',
    (s) => encodeURIComponent(JSON.stringify(s.replace(/./g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`))),
  ],
]

const leaks = (text: string, secret: string) => leaksIn(text, secret)

describe('class 7: AWS credentials from a profile file are registered and scrubbed', () => {
  it.each(ENCODINGS)(
    'a judge echoing the profile session token, key id and secret (%s) leaks none of them',
    async (_, encode) => {
      echo = () =>
        `first ${encode(PROFILE.sessionToken)}, then ${encode(PROFILE.secretAccessKey)}, and ${encode(PROFILE.accessKeyId)}`
      // No credentials in code or env: the SDK reads the profile file named by AWS_SHARED_CREDENTIALS_FILE.
      const judge = bedrockJudge({ region: 'us-west-2', clientConfig: { requestHandler: new NodeHttpHandler() } })
      const result = await callJudge(judge, likertRequest())
      expect(result.status).toBe('ok')
      if (result.status !== 'ok') return
      const reasoning = (result.output as { reasoning: string }).reasoning
      expect(reasoning).toContain('[redacted]') // the echo arrived and was scrubbed, not dropped
      for (const secret of Object.values(PROFILE)) expect(leaks(reasoning, secret), reasoning).toBe(false)
    },
  )
})

describe('class 17: a base URL with a query string', () => {
  it('keeps the query on the chat completions request URL and scrubs its value from the verdict', async () => {
    echo = (url) =>
      `I was called at ${url.toString()} with ${encodeURIComponent(QUERY_KEY)} and \\u0071k-gatewayKey7Hs2Vb9Qw4Zx`
    const judge = openaiJudge({
      model: 'gpt-4.1',
      baseURL: `${GATEWAY}?api-key=${QUERY_KEY}`,
      apiKey: 'sk-test-query-0000',
    })
    const result = await callJudge(judge, likertRequest())
    expect(seen.map((u) => `${u.origin}${u.pathname}`)).toEqual([`${GATEWAY}/chat/completions`])
    expect(seen[0].searchParams.get('api-key')).toBe(QUERY_KEY)
    expect(result.status).toBe('ok')
    if (result.status !== 'ok') return
    const reasoning = (result.output as { reasoning: string }).reasoning
    expect(reasoning).toContain('/v1/chat/completions?api-key=[redacted]')
    expect(leaks(reasoning, QUERY_KEY)).toBe(false)
  })

  it('keeps the query on other endpoints the client calls (models, batch client)', async () => {
    const client = await openaiBatchClient({ apiKey: 'sk-test-query-0000', baseURL: `${GATEWAY}?api-key=${QUERY_KEY}` })
    await client.models.list()
    expect(seen.map((u) => `${u.pathname}${u.search}`)).toEqual([`/v1/models?api-key=${QUERY_KEY}`])
  })

  it('an error body quoting the request URL does not show the query value', async () => {
    const key = 'qk-rejectKey9Lm3Xw7Pq2Zt'
    const judge = openaiJudge({
      model: 'gpt-4.1',
      baseURL: `https://gateway.reject.test/v1?api-key=${key}&x=1`,
      apiKey: 'sk-test-query-0000',
    })
    const result = await callJudge(judge, likertRequest())
    expect(result.status).toBe('unjudgeable')
    if (result.status !== 'unjudgeable') return
    expect(result.cause).toContain('forbidden')
    expect(result.cause).toContain('/v1/chat/completions?api-key=[redacted]')
    expect(leaks(`${result.cause}\n${result.error.message}\n${result.error.stack}`, key)).toBe(false)
  })
})

describe('class 17, round 3: base URLs no earlier row used', () => {
  it.each([
    [
      'two query values',
      'http://127.0.0.1:8080/v1?api-key=K1&tenant=t1',
      'http://127.0.0.1:8080/v1',
      { 'api-key': 'K1', tenant: 't1' },
    ],
    [
      'a slash before the query',
      'http://127.0.0.1:8080/v1/?api-key=K2',
      'http://127.0.0.1:8080/v1',
      { 'api-key': 'K2' },
    ],
    [
      'a percent-encoded value',
      'http://127.0.0.1:8080/v1?api-key=K3%2Fx%2By',
      'http://127.0.0.1:8080/v1',
      { 'api-key': 'K3/x+y' },
    ],
    [
      'a fragment after the query',
      'http://127.0.0.1:8080/v1?api-key=K4#frag',
      'http://127.0.0.1:8080/v1',
      { 'api-key': 'K4' },
    ],
    [
      'an empty value beside a key',
      'http://127.0.0.1:8080/v1?flag=&api-key=K5',
      'http://127.0.0.1:8080/v1',
      { flag: '', 'api-key': 'K5' },
    ],
  ])('%s: the query moves to every request, the path loses it', (_what, base, baseURL, query) => {
    expect(withBaseQuery({ baseURL: base })).toEqual({ baseURL, defaultQuery: query })
  })

  it('OPENAI_BASE_URL with a query is moved too, and a defaultQuery given in the options wins', () => {
    expect(withBaseQuery({}, { OPENAI_BASE_URL: 'http://gw.test/v1?api-key=K6' })).toEqual({
      baseURL: 'http://gw.test/v1',
      defaultQuery: { 'api-key': 'K6' },
    })
    expect(withBaseQuery({ baseURL: 'http://gw.test/v1?api-key=K7', defaultQuery: { 'api-key': 'mine' } })).toEqual({
      baseURL: 'http://gw.test/v1',
      defaultQuery: { 'api-key': 'mine' },
    })
  })

  it('control: a base URL without a query is left as it is', () => {
    const options = { baseURL: 'http://127.0.0.1:8080/v1' }
    expect(withBaseQuery(options)).toBe(options)
  })

  it('a gateway key in the query of OPENAI_BASE_URL is scrubbed in every process, decoded or not', () => {
    vi.stubEnv('OPENAI_BASE_URL', 'http://gw.test/v1?api-key=gwq-Tb7Hs2Vb9%2FQw4Zx')
    try {
      for (const echo of [
        'gwq-Tb7Hs2Vb9%2FQw4Zx',
        'gwq-Tb7Hs2Vb9/Qw4Zx',
        'gwq-Tb7Hs2Vb9&#x2F;Qw4Zx',
        '\\u0067wq-Tb7Hs2Vb9/Qw4Zx',
      ])
        expect(scrubSecrets(`called with ${echo} ok`)).toBe('called with [redacted] ok')
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
