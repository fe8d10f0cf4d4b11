// Run-wide judge limit: 4 worker processes × 50 judge assertions against the fake judge (L = 100 ms)
// with a run limit of 8 through the coordinator. The judge must see at most 8 in flight (4 workers
// with their own limiters would put 32 there); the ratio is wall ÷ ⌈200/8⌉·L, timed from the moment
// every worker is loaded and connected. Again with every 10th request answered 429: 0 lost.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startCoordinator } from '../src/judges/coordinator'
import type { FakeJudgeFault } from '../src/testing/schemas'
import type { Emit } from './emit'
import { startFakeJudgeInWorker, type RemoteFakeJudge } from './fake-judge-worker'

const WORKERS = 4
const PER_WORKER = 50
const LIMIT = 8
const L = 100
const CHILD = fileURLToPath(new URL('./workers-child.ts', import.meta.url))

interface Round {
  wallMs: number
  lost: number
  maxInFlight: number
  throttled: number
  peak: number
  waits: number
}

async function round(fake: RemoteFakeJudge, faults: FakeJudgeFault[]): Promise<Round> {
  await fake.setFaults(faults)
  await fake.reset()
  const coordinator = await startCoordinator({ concurrency: LIMIT, env: {} })
  try {
    const children = Array.from({ length: WORKERS }, (_, w) =>
      fork(CHILD, [fake.baseURL, String(w), String(PER_WORKER)], {
        execArgv: ['--import', 'tsx'],
        // The worker's own limiter would allow 8 each; only the coordinator keeps the total at 8.
        env: { ...process.env, AGENT_VERDICT_COORDINATOR: coordinator.address, AGENT_VERDICT_CONCURRENCY: '' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    )
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))))
    await fake.reset() // the warm-up calls are not part of the figure
    const started = performance.now()
    const done = children.map(
      (c) =>
        new Promise<{ lost: number }>((resolve, reject) => {
          c.once('message', (m) => resolve(m as { lost: number }))
          c.once('exit', (code) => code !== 0 && reject(new Error(`bench worker exited with ${code}`)))
        }),
    )
    for (const c of children) c.send('go')
    const results = await Promise.all(done)
    const wallMs = performance.now() - started
    const { stats } = await fake.stats()
    const [pool] = coordinator.stats()
    return {
      wallMs,
      lost: results.reduce((n, r) => n + r.lost, 0),
      maxInFlight: stats.maxInFlight,
      throttled: stats.byStatus['429'] ?? 0,
      peak: pool?.peakInFlight ?? 0,
      waits: pool?.waits ?? 0,
    }
  } finally {
    await coordinator.close()
  }
}

const detail = (r: Round, ideal: number) =>
  `wall=${Math.round(r.wallMs)}ms ideal=${ideal}ms workers=${WORKERS} assertions=${WORKERS * PER_WORKER} limit=${LIMIT} L=${L}ms judge_max_in_flight=${r.maxInFlight} coordinator_peak=${r.peak} waits=${r.waits} 429s=${r.throttled} lost=${r.lost}`

export async function run(emit: Emit): Promise<void> {
  const fake = await startFakeJudgeInWorker({ latencyMs: L, rules: [{ respond: { score: 4, reason: 'scheduled' } }] })
  try {
    const ideal = Math.ceil((WORKERS * PER_WORKER) / LIMIT) * L
    const plain = await round(fake, [])
    emit('judge.workers.max_in_flight', plain.maxInFlight, `goal=${LIMIT} (as the fake judge counted)`)
    emit('judge.workers.ratio', plain.wallMs / ideal, detail(plain, ideal))
    emit('judge.workers.lost', plain.lost, 'goal=0')
    const throttled = await round(fake, [{ type: 'rate-limit', rate: 0.1, retryAfter: '0.1' }])
    emit('judge.workers_429.max_in_flight', throttled.maxInFlight, `goal<=${LIMIT}`)
    emit('judge.workers_429.ratio', throttled.wallMs / ideal, detail(throttled, ideal))
    emit('judge.workers_429.lost', throttled.lost, 'goal=0')
  } finally {
    await fake.close()
  }
}
