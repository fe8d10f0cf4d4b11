// Planted-secret scan (issue 11, item 3): one credential of each kind, a judge that echoes request
// headers and keys into its reasons and error bodies, the matchers run through the real Vitest CLI
// with agent-verdict's reporter (terminal, JSON, HTML, JUnit, GitHub summary, cassette), and
// `agent-verdict diagnose`; then every produced file and stream is scanned: 0 occurrences.
import { spawn } from 'node:child_process'
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { leaksIn } from '../support/decoded-forms'
import { REPO, makeScratchProject } from '../support/run-vitest'

// One secret of each kind; each has a unique core so a partial leak is found too.
const SECRETS = {
  OPENAI_API_KEY: 'sk-envkey-Q7wT2pL9xV4mN8rK3bH6',
  AWS_ACCESS_KEY_ID: 'AKIAPLANTEDZ3X9K2M7Q',
  AWS_SECRET_ACCESS_KEY: 'awsSecret+Vb8Nq2Lw5Xr9Tk3Jp6Hd1Fz4',
  AWS_SESSION_TOKEN: 'FwoGZXIvYXdzEPlantedSessionTok9Qm2Wn7Rb4',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrockBearer-Yh5Kd8Mq2Vt6Zp3Lc9',
  ENV_GATEWAY_TOKEN: 'gwtok-Ua4Jx9Pe2Rm7Wq5Nb8',
  ENV_APIM_KEY: 'apimkey-Cs3Ht8Lv1Xo6Kf9Dg2',
  CODE_API_KEY: 'codekey-Eb7Wm2Qy5Rn9Tj4Va1',
  CODE_GATEWAY_TOKEN: 'codegw-Ik6Oz3Fs8Hp1Lx5Cu9',
  CODE_BEARER_TOKEN: 'codebearer-Gd2Vn7Ky4Bw9Ms3Pe6',
  URL_PASSWORD: 'urlpass-Zq8Nf3Wt6Jc1Rv9Ho4',
  // Only the agent's own call (recorded) carries these.
  AGENT_KEY: 'agentkey-Rw4Tz8Lm2Qc6Vb1Ny5',
  AGENT_BEARER: 'agentbearer-Hs9Dk3Px7Jf2Wm6Gt4',
  AGENT_COOKIE: 'agentcookie-Bn5Yq1Ze8Kr4Uo7Mc3',
  AGENT_QUERY_TOKEN: 'agentquery-Fp2Lw6Ha9Sd3Xe8Vj1',
} as const
const CORES = Object.values(SECRETS).map((s) => s.slice(-12))

let fake: FakeJudge
let echo: Server
let echoURL: string
const dirs: string[] = []

/** Every header of the request, as an echoing gateway or a chatty judge would quote them. */
const dump = (headers: IncomingHttpHeaders) => JSON.stringify(headers)

