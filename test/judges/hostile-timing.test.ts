// Adversarial rows, issue 33 class 18 (messages about time and place), and class 9 through the run coordinator: a
// judge that answers 200 and then drips a byte every 100 ms must time out saying it was still sending and how
// much had arrived (in the worker, through the coordinator, and at the test's deadline), not "no answer"; a
// Bedrock timeout names the endpoint the requests really went to; a hostile reply to a call the coordinator made
// is one unjudgeable verdict and the coordinator goes on serving. Short timeouts: nothing here is timed.
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { bedrockJudge } from '../../src/judges/bedrock'
import { startCoordinator, type RunCoordinator } from '../../src/judges/coordinator'
import { withTestDeadline } from '../../src/judges/deadline'
import { callJudge } from '../../src/judges/judge-call'
import { openaiJudge } from '../../src/judges/openai'
import { useCoordinator } from '../../src/judges/run-limit'
import { completion, likertRequest } from './helpers'

type Mode = 'drip' | 'hang' | 'deep' | 'ok'
let mode: Mode = 'drip'
let server: Server
let base = ''
const open = new Set<ServerResponse>()

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    open.add(res)
    res.on('close', () => open.delete(res))
    if (mode === 'hang') return
    if (mode === 'ok') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify(completion(JSON.stringify({ reasoning: 'fine', score: 4 }))))
    }
    if (mode === 'deep') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('['.repeat(300_000) + ']'.repeat(300_000))
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{')
    const timer = setInterval(() => res.write(' '), 100)
    res.on('close', () => clearInterval(timer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // One whole call first, so the timed calls below spend their timeout on the reply, not on the first call's
  // setup: on a loaded machine that alone outlasted a 2 s timeout, and the drip then read as "no answer".
  mode = 'ok'
  expect((await callJudge(openaiJudge({ model: 'judge', baseURL: `${base}/v1` }), likertRequest())).status).toBe('ok')
  mode = 'drip'
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const once = { maxAttempts: 1 }
const bedrock = (extra: Record<string, unknown> = {}, timeoutMs = 800) =>
  bedrockJudge({
    model: 'judge',
    ...once,
    clientConfig: {
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' },
      requestHandler: new NodeHttpHandler(),
      ...extra,
    },
    timeoutMs,
  })

describe('a judge that drips its reply', () => {
  afterEach(() => {
    mode = 'drip'
  })

  it('openai: the timeout says the judge answered 200 and was still sending, with the bytes that arrived', async () => {
    // The headers must come before the timeout: 2 s leaves room for the SDK's first load on a busy machine (at 800 ms
    // a slow start would read as "no answer").
    const judge = openaiJudge({ model: 'judge', baseURL: `${base}/v1`, timeoutMs: 2_000, ...once })
    const result = await callJudge(judge, likertRequest())
    expect(result.status).toBe('unjudgeable')
    if (result.status !== 'unjudgeable') return
    expect(result.cause).toMatch(
      /did not finish its reply within 2000 ms: it answered 200 and was still sending its reply: \d+ bytes in \d\.\d s/,
    )
    expect(result.cause).not.toMatch(/gave no answer/)
  })

  it('bedrock: the same, through the Bedrock client', async () => {
    // Time for the SDK's first load and the headers, on a busy machine.
    const result = await callJudge(bedrock({ endpoint: base }, 2_500), likertRequest())
    expect(result.status).toBe('unjudgeable')
    if (result.status !== 'unjudgeable') return
    expect(result.cause).toMatch(/it answered 200 and was still sending its reply: \d+ bytes/)
  })

  it('at the test\'s deadline: the message says the reply was still arriving, not "no answer"', async () => {
    // The deadline falls 2.25 s in: room for the headers to arrive first on a busy machine.
    const judge = withTestDeadline(openaiJudge({ model: 'judge', baseURL: `${base}/v1`, timeoutMs: 60_000 }), {
      startedAt: Date.now(),
      timeoutMs: 2_500,
      setting: 'testTimeout',
    })
    const error = await judge.evaluate(likertRequest()).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toMatch(
      /no verdict after \d\.\d s.*: it answered 200 and was still sending its reply: \d+ bytes/,
    )
    expect(error?.message).not.toMatch(/no answer after/)
  })

  it('control: a judge that never answers still reads as no answer', async () => {
    mode = 'hang'
    const judge = openaiJudge({ model: 'judge', baseURL: `${base}/v1`, timeoutMs: 500, ...once })
    const result = await callJudge(judge, likertRequest())
    expect(result.status === 'unjudgeable' && result.cause).toMatch(/gave no answer within 500 ms/)
  })
})

describe('bedrock names the endpoint its requests went to', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    mode = 'drip'
  })

  it('AWS_ENDPOINT_URL_BEDROCK_RUNTIME, not the region default', async () => {
    mode = 'hang'
    vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', base)
    const result = await callJudge(bedrock(), likertRequest())
    expect(result.status).toBe('unjudgeable')
    if (result.status !== 'unjudgeable') return
    expect(result.cause).toContain(`at ${base}`)
    expect(result.cause).not.toMatch(/amazonaws\.com/)
  })

  it('a configured endpoint in clientConfig', async () => {
    mode = 'hang'
    const result = await callJudge(bedrock({ endpoint: `${base}/` }), likertRequest())
    expect(result.status === 'unjudgeable' && result.cause).toContain(`at ${base}`)
  })

  it('control: with none, the region default', () => {
    expect(bedrock().endpoint).toBe('https://bedrock-runtime.us-east-1.amazonaws.com')
  })
})

describe('calls the run coordinator makes (decision 0032)', () => {
  const g = globalThis as unknown as Record<symbol, unknown>
  const KEYS = ['address', 'token', 'noted', 'in-test-run'].map((k) => Symbol.for(`agent-verdict.coordinator-${k}`))
  KEYS.push(Symbol.for('agent-verdict.in-test-run'))
  let coordinator: RunCoordinator
  beforeAll(async () => {
    coordinator = await startCoordinator({ concurrency: 4, env: {} })
  })
  afterEach(() => {
    mode = 'drip'
  })
  afterAll(async () => {
    for (const key of KEYS) delete g[key]
    await coordinator.close()
  })

  it('a drip: the worker hears the progress and its timeout says the judge was still sending', async () => {
    useCoordinator(coordinator.address, coordinator.token)
    const served = coordinator.remoteCalls().served
    const judge = openaiJudge({ model: 'judge', baseURL: `${base}/v1`, timeoutMs: 2_500, ...once })
    const result = await callJudge(judge, likertRequest())
    expect(coordinator.remoteCalls().served).toBe(served + 1)
    expect(result.status === 'unjudgeable' && result.cause).toMatch(
      /it answered 200 and was still sending its reply: \d+ bytes/,
    )
  })

  it('a reply nested 300,000 deep is one unjudgeable verdict, and the next call is served', async () => {
    useCoordinator(coordinator.address, coordinator.token)
    const judge = openaiJudge({ model: 'judge', baseURL: `${base}/v1`, timeoutMs: 10_000 })
    mode = 'deep'
    const refused = await callJudge(judge, likertRequest())
    expect(refused.status === 'unjudgeable' && refused.cause).toMatch(/nested more than 64 levels/)
    mode = 'ok'
    const next = await callJudge(judge, likertRequest())
    expect(next.status === 'ok' && next.output.score).toBe(4)
  })
})
