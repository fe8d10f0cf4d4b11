// The trials of bench/preconnect.ts, in a process started with NODE_EXTRA_CA_CERTS (the test-only certificate
// the https judge endpoint uses), which Node reads only at start. Prints one JSON line of results.
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { preconnect, transportFetch } from '../src/judges/http-transport'
import { startFakeJudge } from '../src/testing/fake-judge'

const [tlsDir, rttArg, trialsArg, waveArg, latencyArg] = process.argv.slice(2)
const RTT = Number(rttArg)
const TRIALS = Number(trialsArg)
const WAVE = Number(waveArg)
const L = Number(latencyArg)
/** What the worker's start gives the connections to open: the plugin's window is ~250 ms. */
const HEAD_START_MS = 250

/** Relays `from` to `to`, each chunk `delayMs` later and never before `openAt`, in order. */
function relay(from: Socket, to: Socket, delayMs: number, openAt: number): void {
  const queue: Array<{ chunk: Buffer; at: number }> = []
  let timer: NodeJS.Timeout | undefined
  let ended = false
  const drain = () => {
    timer = undefined
    while (queue.length > 0 && queue[0].at <= Date.now()) to.write(queue.shift()?.chunk as Buffer)
    if (queue.length > 0) timer = setTimeout(drain, queue[0].at - Date.now())
    else if (ended) to.end()
  }
  from.on('data', (chunk: Buffer) => {
    queue.push({ chunk, at: Math.max(Date.now() + delayMs, openAt) })
    timer ??= setTimeout(drain, queue[0].at - Date.now())
  })
  from.on('end', () => {
    ended = true
    if (queue.length === 0 && !timer) to.end()
  })
}

/** A TCP proxy adding `rttMs` of round trip to every byte, and one more round trip before a connection's first. */
async function latencyProxy(targetPort: number, rttMs: number): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    const openAt = Date.now() + rttMs
    relay(client, upstream, rttMs / 2, openAt)
    relay(upstream, client, rttMs / 2, openAt)
    const kill = () => {
      client.destroy()
      upstream.destroy()
    }
    for (const s of [client, upstream]) {
      s.on('error', kill)
      s.on('close', kill)
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return server
}

const fake = await startFakeJudge({ latencyMs: L, defaultVerdict: { verdict: 'pass', reason: 'ok' } })
const upstream = new URL(fake.baseURL)
let handshakes = 0
const tls = createHttpsServer(
  { key: readFileSync(join(tlsDir, 'localhost-key.pem')), cert: readFileSync(join(tlsDir, 'localhost-cert.pem')) },
  (req, res) => {
    const forward = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.destroy())
    req.pipe(forward)
  },
)
tls.on('secureConnection', () => handshakes++)
await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r))
const body = JSON.stringify({ model: 'fake-judge', messages: [{ role: 'user', content: 'Is 2 + 2 = 4?' }] })

/** One first wave: WAVE calls at once on a fresh origin (a new proxy port: no pooled connection to reuse). */
async function wave(opened: boolean): Promise<{ ms: number; handshakes: number; ahead: number; ok: number }> {
  const proxy = await latencyProxy((tls.address() as AddressInfo).port, RTT)
  const base = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`
  handshakes = 0
  if (opened) preconnect(base, WAVE)
  await new Promise((r) => setTimeout(r, HEAD_START_MS))
  const ahead = handshakes
  const t0 = performance.now()
  const answers = await Promise.all(
    Array.from({ length: WAVE }, () =>
      transportFetch(`${base}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        body,
      }),
    ),
  )
  const ms = performance.now() - t0
  proxy.close()
  return { ms, handshakes, ahead, ok: answers.filter((a) => a.status === 200).length }
}

await wave(true) // warm-up: JIT, the TLS code
const pairs: Array<{ off: Awaited<ReturnType<typeof wave>>; on: Awaited<ReturnType<typeof wave>> }> = []
for (let i = 0; i < TRIALS; i++) {
  const off = await wave(false)
  const on = await wave(true)
  pairs.push({ off, on })
}
console.log(JSON.stringify(pairs))
tls.closeAllConnections()
tls.close()
await fake.close()
process.exit(0)