/** An OpenAI-compatible judge that forwards to the fake judge and quotes the request's headers and the AWS keys in every string of its verdict; `ECHO-ERROR-4xx` in the prompt makes it fail with a body that quotes them. */
async function startEchoJudge(target: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    // An agent's gateway that quotes its request (headers, URL, body) and sets a cookie: recorded, with none of it.
    if (req.url?.startsWith('/agent')) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': `sid=${SECRETS.AGENT_COOKIE}; HttpOnly`,
        'x-echo-headers': dump(req.headers),
      })
      res.end(JSON.stringify({ url: req.url, headers: req.headers, body, access_token: SECRETS.AGENT_KEY }))
      return
    }
    const quoted = `request headers ${dump(req.headers)}; aws ${SECRETS.AWS_ACCESS_KEY_ID} ${SECRETS.AWS_SECRET_ACCESS_KEY} ${SECRETS.AWS_SESSION_TOKEN} bearer ${SECRETS.AWS_BEARER_TOKEN_BEDROCK}; encoded ${encodedEchoes(req.headers)}`
    const errorStatus = /ECHO-ERROR-(\d{3})/.exec(body)?.[1]
    if (errorStatus) {
      res.writeHead(Number(errorStatus), { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `rejected: ${quoted}`, type: 'invalid_request_error' } }))
      return
    }
    const upstream = await fetch(`${target}${req.url?.replace(/^\/v1/, '')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const reply = (await upstream.json()) as { choices?: Array<{ message: { content: string } }> }
    for (const choice of reply.choices ?? []) {
      const verdict = JSON.parse(choice.message.content) as unknown
      choice.message.content = JSON.stringify(echoInto(verdict, quoted))
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(reply))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return server
}

/**
 * Every credential the request carried and every planted AWS value, re-encoded as a hostile judge might (issue
 * 33, class 6): a JSON escape of the first character, percent-encoding of every character in lower-case hex,
 * HTML entities, and a percent-encoded layer of entities.
 */
function encodedEchoes(headers: IncomingHttpHeaders): string {
  const values = [
    ...Object.values(headers).flatMap((v) => (typeof v === 'string' ? [v.replace(/^Bearer /, '')] : [])),
    SECRETS.AWS_SECRET_ACCESS_KEY,
    SECRETS.AWS_SESSION_TOKEN,
    SECRETS.AWS_BEARER_TOKEN_BEDROCK,
  ].filter((v) => v.length >= 12)
  const code = (c: string) => c.charCodeAt(0)
  return values
    .flatMap((v) => [
      `\\u${code(v[0]).toString(16).padStart(4, '0')}${v.slice(1)}`,
      [...v].map((c) => `%${code(c).toString(16)}`).join(''),
      [...v].map((c, i) => (i % 3 === 0 ? `&#x${code(c).toString(16)};` : i % 3 === 1 ? `&#${code(c)}` : c)).join(''),
      encodeURIComponent([...v].map((c) => `&#${code(c)};`).join('')),
    ])
    .join(' ')
}

/** Appends `quoted` to every string of a verdict (reasoning, reason, evidence…), keeping its shape. */
function echoInto(value: unknown, quoted: string): unknown {
  if (typeof value === 'string') return `${value} [${quoted}]`
  if (Array.isArray(value)) return value.map((v) => echoInto(v, quoted))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echoInto(v, quoted)]))
  return value
}

/** Runs a child with exactly `env` (plus PATH/HOME) and collects its streams. */
async function spawnCollect(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(cmd, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((done) => child.on('close', done))
  return { code, stdout, stderr }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Every planted secret (or its unique core, or half of it) found in any decoded form of `text`, by name. */
function leaks(text: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, secret], i) => leaksIn(text, secret) || leaksIn(text, CORES[i]))
    .map(([name]) => name)
}

/** An OTLP JSON trace whose failing tool call carries every planted env secret, plain and encoded. */
function plantedTrace(): string {
  const attr = (key: string, value: string) => ({ key, value: { stringValue: value } })
  const values = [
    SECRETS.OPENAI_API_KEY,
    SECRETS.AWS_ACCESS_KEY_ID,
    SECRETS.AWS_SECRET_ACCESS_KEY,
    SECRETS.AWS_SESSION_TOKEN,
    SECRETS.AWS_BEARER_TOKEN_BEDROCK,
  ]
  const code = (c: string) => c.charCodeAt(0)
  const leaky = values
    .map(
      (v) =>
        `Authorization: token ${v}; Bearer ${v}; \\u${code(v[0]).toString(16).padStart(4, '0')}${v.slice(1)}; ${[...v].map((c) => `%${code(c).toString(16).toUpperCase()}`).join('')}; ${v.replace(/[-+/=]/g, (c) => `&#${code(c)}`)}`,
    )
    .join(' | ')
  const start = 1_760_000_000_000_000_000n
  const span = (id: string, parent: string | undefined, name: string, extra: object) => ({
    traceId: '5b8efff798038103d269b633813fc60d',
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 1_000_000_000n),
    ...extra,
  })
  return JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              span('bbbbbbbbbbbbbbb1', undefined, 'invoke_agent support', {
                attributes: [attr('gen_ai.operation.name', 'invoke_agent'), attr('input.value', `refund ${leaky}`)],
              }),
              span('bbbbbbbbbbbbbbb2', 'bbbbbbbbbbbbbbb1', 'execute_tool http_get', {
                status: { code: 2, message: `HTTP 401 Unauthorized: ${leaky}` },
                attributes: [
                  attr('gen_ai.operation.name', 'execute_tool'),
                  attr('gen_ai.tool.name', 'http_get'),
                  attr('http.request.header.authorization', `Bearer ${SECRETS.OPENAI_API_KEY}`),
                  attr('input.value', leaky),
                  attr('output.value', `error 401: ${leaky}`),
                ],
              }),
            ],
          },
        ],
      },
    ],
  })
}

beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      {
        name: 'emea',
        when: { contains: 'EMEA leads' },
        respond: { verdict: 'fail', reason: 'the context says North America leads' },
      },
    ],
  })
  echo = await startEchoJudge(fake.baseURL)
  echoURL = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`
})
afterAll(async () => {
  await new Promise((done) => echo.close(done))
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const plantedEnv = () => ({
  OPENAI_API_KEY: SECRETS.OPENAI_API_KEY,
  AWS_ACCESS_KEY_ID: SECRETS.AWS_ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: SECRETS.AWS_SECRET_ACCESS_KEY,
  AWS_SESSION_TOKEN: SECRETS.AWS_SESSION_TOKEN,
  AWS_BEARER_TOKEN_BEDROCK: SECRETS.AWS_BEARER_TOKEN_BEDROCK,
})
const envSpec = () =>
  `openai-compatible:${echoURL}#fake;header.x-gateway-token=${SECRETS.ENV_GATEWAY_TOKEN};header.Ocp-Apim-Subscription-Key=${SECRETS.ENV_APIM_KEY}`

describe('no planted secret reaches any output', () => {
  test('Vitest run with the reporter: terminal, JSON, HTML, JUnit, GitHub summary, cassette and failure messages hold 0 secrets', async () => {
    const dir = makeScratchProject('secrets')
    dirs.push(dir)
    copyFileSync(join(REPO, 'test/e2e/fixtures/secrets/secrets.fixture.ts'), join(dir, 'secrets.test.ts'))
    const reporter = [
      join(REPO, 'reporters/vitest-reporter.ts'),
      { outputFile: 'out/report.json', html: 'out/report.html', junit: 'out/junit.xml', githubSummary: true },
    ]
    const reporters = ['default', ['json', { outputFile: 'out/vitest.json' }], reporter]
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(join(REPO, 'matchers/vitest.ts'))}], testTimeout: 30000, reporters: ${JSON.stringify(reporters)} } }\n`,
    )
    const summary = join(dir, 'out', 'summary.md')
    const run = await spawnCollect(
      process.execPath,
      [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
      dir,
      {
        ...plantedEnv(),
        AGENT_VERDICT_JUDGE: envSpec(),
        AGENT_VERDICT_MODE: 'auto',
        GITHUB_STEP_SUMMARY: summary,
        ECHO_BASE_URL: echoURL,
        CODE_API_KEY: SECRETS.CODE_API_KEY,
        CODE_GATEWAY_TOKEN: SECRETS.CODE_GATEWAY_TOKEN,
        CODE_BEARER_TOKEN: SECRETS.CODE_BEARER_TOKEN,
        URL_PASSWORD: SECRETS.URL_PASSWORD,
        AGENT_KEY: SECRETS.AGENT_KEY,
        AGENT_BEARER: SECRETS.AGENT_BEARER,
        AGENT_COOKIE: SECRETS.AGENT_COOKIE,
        AGENT_QUERY_TOKEN: SECRETS.AGENT_QUERY_TOKEN,
      },
    )
    const results = JSON.parse(readFileSync(join(dir, 'out/vitest.json'), 'utf8')) as {
      testResults: Array<{ assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }>
    }
    const tests = results.testResults.flatMap((f) => f.assertionResults)

    // The run really exercised each path: the judge was called and echoed, failures and errors were reported.
    const status = Object.fromEntries(tests.map((t) => [t.title, t.status]))
    expect(status, `${run.stdout}\n${run.stderr}`).toEqual({
      'env judge: a passing verdict whose reason echoes every header': 'passed',
      'env judge: a failing verdict whose reason echoes every header': 'failed',
      'env judge: an error body that echoes every header': 'failed',
      'in-code judge: passing and failing verdicts echo its key and headers': 'failed',
      'in-code judge: an error body that echoes its key and headers': 'failed',
      'a base URL with user:password is refused without echoing them': 'failed',
      'trace matchers: span and agent reasons echo every header': expect.any(String),
      'agent call: a gateway echoing its key, headers, URL and body is recorded without them': 'passed',
    })
    const messages = tests.flatMap((t) => t.failureMessages).join('\n')
    expect(messages).toContain('[redacted]') // the echo arrived and was scrubbed, not dropped
    expect(messages).toContain('rejected: request headers') // the error body's useful part survives
    expect(messages).toContain('contains credentials (user:password@)')
    expect(messages).toContain('http://[redacted]@127.0.0.1:9/v1')

    const files = filesUnder(dir).filter((f) => !f.endsWith('.test.ts') && !f.endsWith('vitest.config.mjs'))
    const names = files.map((f) => f.slice(dir.length + 1)).sort()
    expect(names).toEqual(
      expect.arrayContaining([
        'out/report.json',
        'out/report.html',
        'out/junit.xml',
        'out/summary.md',
        '__verdicts__/secrets.test.ts.json',
        '__recordings__/secrets.test.ts.json',
      ]),
    )
    // The agent's call is recorded (its echo scrubbed); the judge's own calls never are.
    const recording = readFileSync(join(dir, '__recordings__/secrets.test.ts.json'), 'utf8')
    expect(recording).toContain('/agent?')
    expect(recording).toContain('[redacted]')
    expect(recording).not.toContain('/chat/completions')
    const report = readFileSync(join(dir, 'out/report.json'), 'utf8')
    expect(report).toContain('request headers') // the echoed reasons are in the report, scrubbed
    const cassette = readFileSync(join(dir, '__verdicts__/secrets.test.ts.json'), 'utf8')
    expect(cassette).toContain('request headers')

    const found: Record<string, string[]> = {}
    for (const file of files) {
      const hit = leaks(readFileSync(file, 'utf8'))
      if (hit.length) found[file.slice(dir.length + 1)] = hit
    }
    for (const [stream, text] of [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
      ['failure messages', messages],
    ] as const) {
      const hit = leaks(text)
      if (hit.length) found[stream] = hit
    }
    expect(found).toEqual({})
  }, 120_000)

  test('agent-verdict diagnose: stdout, stderr and the --json file hold 0 secrets', async () => {
    const dir = makeScratchProject('secrets-diagnose')
    dirs.push(dir)
    const out = join(dir, 'diagnosis.json')
    const trace = join(REPO, 'test/fixtures/trail/0ebe673d64647ec44c370638b82d3c78.json')
    // A trace that itself carries the keys (issue 33, class 8): a header attribute, a status message and a
    // tool output, literal and encoded, and after scheme words.
    const planted = join(dir, 'planted-trace.json')
    writeFileSync(planted, plantedTrace())
    const { code, stdout, stderr } = await spawnCollect(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO, 'test/cli/run-cli.ts'),
        'diagnose',
        trace,
        planted,
        '--full',
        '--json',
        out,
        '--judge',
        envSpec(),
      ],
      REPO,
      plantedEnv(),
    )
    // Diagnosed (with or without findings, or with spans the judge left unjudgeable: exit 3), not a crash.
    expect([0, 1, 3]).toContain(code)
    expect(stdout).toContain('Authentication Errors') // the planted trace's 401 was diagnosed and shown
    const json = readFileSync(out, 'utf8')
    expect(json).toContain('request headers') // the judge's echoed reasons are in it, scrubbed
    const asJson = await spawnCollect(
      process.execPath,
      ['--import', 'tsx', join(REPO, 'test/cli/run-cli.ts'), 'diagnose', planted, '--format', 'json'],
      REPO,
      plantedEnv(),
    )
    expect(asJson.stdout).toContain('[redacted]')
    expect(leaks(asJson.stdout)).toEqual([])
    expect({ stdout: leaks(stdout), stderr: leaks(stderr), json: leaks(json) }).toEqual({
      stdout: [],
      stderr: [],
      json: [],
    })
  }, 120_000)
})
