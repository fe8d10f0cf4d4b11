// Agent recordings (issue 32): what recording and replaying cost per call over a direct call to a local server, and
// that a replay makes no request. One process, one run: the same calls (20 tests × 10 calls, half JSON answers, half
// short SSE streams, read to the end as an SDK would) made directly, while recording, and while replaying, in 3 rounds.
//   replay.agent.requests              requests that reached the server during the replay (goal 0)
//   replay.agent.overhead_ms.record    median per-call time while recording, minus the direct median
//   replay.agent.overhead_ms.replay    median per-call time while replaying, minus the direct median (goal ≤ 2)
//   replay.agent.http2.overhead_ms.*   the same calls over node:http2 (a session per test, opened in it as an SDK
//                                      client built in the test does) against the same answers on h2c
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import http2 from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beginFileRecording, endFileRecording, endTestRecording } from '../src/recording/recorder'
import type { Emit } from './emit'

const TESTS = 20
const CALLS = 10
const ROUNDS = 3

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

export async function run(emit: Emit): Promise<void> {
  let served = 0
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    served++
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (let i = 0; i < 4; i++)
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `part ${i} ` } }] })}\n\n`)
        res.end('data: [DONE]\n\n')
      } else {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ choices: [{ message: { content: `answer to ${body.length} bytes` } }] }))
      }
    })
  }
  const server = createServer(answer)
  // The compatibility API has what `answer` uses (url, data and end; writeHead, write, end).
  const h2server = http2.createServer((req, res) =>
    answer(req as unknown as IncomingMessage, res as unknown as ServerResponse),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  await new Promise<void>((resolve) => h2server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const h2origin = `http://127.0.0.1:${(h2server.address() as AddressInfo).port}`
  const dir = mkdtempSync(join(tmpdir(), 'av-bench-rec-'))
  const file = join(dir, 'agent.eval.ts')
  const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
  const savedMode = process.env.AGENT_VERDICT_MODE

  const payload = (t: number, i: number) =>
    JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `test ${t} call ${i}` }], stream: i % 2 === 1 })
  const call = async (t: number, i: number) => {
    const started = performance.now()
    const res = await fetch(`${base}/${i % 2 ? 'stream' : 'json'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-0123456789' },
      body: payload(t, i),
    })
    await res.text()
    return performance.now() - started
  }
  /** One request on an HTTP/2 session, read to its end. */
  const call2 = (session: http2.ClientHttp2Session, t: number, i: number) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now()
      const stream = session.request({
        ':method': 'POST',
        ':path': `/${i % 2 ? 'stream' : 'json'}`,
        'content-type': 'application/json',
        authorization: 'Bearer sk-bench-0123456789',
      })
      stream.on('data', () => {})
      stream.on('end', () => resolve(performance.now() - started))
      stream.on('error', reject)
      stream.end(payload(t, i))
    })
  const pass = async (label: string, over: 'http1' | 'http2') => {
    const times: number[] = []
    for (let t = 0; t < TESTS; t++)
      await current.run({ test: `${label} ${t}`, attempt: '0.0' }, async () => {
        const session = over === 'http2' ? http2.connect(h2origin) : undefined
        for (let i = 0; i < CALLS; i++) times.push(await (session ? call2(session, t, i) : call(t, i)))
        session?.close()
        const missed = await endTestRecording(`${label} ${t}`, '0.0')
        if (missed) throw missed
      })
    return times
  }
  const measure = async (over: 'http1' | 'http2') => {
    await pass(`warm-up ${over}`, over) // JIT and the connection pool, outside any recording
    // Three rounds, each direct → record → replay, so a load swing on a shared machine hits all three alike.
    const direct: number[] = []
    const recording: number[] = []
    const replaying: number[] = []
    let requests = 0
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(...(await pass(`direct ${over} ${round}`, over)))
      process.env.AGENT_VERDICT_MODE = 'record'
      beginFileRecording(file, {}, () => current.getStore(), { update: false })
      recording.push(...(await pass(`${over} round ${round}`, over)))
      await endFileRecording({ complete: true })
      process.env.AGENT_VERDICT_MODE = 'replay'
      beginFileRecording(file, {}, () => current.getStore(), { update: false })
      const before = served
      replaying.push(...(await pass(`${over} round ${round}`, over)))
      await endFileRecording({ complete: true })
      requests += served - before
    }
    return { direct: median(direct), record: median(recording), replay: median(replaying), requests }
  }

  try {
    const h1 = await measure('http1')
    const h2 = await measure('http2')
    const calls = ROUNDS * TESTS * CALLS
    const detail = (d: number) => `per call, median of ${calls} (direct ${d.toFixed(2)} ms; half JSON, half SSE)`
    emit(
      'replay.agent.requests',
      h1.requests + h2.requests,
      `requests reaching the servers while replaying ${2 * calls} calls (half over HTTP/1.1, half over HTTP/2)`,
    )
    emit(
      'replay.agent.overhead_ms.record',
      h1.record - h1.direct,
      `record ${h1.record.toFixed(2)} ms ${detail(h1.direct)}`,
    )
    emit(
      'replay.agent.overhead_ms.replay',
      h1.replay - h1.direct,
      `replay ${h1.replay.toFixed(2)} ms ${detail(h1.direct)}`,
    )
    emit(
      'replay.agent.http2.overhead_ms.record',
      h2.record - h2.direct,
      `record ${h2.record.toFixed(2)} ms ${detail(h2.direct)}, over node:http2`,
    )
    emit(
      'replay.agent.http2.overhead_ms.replay',
      h2.replay - h2.direct,
      `replay ${h2.replay.toFixed(2)} ms ${detail(h2.direct)}, over node:http2`,
    )
  } finally {
    if (savedMode === undefined) delete process.env.AGENT_VERDICT_MODE
    else process.env.AGENT_VERDICT_MODE = savedMode
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await new Promise((resolve) => h2server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}
