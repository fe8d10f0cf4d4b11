// How agent recordings match, attribute and write, in one process against a local counting server: volatile headers,
// query order and key order never break a match; named volatile fields are ignored; identical requests replay in
// order; concurrent tests get their own calls; a miss fails (even when swallowed) showing what changed; judge calls
// and a user's msw handlers are left alone; re-recording the same answers leaves the file byte for byte.
import { AsyncLocalStorage } from 'node:async_hooks'
// The module object, as SDKs call it: a named import binds the function before any interceptor patches it.
import nodeHttp, { createServer, type Server } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { asJudgeTraffic } from '../../src/config/judge-traffic'
import { beginFileRecording, endFileRecording, endTestRecording } from '../../src/recording/recorder'
import { onReplayedCall } from '../../src/recording/replay-timing'
import { recordingPathFor } from '../../src/recording/store'

const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
let server: Server
let base: string
let served = 0
let deterministic = false
const dirs: string[] = []
const saved = process.env.AGENT_VERDICT_MODE

beforeAll(async () => {
  server = createServer((req, res) => {
    served++
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const reply = JSON.stringify({ n: deterministic ? 0 : served, path: req.url, echo: body.length })
      if (req.url?.startsWith('/gzip')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        res.end(gzipSync(reply))
      } else {
        res.writeHead(200, { 'content-type': 'application/json', date: new Date().toUTCString() })
        res.end(reply)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(async () => {
  await endFileRecording({ complete: false })
  deterministic = false
  if (saved === undefined) delete process.env.AGENT_VERDICT_MODE
  else process.env.AGENT_VERDICT_MODE = saved
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function newFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'av-match-'))
  dirs.push(dir)
  return join(dir, 'agent.eval.ts')
}

function start(file: string, mode: string, options = {}, update = false) {
  process.env.AGENT_VERDICT_MODE = mode
  beginFileRecording(file, options, () => current.getStore(), { update })
}

const inTest = <T>(test: string, fn: () => Promise<T>) => current.run({ test, attempt: '0.0' }, fn)
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then((r) => r.json() as Promise<{ n: number }>)

describe('matching', () => {
  it('ignores volatile headers, query order and key order; replays identical requests in order', async () => {
    const file = newFile()
    start(file, 'record')
    const recorded = await inTest('a', async () => [
      await post(
        '/v1/chat?b=2&a=1',
        { model: 'm', input: 'hi' },
        { authorization: 'Bearer sk-one-0123456789', 'x-stainless-retry-count': '0', traceparent: '00-1-1-01' },
      ),
      await post('/v1/chat?b=2&a=1', { model: 'm', input: 'hi' }),
      await post('/v1/chat?b=2&a=1', { model: 'm', input: 'hi' }),
    ])
    await endFileRecording({ complete: true })
    const before = served
    start(file, 'replay')
    const replayed = await inTest('a', async () => [
      await post(
        '/v1/chat?a=1&b=2',
        { input: 'hi', model: 'm' },
        { authorization: 'Bearer sk-two-9876543210', 'x-stainless-retry-count': '2', traceparent: '00-2-2-01' },
      ),
      await post('/v1/chat?a=1&b=2', { input: 'hi', model: 'm' }),
      await post('/v1/chat?a=1&b=2', { input: 'hi', model: 'm' }),
    ])
    expect(await endTestRecording('a', '0.0')).toBeUndefined()
    expect(replayed.map((r) => r.n)).toEqual(recorded.map((r) => r.n))
    expect(new Set(recorded.map((r) => r.n)).size).toBe(3)
    expect(served).toBe(before)
    expect(readFileSync(recordingPathFor(file), 'utf8')).not.toContain('sk-one-0123456789')
  })

  it('ignores the body fields it is told to, and only those', async () => {
    const file = newFile()
    start(file, 'record', { ignoreBodyFields: ['metadata.request_id', 'messages[*].id'] })
    await inTest('a', () =>
      post('/v1/x', { q: 1, metadata: { request_id: 'r1' }, messages: [{ id: 'm1', text: 't' }] }),
    )
    await endFileRecording({ complete: true })
    start(file, 'replay', { ignoreBodyFields: ['metadata.request_id', 'messages[*].id'] })
    await inTest('a', () =>
      post('/v1/x', { q: 1, metadata: { request_id: 'r2' }, messages: [{ id: 'm2', text: 't' }] }),
    )
    expect(await endTestRecording('a', '0.0')).toBeUndefined()
    await endFileRecording({ complete: false })
    start(file, 'replay') // without the option the changed id is a miss
    await inTest('a', () =>
      post('/v1/x', { q: 1, metadata: { request_id: 'r2' }, messages: [{ id: 'm2', text: 't' }] }).catch(
        () => undefined,
      ),
    )
    expect((await endTestRecording('a', '0.0'))?.message).toContain('+ body.json.metadata.request_id: "r2"')
  })

  it('gives concurrent tests their own calls, whatever order they interleave in', async () => {
    const file = newFile()
    start(file, 'record')
    const names = Array.from({ length: 8 }, (_, i) => `t${i}`)
    const run = () =>
      Promise.all(
        names.map((t, i) =>
          inTest(t, async () => {
            await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5))
            const first = await post('/v1/same', { q: 'same for all' })
            const second = await post(`/tool/${t}`, {})
            return [first.n, second.n]
          }),
        ),
      )
    const recorded = await run()
    await endFileRecording({ complete: true })
    start(file, 'replay')
    expect(await run()).toEqual(recorded)
    for (const t of names) expect(await endTestRecording(t, '0.0')).toBeUndefined()
  })

  it('fails a replay miss even when the agent swallows the error, naming the test and what changed', async () => {
    const file = newFile()
    start(file, 'record')
    await inTest('refund › answers', () =>
      post('/v1/chat', { model: 'm', messages: [{ role: 'system', content: 'Be terse.' }] }),
    )
    await endFileRecording({ complete: true })
    start(file, 'replay')
    const swallowed = await inTest('refund › answers', () =>
      post('/v1/chat', { model: 'm', messages: [{ role: 'system', content: 'Be verbose.' }] }).then(
        () => 'answered',
        (err: Error) => err.message,
      ),
    )
    expect(swallowed).toContain('no recorded response for POST')
    const error = await endTestRecording('refund › answers', '0.0')
    expect(error?.message).toContain('in test "refund › answers"')
    expect(error?.message).toContain('- body.json.messages[0].content: "Be terse."')
    expect(error?.message).toContain('+ body.json.messages[0].content: "Be verbose."')
    expect(error?.message).toContain('AGENT_VERDICT_MODE=record')
  })

  it('never records or replays a judge call', async () => {
    const file = newFile()
    start(file, 'replay')
    const before = served
    const answer = await inTest('a', () => asJudgeTraffic(() => post('/v1/judge', { q: 1 })))
    expect(answer.n).toBe(before + 1) // went out, no miss
    expect(await endTestRecording('a', '0.0')).toBeUndefined()
  })

  it('serves a gzip body to node:http decoded, tells replay timing, and re-records unchanged answers byte for byte', async () => {
    const file = newFile()
    deterministic = true
    const getGzip = () =>
      new Promise<string>((resolve, reject) =>
        nodeHttp
          .get(`${base}/gzip`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c) => chunks.push(c))
            res.on('end', () =>
              resolve(res.headers['content-encoding'] ? 'still encoded' : Buffer.concat(chunks).toString()),
            )
          })
          .on('error', reject),
      )
    start(file, 'record')
    await inTest('a', async () => [await getGzip(), await post('/v1/x', { q: 1 })])
    await endFileRecording({ complete: true })
    const first = readFileSync(recordingPathFor(file), 'utf8')
    expect(first).toContain('"path": "/gzip"')
    start(file, 'record')
    await inTest('a', async () => [await getGzip(), await post('/v1/x', { q: 1 })])
    await endFileRecording({ complete: true })
    expect(readFileSync(recordingPathFor(file), 'utf8')).toBe(first)

    const timings: string[] = []
    const stop = onReplayedCall(({ url }) => timings.push(`${current.getStore()?.test} ${new URL(url).pathname}`))
    start(file, 'replay')
    expect(await inTest('a', getGzip)).toBe(JSON.stringify({ n: 0, path: '/gzip', echo: 0 }))
    stop()
    expect(timings).toEqual(['a /gzip'])
  })

  it('prunes calls and tests not made again on a complete update run, and only then', async () => {
    const file = newFile()
    start(file, 'record')
    await inTest('kept', () => post('/v1/a', {}))
    await inTest('kept', () => post('/v1/b', {}))
    await inTest('gone', () => post('/v1/c', {}))
    await endFileRecording({ complete: true })
    start(file, 'auto', {}, true)
    await inTest('kept', () => post('/v1/a', {}))
    await endFileRecording({ complete: false })
    expect(readFileSync(recordingPathFor(file), 'utf8')).toContain('/v1/c')
    start(file, 'auto', {}, true)
    await inTest('kept', () => post('/v1/a', {}))
    await endFileRecording({ complete: true })
    const text = readFileSync(recordingPathFor(file), 'utf8')
    expect(text).toContain('/v1/a')
    expect(text).not.toContain('/v1/b')
    expect(text).not.toContain('"gone"')
  })
})

