import http, { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { ownTransportUsable, requestsInterceptedHere } from '../../src/judges/fetch-choice'
import { LightHeaders, transportFetch } from '../../src/judges/http-transport'

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void
let handler: Handler
let server: Server
let base: string

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => handler(req, body, res))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

describe('LightHeaders', () => {
  test('behaves as Fetch-API Headers for what the SDK does with them', () => {
    const h = new LightHeaders({ 'Content-Type': 'application/json' })
    h.append('X-Many', 'a')
    h.append('x-many', 'b')
    h.set('Authorization', 'Bearer k')
    expect(h.get('content-type')).toBe('application/json')
    expect(h.get('X-MANY')).toBe('a, b')
    expect(h.has('authorization')).toBe(true)
    h.delete('AUTHORIZATION')
    expect(h.get('authorization')).toBeNull()
    expect([...h]).toEqual([
      ['content-type', 'application/json'],
      ['x-many', 'a, b'],
    ])
    const seen: string[] = []
    h.forEach((value, name) => {
      seen.push(`${name}=${value}`)
    })
    expect(seen).toEqual(['content-type=application/json', 'x-many=a, b'])
    // Node's fetch takes it as a headers init: an iterable of pairs.
    expect(new Headers(h as unknown as ConstructorParameters<typeof Headers>[0]).get('x-many')).toBe('a, b')
  })
})

describe('transportFetch', () => {
  test('sends method, headers and body, and returns status, headers and the body as text and JSON', async () => {
    let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {}
    handler = (req, body, res) => {
      seen = { method: req.method, headers: req.headers, body }
      res.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'X-Request-Id': 'req_1' })
      res.end(JSON.stringify({ echo: JSON.parse(body) }))
    }
    const headers = new LightHeaders({ 'content-type': 'application/json', 'x-gateway-token': 't' })
    const res = await transportFetch(`${base}/v1/chat/completions`, { method: 'POST', headers, body: '{"n":1}' })
    expect(seen).toMatchObject({ method: 'POST', body: '{"n":1}' })
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gateway-token': 't',
      'content-length': '7',
    })
    expect(res).toMatchObject({
      status: 201,
      statusText: 'Made',
      ok: true,
      body: null,
      url: `${base}/v1/chat/completions`,
    })
    expect(res.headers.get('x-request-id')).toBe('req_1')
    expect(await res.json()).toEqual({ echo: { n: 1 } })
    expect(await res.text()).toBe('{"echo":{"n":1}}')
  })

  test('a plain-object header init and a byte body are sent too; an error status is an answer, not a rejection', async () => {
    handler = (req, body, res) => {
      res.writeHead(429, { 'Retry-After': '2', 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ got: body, auth: req.headers.authorization }))
    }
    const res = await transportFetch(new URL(`${base}/x`), {
      method: 'POST',
      headers: { Authorization: 'Bearer k' },
      body: new TextEncoder().encode('bytes'),
    })
    expect(res.ok).toBe(false)
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('2')
    expect(await res.json()).toEqual({ got: 'bytes', auth: 'Bearer k' })
  })

  test('a redirect is an answer, not followed (the judge then fails with its status)', async () => {
    let hits = 0
    handler = (_req, _body, res) => {
      hits++
      res.writeHead(307, { Location: `${base}/elsewhere` })
      res.end()
    }
    const res = await transportFetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' })
    expect(res).toMatchObject({ status: 307, ok: false })
    expect(res.headers.get('location')).toBe(`${base}/elsewhere`)
    expect(hits).toBe(1)
  })

  test('decompresses an answer the server compressed although it was not asked to', async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' })
      res.end(gzipSync(JSON.stringify({ verdict: 'pass' })))
    }
    expect(await (await transportFetch(`${base}/gz`)).json()).toEqual({ verdict: 'pass' })
  })

  test('an abort rejects with an AbortError, before or during the request', async () => {
    handler = () => {} // never answers
    const controller = new AbortController()
    const pending = transportFetch(`${base}/slow`, { method: 'POST', body: '{}', signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    await expect(transportFetch(`${base}/slow`, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    })
  })

  test('a judge that stalls or breaks off in the middle of its answer never leaves the call hanging', async () => {
    handler = (req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.write('{"verdict":') // and no more
      if (req.url === '/broken') setTimeout(() => req.socket.destroy(), 20)
    }
    // Stalled: the caller's timeout (the SDK's signal) ends it as an abort.
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 30)
    await expect(transportFetch(`${base}/stalled`, { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })
    // Broken off: a network failure, as fetch reports it, never a truncated answer.
    const err = await transportFetch(`${base}/broken`).catch((e: unknown) => e)
    expect(err).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } })
  })

  test('a refused connection rejects as fetch does, the socket’s error code in the cause (classify-error reads it there)', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((r) => closed.close(() => r()))
    const err = await transportFetch(`http://127.0.0.1:${port}/v1`).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TypeError)
    expect(err).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } })
  })

  test('refuses bodies that are not text or bytes, and schemes other than http(s)', async () => {
    await expect(transportFetch(`${base}/x`, { method: 'POST', body: new FormData() })).rejects.toThrow(
      /string or byte bodies/,
    )
    await expect(transportFetch('file:///etc/passwd')).rejects.toThrow(/http and https, not file:/)
  })

  test('is a fetch the real OpenAI SDK works with: a completion, and an API error with its status', async () => {
    handler = (req, body, res) => {
      if (JSON.parse(body).model === 'broken') {
        res.writeHead(500, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ error: { message: 'judge fell over', type: 'server_error' } }))
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'x-request-id': 'req_2' })
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: `auth=${req.headers.authorization}` },
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      )
    }
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: `${base}/v1`,
      maxRetries: 0,
      fetch: transportFetch as unknown as typeof fetch,
    })
    const done = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
    expect(done.choices[0].message.content).toBe('auth=Bearer k')
    expect(done.usage?.completion_tokens).toBe(2)
    await expect(
      client.chat.completions.create({ model: 'broken', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining('judge fell over'),
    })
  })
})

describe('ownTransportUsable', () => {
  const key = Symbol.for('undici.globalDispatcher.1')
  const g = globalThis as Record<symbol, unknown>
  let saved: unknown
  beforeAll(() => {
    saved = g[key]
  })
  // Once Node's fetch has loaded, the property exists and cannot be deleted, only written.
  afterEach(() => {
    g[key] = saved
  })

  test('uses the transport unless a dispatcher of the user’s own (a proxy) routes fetch', () => {
    g[key] = undefined
    expect(ownTransportUsable()).toBe(true)
    class Agent {}
    g[key] = new Agent() // Node's default, set when fetch loads
    expect(ownTransportUsable()).toBe(true)
    class ProxyAgent {}
    g[key] = new ProxyAgent()
    expect(ownTransportUsable()).toBe(false)
  })
})

describe('requestsInterceptedHere', () => {
  test('is true while http.request or https.request is wrapped (as nock does), false with Node’s own', () => {
    expect(requestsInterceptedHere()).toBe(false)
    for (const mod of [http, https] as Array<{ request: (...args: never[]) => unknown }>) {
      const original = mod.request
      mod.request = (...args: never[]) => original(...args)
      try {
        expect(requestsInterceptedHere()).toBe(true)
      } finally {
        mod.request = original
      }
      expect(requestsInterceptedHere()).toBe(false)
    }
  })
})
