// Connections opened to the judge ahead of the first wave of calls (src/judges/http-transport.ts `preconnect`,
// decision 0033): used by the first requests, never written to before one, never handed out once the server
// closed them, closed when unused, and verified as strictly as a request's own TLS connection.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { parkedConnections, preconnect, transportFetch } from '../../src/judges/http-transport'
import { prewarmJudgeHost } from '../../src/judges/prewarm'

const TLS_DIR = join(__dirname, '../fixtures/tls')
const tlsOptions = () => ({
  key: readFileSync(join(TLS_DIR, 'localhost-key.pem')),
  cert: readFileSync(join(TLS_DIR, 'localhost-cert.pem')),
})

interface Watched {
  base: string
  /** Every connection the server accepted, with the bytes it received before its first request was answered. */
  sockets: Socket[]
  bytesBefore: Map<Socket, number>
  closed: number
  /** The socket each request arrived on, in order. */
  requestSockets: Socket[]
  close(): Promise<void>
}

const servers: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function watch(server: Server | HttpsServer, protocol: 'http' | 'https'): Promise<Watched> {
  const w: Watched = {
    base: '',
    sockets: [],
    bytesBefore: new Map(),
    closed: 0,
    requestSockets: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  server.on(protocol === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    w.sockets.push(socket)
    w.bytesBefore.set(socket, 0)
    socket.on('data', (chunk: Buffer) => w.bytesBefore.set(socket, (w.bytesBefore.get(socket) ?? 0) + chunk.length))
    socket.on('close', () => w.closed++)
  })
  server.on('request', (req) => w.requestSockets.push(req.socket as Socket))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  w.base = `${protocol}://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  servers.push(w)
  return w
}

const answering = () =>
  createServer((req, res) => {
    req.resume()
    req.on('end', () => res.end('{"ok":true}'))
  })

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

const post = (base: string) =>
  transportFetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-preconnect' },
    body: '{"model":"m"}',
  })

describe('preconnect', () => {
  test('the first requests go out on the connections opened ahead, and nothing is written on them before', async () => {
    const w = await watch(answering(), 'http')
    expect(preconnect(w.base, 3)).toBe(3)
    await until(() => w.sockets.length === 3, 'three connections')
    expect(parkedConnections(w.base)).toBe(3)
    // Open but silent: no byte (no key, no header) reaches the server until a request takes the connection.
    expect([...w.bytesBefore.values()]).toEqual([0, 0, 0])

    const answers = await Promise.all([post(w.base), post(w.base), post(w.base)])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(w.sockets).toHaveLength(3) // no new connection
    expect(new Set(w.requestSockets)).toEqual(new Set(w.sockets)) // one request on each
    expect(parkedConnections(w.base)).toBe(0)
  })

  test('asks for the missing ones only, and a request beyond them opens its own connection', async () => {
    const w = await watch(answering(), 'http')
    expect(preconnect(w.base, 2)).toBe(2)
    expect(preconnect(w.base, 2)).toBe(0) // already parked
    await until(() => w.sockets.length === 2, 'two connections')
    const answers = await Promise.all([post(w.base), post(w.base), post(w.base)])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(w.sockets).toHaveLength(3)
  })

  test('a connection the server closed is never handed to a request', async () => {
    const w = await watch(answering(), 'http')
    preconnect(w.base, 2)
    await until(() => w.sockets.length === 2, 'two connections')
    for (const socket of w.sockets) socket.destroy()
    await until(() => parkedConnections(w.base) === 0, 'the closed connections to be dropped')
    const answer = await post(w.base)
    expect(answer.status).toBe(200)
    expect(w.sockets).toHaveLength(3)
    expect(w.requestSockets[0]).toBe(w.sockets[2])
  })

  test('a connection that had bytes before any request (a server saying goodbye) is dropped', async () => {
    const w = await watch(answering(), 'http')
    preconnect(w.base, 1)
    await until(() => w.sockets.length === 1, 'one connection')
    w.sockets[0].write('HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n')
    await until(() => parkedConnections(w.base) === 0, 'the connection to be dropped')
    expect((await post(w.base)).status).toBe(200)
    expect(w.requestSockets[0]).not.toBe(w.sockets[0])
  })

  test('unused connections are closed after the park time', async () => {
    const w = await watch(answering(), 'http')
    preconnect(w.base, 2, 50)
    await until(() => w.sockets.length === 2, 'two connections')
    await until(() => w.closed === 2, 'both connections to close')
    expect(parkedConnections(w.base)).toBe(0)
  })

  test('a refused origin parks nothing and the request fails as it would have', async () => {
    const w = await watch(answering(), 'http')
    const base = w.base
    await w.close()
    servers.length = 0
    preconnect(base, 2)
    await until(() => parkedConnections(base) === 0, 'the refused connections to be dropped')
    const failure = await post(base).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as TypeError & { cause: { code: string } }).cause.code).toBe('ECONNREFUSED')
  })

  test('opens nothing for a URL that is not http(s)', () => {
    expect(preconnect('file:///etc/passwd', 2)).toBe(0)
    expect(preconnect('not a url', 2)).toBe(0)
  })

  test('TLS: a certificate the request would refuse fails the parked connection too; verification is never relaxed', async () => {
    let handshakeFailures = 0
    const server = createHttpsServer(tlsOptions(), (_req, res) => res.end('{"ok":true}'))
    server.on('tlsClientError', () => handshakeFailures++)
    const w = await watch(server, 'https')
    preconnect(w.base, 2)
    await until(() => handshakeFailures === 2, 'both parked handshakes to fail')
    expect(parkedConnections(w.base)).toBe(0)
    const failure = await post(w.base).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as TypeError & { cause: { code: string } }).cause.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT')
    expect(w.requestSockets).toHaveLength(0)
  })

  test('TLS: with the certificate trusted, the first requests reuse the handshakes done ahead', async () => {
    let handshakes = 0
    const server = createHttpsServer(tlsOptions(), (req, res) => {
      req.resume()
      req.on('end', () => res.end('{"ok":true}'))
    })
    server.on('secureConnection', () => handshakes++)
    const w = await watch(server, 'https')
    // Trust comes only from NODE_EXTRA_CA_CERTS, read when a process starts: a child process runs the transport.
    const script = `
      const { preconnect, transportFetch } = await import(${JSON.stringify(join(__dirname, '../../src/judges/http-transport.ts'))})
      preconnect(process.env.BASE, 2)
      await new Promise((r) => setTimeout(r, 300))
      const post = () => transportFetch(process.env.BASE + '/chat/completions', { method: 'POST', body: '{}' })
      const answers = await Promise.all([post(), post()])
      console.log(JSON.stringify(answers.map((a) => a.status)))`
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { env: { ...process.env, BASE: w.base, NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'localhost-cert.pem') } },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    )
    expect(JSON.parse(out.trim())).toEqual([200, 200])
    expect(handshakes).toBe(2)
    expect(w.requestSockets).toHaveLength(2)
    expect(new Set(w.requestSockets).size).toBe(2)
  })
})

describe('prewarmJudgeHost opens the judge connections', () => {
  test("the run's judge limit of connections to an openai-compatible judge's origin", async () => {
    const w = await watch(answering(), 'http')
    const env = { AGENT_VERDICT_JUDGE: `openai-compatible:${w.base}#m`, AGENT_VERDICT_CONCURRENCY: '3' }
    expect(await prewarmJudgeHost(env)).toBe(true)
    await until(() => w.sockets.length === 3, 'three connections')
    expect(parkedConnections(w.base)).toBe(3)
  })

  test("an openai judge's connections go where its SDK sends: OPENAI_BASE_URL", async () => {
    const w = await watch(answering(), 'http')
    const env = { AGENT_VERDICT_JUDGE: 'openai:gpt-4.1-mini', OPENAI_BASE_URL: w.base }
    expect(await prewarmJudgeHost(env, { connections: 2 })).toBe(true)
    await until(() => w.sockets.length === 2, 'two connections')
  })

  test('opens none when the run replays, for Bedrock, without the judge host, or when told 0 (option or AGENT_VERDICT_PRECONNECT)', async () => {
    const w = await watch(answering(), 'http')
    const judge = `openai-compatible:${w.base}#m`
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: judge, AGENT_VERDICT_MODE: 'replay' })).toBe(false)
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: judge, CI: 'true' })).toBe(false)
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: judge, AGENT_VERDICT_REMOTE_JUDGE: '0' })).toBe(false)
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: 'bedrock' })).toBe(false)
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: judge }, { connections: 0 })).toBe(true)
    expect(await prewarmJudgeHost({ AGENT_VERDICT_JUDGE: judge, AGENT_VERDICT_PRECONNECT: '0' })).toBe(true)
    await new Promise((r) => setTimeout(r, 50))
    expect(w.sockets).toHaveLength(0)
    expect(parkedConnections(w.base)).toBe(0)
  })
})