describe("a user's msw beside recording", () => {
  it("leaves a user's msw handler alone: its mocked answer wins and is neither recorded nor a miss", async () => {
    const file = newFile()
    const mocked = setupServer(http.post(`${base}/mocked`, () => HttpResponse.json({ n: -1 })))
    // As in a test file: the user's server starts in beforeAll, recording at the first test.
    mocked.listen({ onUnhandledRequest: 'bypass' })
    try {
      start(file, 'record')
      expect((await inTest('a', () => post('/mocked', {}))).n).toBe(-1)
      await inTest('a', () => post('/real', {}))
      await endFileRecording({ complete: true })
      const text = readFileSync(recordingPathFor(file), 'utf8')
      expect(text).toContain('/real')
      expect(text).not.toContain('/mocked')
      start(file, 'replay')
      expect((await inTest('a', () => post('/mocked', {}))).n).toBe(-1)
      await inTest('a', () => post('/real', {}))
      expect(await endTestRecording('a', '0.0')).toBeUndefined()
      await endFileRecording({ complete: false })
    } finally {
      mocked.close()
    }
  })
  it("lets a user's msw started after recording answer first, and both close cleanly in either order", async () => {
    const file = newFile()
    start(file, 'replay')
    const mocked = setupServer(http.post(`${base}/late`, () => HttpResponse.json({ n: -2 })))
    mocked.listen({ onUnhandledRequest: 'bypass' })
    try {
      expect((await inTest('a', () => post('/late', {}))).n).toBe(-2)
      expect(await endTestRecording('a', '0.0')).toBeUndefined()
    } finally {
      mocked.close()
    }
    await endFileRecording({ complete: false })
    // Nothing left patched: recording starts again, and a plain request goes out unrecorded.
    start(file, 'record')
    await endFileRecording({ complete: false })
    expect(globalThis.fetch.toString()).toMatch(/native code|fetch/)
    const before = served
    await post('/plain', {})
    expect(served).toBe(before + 1)
  })
  it('keeps a msw server started during recording answering when the recording ends first, then leaves nothing patched', async () => {
    const file = newFile()
    const pristine = globalThis.fetch
    start(file, 'replay')
    const mocked = setupServer(http.post(`${base}/late`, () => HttpResponse.json({ n: -5 })))
    mocked.listen({ onUnhandledRequest: 'bypass' })
    try {
      await endFileRecording({ complete: false })
      expect((await post('/late', {})).n).toBe(-5)
    } finally {
      mocked.close()
    }
    expect(globalThis.fetch).toBe(pristine)
    const before = served
    await post('/plain', {})
    expect(served).toBe(before + 1)
  })
  it('keeps recording after a msw server started before it closes mid-file, then leaves nothing patched', async () => {
    const file = newFile()
    const pristine = globalThis.fetch
    const mocked = setupServer(http.post(`${base}/mocked`, () => HttpResponse.json({ n: -6 })))
    mocked.listen({ onUnhandledRequest: 'bypass' })
    start(file, 'record')
    expect((await inTest('a', () => post('/mocked', {}))).n).toBe(-6)
    mocked.close()
    await inTest('a', () => post('/after-msw', {}))
    await endFileRecording({ complete: true })
    expect(readFileSync(recordingPathFor(file), 'utf8')).toContain('/after-msw')
    expect(globalThis.fetch).toBe(pristine)
  })
  it('lets a msw server started before recording answer first after an earlier one closed beside a recording', async () => {
    // msw's interceptors are module singletons: one that ran on our instance once must not stay bound to it.
    const file = newFile()
    start(file, 'replay')
    const earlier = setupServer(http.post(`${base}/early`, () => HttpResponse.json({ n: -3 })))
    earlier.listen({ onUnhandledRequest: 'bypass' })
    earlier.close()
    await endFileRecording({ complete: false })
    const mocked = setupServer(http.post(`${base}/first`, () => HttpResponse.json({ n: -4 })))
    mocked.listen({ onUnhandledRequest: 'bypass' })
    try {
      start(file, 'record')
      expect((await inTest('a', () => post('/first', {}))).n).toBe(-4)
      await endFileRecording({ complete: false })
      // Our interception gone, the user's msw still answers, and alone.
      expect((await post('/first', {})).n).toBe(-4)
    } finally {
      mocked.close()
    }
  })
})
