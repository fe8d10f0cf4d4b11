// Agent recordings over node:http2 (what the AWS SDK's default NodeHttp2Handler speaks), against a local h2c server
// that counts the connections (HTTP/2 sessions) it accepts: plain, streamed and binary answers recorded, then replayed
// with no connection at all; a miss fails and connects nowhere; no credential reaches the file; judge calls and calls
// outside a test go out untouched.
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http2, { type Http2Server, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { asJudgeTraffic } from '../../src/config/judge-traffic'
import { parseRecording } from '../../src/recording/format'
import { beginFileRecording, endFileRecording, endTestRecording } from '../../src/recording/recorder'
import { recordingPathFor } from '../../src/recording/store'
import { frame } from '../support/agent-servers'

const KEY = 'sk-h2-planted-key-0123456789abcdef'
const API_KEY = 'h2-planted-x-api-key-9876543210'
const COOKIE = 'h2-s3cr3t-cookie-value'
const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
const saved = process.env.AGENT_VERDICT_MODE
let dir: string
let server: Http2Server
let origin: string
let sessions = 0
let served = 0

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'av-h2-'))
  server = http2.createServer((req, res) => {
    served++
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      if (req.url === '/json') {
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-request-id': `req_${served}`,
          'set-cookie': `session=${COOKIE}`,
        })
        // A gateway quoting the request: the echoed key must not reach the file.
        res.end(JSON.stringify({ answer: `answer ${served}`, got: JSON.parse(body), echo: req.headers.authorization }))
      } else if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (let i = 0; i < 3; i++) res.write(`data: ${JSON.stringify({ delta: `part ${i} of ${served}` })}\n\n`)
        res.end()
      } else if (req.url === '/frames') {
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': `r${served}` })
        for (let i = 0; i < 3; i++) res.write(frame('contentBlockDelta', { delta: { text: `frame ${i} ${served}` } }))
        res.end()
      } else {
        // Bytes that are not UTF-8: kept as base64, served back the same.
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        res.end(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), randomBytes(4093)]))
      }
    })
  })
  server.on('session', () => sessions++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(async () => {
  await endFileRecording({ complete: false })
  if (saved === undefined) delete process.env.AGENT_VERDICT_MODE
  else process.env.AGENT_VERDICT_MODE = saved
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  chunks: Buffer[]
  body: Buffer
}

/** One request on `session`, read to its end; rejects with the stream's error. */
function send(session: http2.ClientHttp2Session, headers: OutgoingHttpHeaders, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers)
    const chunks: Buffer[] = []
    let head: IncomingHttpHeaders = {}
    stream.on('response', (h) => {
      head = h
    })
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.on('end', () =>
      resolve({ status: Number(head[':status']), headers: head, chunks, body: Buffer.concat(chunks) }),
    )
    stream.on('error', reject)
    if (body !== undefined) stream.end(body)
  })
}

const post = (path: string, json: unknown): [OutgoingHttpHeaders, string] => [
  {
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/json',
    authorization: `Bearer ${KEY}`,
    'x-api-key': API_KEY,
    cookie: `session=${COOKIE}`,
  },
  JSON.stringify(json),
]

/** The four calls of test `name`: JSON, SSE, event-stream frames, binary; on one session, closed after. */
function agent(name: string, prompt: string): Promise<Answer[]> {
  return current.run({ test: name, attempt: '0.0' }, async () => {
    const session = http2.connect(origin)
    try {
      return [
        await send(session, ...post('/json', { model: 'm', messages: [{ role: 'user', content: prompt }] })),
        await send(session, ...post('/sse', { model: 'm', stream: true, prompt })),
        await send(session, ...post('/frames', { modelId: 'b', prompt })),
        await send(session, { ':method': 'GET', ':path': '/binary?api_key=planted-query-key-0123' }),
      ]
    } finally {
      await new Promise<void>((resolve) => session.close(resolve))
    }
  })
}

