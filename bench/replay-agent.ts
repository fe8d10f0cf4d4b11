// Agent recordings (issue 32): what recording and replaying cost per call over a direct call to a local server, and
// that a replay makes no request. One process, one run: the same calls (20 tests × 10 calls, half JSON answers, half
// short SSE streams, read to the end as an SDK would) made directly, while recording, and while replaying, in 3 rounds.
//   replay.agent.requests              requests that reached the server during the replay (goal 0)
//   replay.agent.overhead_ms.record    median per-call time while recording, minus the direct median
//   replay.agent.overhead_ms.replay    median per-call time while replaying, minus the direct median (goal ≤ 2)
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
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
  const server = createServer((req, res) => {
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
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dir = mkdtempSync(join(tmpdir(), 'av-bench-rec-'))
  const file = join(dir, 'agent.eval.ts')
  const current = new AsyncLocalStorage<{ test: string; attempt: string }>()
  const savedMode = process.env.AGENT_VERDICT_MODE

  const call = async (t: number, i: number) => {
    const started = performance.now()
    const res = await fetch(`${base}/${i % 2 ? 'stream' : 'json'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-0123456789' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: `test ${t} call ${i}` }],
        stream: i % 2 === 1,
      }),
    })
    await res.text()
    return performance.now() - started
  }
  const pass = async (label: string) => {
    const times: number[] = []
    for (let t = 0; t < TESTS; t++)
      await current.run({ test: `${label} ${t}`, attempt: '0.0' }, async () => {
        for (let i = 0; i < CALLS; i++) times.push(await call(t, i))
        const missed = await endTestRecording(`${label} ${t}`, '0.0')
        if (missed) throw missed
      })
    return times
  }

  try {
    await pass('warm-up') // JIT and the connection pool, outside any recording
    // Three rounds, each direct → record → replay, so a load swing on a shared machine hits all three alike.
    const direct: number[] = []
    const recording: number[] = []
    const replaying: number[] = []
    let requests = 0
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(...(await pass(`direct ${round}`)))
      process.env.AGENT_VERDICT_MODE = 'record'
      beginFileRecording(file, {}, () => current.getStore(), { update: false })
      recording.push(...(await pass(`round ${round}`)))
      await endFileRecording({ complete: true })
      process.env.AGENT_VERDICT_MODE = 'replay'
      beginFileRecording(file, {}, () => current.getStore(), { update: false })
      const before = served
      replaying.push(...(await pass(`round ${round}`)))
      await endFileRecording({ complete: true })
      requests += served - before
    }
    const d = median(direct)
    const detail = `per call, median of ${ROUNDS * TESTS * CALLS} (direct ${d.toFixed(2)} ms; half JSON, half SSE)`
    emit(
      'replay.agent.requests',
      requests,
      `requests reaching the server while replaying ${ROUNDS * TESTS * CALLS} calls`,
    )
    emit(
      'replay.agent.overhead_ms.record',
      median(recording) - d,
      `record ${median(recording).toFixed(2)} ms ${detail}`,
    )
    emit(
      'replay.agent.overhead_ms.replay',
      median(replaying) - d,
      `replay ${median(replaying).toFixed(2)} ms ${detail}`,
    )
  } finally {
    if (savedMode === undefined) delete process.env.AGENT_VERDICT_MODE
    else process.env.AGENT_VERDICT_MODE = savedMode
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}