describe('agent recordings over HTTP/2 (node:http2)', () => {
  it('records plain, streamed and binary answers, and replays them chunk by chunk with no connection', async () => {
    const file = join(dir, 'h2.eval.ts')
    process.env.AGENT_VERDICT_MODE = 'record'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    const recorded = await agent('h2 agent', 'weather?')
    expect(await endTestRecording('h2 agent', '0.0')).toBeUndefined()
    await endFileRecording({ complete: true })
    expect(sessions).toBeGreaterThan(0)

    const text = readFileSync(recordingPathFor(file), 'utf8')
    const calls = parseRecording(text, file).tests[0].calls
    expect(calls.map((c) => `${c.request.method} ${new URL(c.request.url).pathname}`)).toEqual([
      'POST /json',
      'POST /sse',
      'POST /frames',
      'GET /binary',
    ])
    expect(calls[0].request.body).toEqual({ json: { model: 'm', messages: [{ role: 'user', content: 'weather?' }] } })
    expect(calls[0].response.headers['x-request-id']).toMatch(/^req_\d+$/)
    expect(calls[1].response.body && 'events' in calls[1].response.body).toBe(true)
    expect(calls[2].response.body && 'frames' in calls[2].response.body).toBe(true)
    expect(calls[3].response.body && 'base64' in calls[3].response.body).toBe(true)
    for (const secret of [KEY, API_KEY, COOKIE, 'planted-query-key-0123']) expect(text).not.toContain(secret)

    const sessionsBefore = sessions
    const servedBefore = served
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    const replayed = await agent('h2 agent', 'weather?')
    expect(await endTestRecording('h2 agent', '0.0')).toBeUndefined()
    await endFileRecording({ complete: true })
    // No connection, no request: the server saw nothing of the replay.
    expect(sessions).toBe(sessionsBefore)
    expect(served).toBe(servedBefore)

    expect(replayed.map((a) => a.status)).toEqual([200, 200, 200, 200])
    // The JSON answer as it was, the echoed key scrubbed in the file and so in the replay.
    const [json, sse, frames, binary] = replayed
    expect(JSON.parse(json.body.toString())).toEqual({ ...JSON.parse(recorded[0].body.toString()), echo: '[redacted]' })
    expect(json.headers['content-type']).toBe('application/json')
    expect(json.headers['x-request-id']).toBe(recorded[0].headers['x-request-id'])
    expect(json.headers['set-cookie']).toBeUndefined()
    // Streams arrive one event / one frame per chunk, the same bytes as recorded.
    expect(sse.chunks.length).toBe(3)
    expect(sse.body.equals(recorded[1].body)).toBe(true)
    expect(frames.chunks.length).toBe(3)
    expect(frames.body.equals(recorded[2].body)).toBe(true)
    expect(frames.headers['x-amzn-requestid']).toBe(recorded[2].headers['x-amzn-requestid'])
    expect(binary.body.equals(recorded[3].body)).toBe(true)
    expect(binary.body.length).toBe(4096)
  })

  it('fails a request with no recording in replay, showing what changed, and connects nowhere', async () => {
    const file = join(dir, 'miss.eval.ts')
    process.env.AGENT_VERDICT_MODE = 'record'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    await agent('miss agent', 'terse prompt')
    await endFileRecording({ complete: true })

    const sessionsBefore = sessions
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    const failed = await agent('miss agent', 'verbose prompt').then(
      () => undefined,
      (err: Error) => err,
    )
    expect(failed?.name).toBe('RecordingMissError')
    expect(failed?.message).toContain(`no recorded response for POST ${origin}/json in test "miss agent"`)
    expect(failed?.message).toContain('- body.json.messages[0].content: "terse prompt"')
    expect(failed?.message).toContain('+ body.json.messages[0].content: "verbose prompt"')
    expect(failed?.message).toContain('AGENT_VERDICT_MODE=record')
    // The test fails at its end too, even had the agent swallowed the error.
    expect((await endTestRecording('miss agent', '0.0'))?.message).toContain('in test "miss agent"')
    await endFileRecording({ complete: false })
    expect(sessions).toBe(sessionsBefore)
  })

  it('lets judge calls and calls outside a test go out untouched on the real session, recording none', async () => {
    const file = join(dir, 'judge.eval.ts')
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    const sessionsBefore = sessions
    const session = http2.connect(origin)
    try {
      const judged = await current.run({ test: 'judged', attempt: '0.0' }, () =>
        asJudgeTraffic(() => send(session, ...post('/json', { judge: true }))),
      )
      expect(JSON.parse(judged.body.toString()).got).toEqual({ judge: true })
      const outside = await send(session, ...post('/json', { outside: true }))
      expect(JSON.parse(outside.body.toString()).got).toEqual({ outside: true })
    } finally {
      await new Promise<void>((resolve) => session.close(resolve))
    }
    expect(sessions).toBe(sessionsBefore + 1)
    // A session a judge's client opens is Node's own, connected at once as without recordings.
    const judgeSession = asJudgeTraffic(() => http2.connect(origin))
    await new Promise((resolve) => judgeSession.once('connect', resolve))
    expect(judgeSession.socket?.remotePort).toBe(Number(new URL(origin).port))
    judgeSession.close()
    expect(await endTestRecording('judged', '0.0')).toBeUndefined()
    await endFileRecording({ complete: true })
    expect(existsSync(recordingPathFor(file))).toBe(false)
  })

  it('refuses in replay a request whose body streams while its answer does, and lets it out unrecorded in auto', async () => {
    const file = join(dir, 'bidi.eval.ts')
    const bidi = (session: http2.ClientHttp2Session) =>
      current.run({ test: 'bidi', attempt: '0.0' }, () =>
        send(
          session,
          { ':method': 'POST', ':path': '/json', 'content-type': 'application/vnd.amazon.eventstream' },
          '{"frame":1}',
        ),
      )
    process.env.AGENT_VERDICT_MODE = 'auto'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    let session = http2.connect(origin)
    expect(JSON.parse((await bidi(session)).body.toString()).got).toEqual({ frame: 1 })
    session.close()
    await endFileRecording({ complete: true })
    expect(existsSync(recordingPathFor(file))).toBe(false)

    const sessionsBefore = sessions
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    session = http2.connect(origin)
    const refused = await bidi(session).then(
      () => undefined,
      (err: Error) => err,
    )
    session.close()
    expect(refused?.message).toContain('sends a streamed HTTP/2 body (application/vnd.amazon.eventstream)')
    expect(refused?.message).toContain('skipHosts')
    expect(sessions).toBe(sessionsBefore)
    // The test fails at its end too, even had the agent swallowed the error (no false pass in CI).
    expect((await endTestRecording('bidi', '0.0'))?.message).toContain('sends a streamed HTTP/2 body')
    await endFileRecording({ complete: false })
  })

  it("gives a client that brings its own connection (createConnection, as gRPC's does) Node's own session", async () => {
    process.env.AGENT_VERDICT_MODE = 'replay'
    beginFileRecording(join(dir, 'own.eval.ts'), {}, () => current.getStore(), { update: false })
    const { connect } = await import('node:net')
    const port = Number(new URL(origin).port)
    const session = http2.connect(origin, { createConnection: () => connect(port, '127.0.0.1') })
    try {
      await new Promise((resolve) => session.once('connect', resolve))
      expect(session.socket?.remotePort).toBe(port)
      const answer = await current.run({ test: 'own', attempt: '0.0' }, () =>
        send(session, ...post('/json', { own: 1 })),
      )
      expect(JSON.parse(answer.body.toString()).got).toEqual({ own: 1 })
    } finally {
      session.close()
    }
  })

  it('attributes each request on a session shared by concurrent tests to the test that made it', async () => {
    const file = join(dir, 'shared.eval.ts')
    process.env.AGENT_VERDICT_MODE = 'record'
    beginFileRecording(file, {}, () => current.getStore(), { update: false })
    // Opened outside any test, as an SDK client's pool keeps one session for every test of the file.
    const session = http2.connect(origin)
    try {
      await Promise.all(
        ['first', 'second', 'third'].map((test) =>
          current.run({ test, attempt: '0.0' }, async () => {
            await send(session, ...post('/json', { from: test }))
            expect(await endTestRecording(test, '0.0')).toBeUndefined()
          }),
        ),
      )
    } finally {
      session.close()
    }
    await endFileRecording({ complete: true })
    const tests = parseRecording(readFileSync(recordingPathFor(file), 'utf8'), file).tests
    expect(tests.map((t) => [t.test, t.calls.map((c) => c.request.body)])).toEqual(
      ['first', 'second', 'third'].map((test) => [test, [{ json: { from: test } }]]),
    )
  })
})
