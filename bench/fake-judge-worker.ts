// Runs the fake judge in a worker thread for benchmarks, so the server's CPU does not compete with the
// client under measurement on the main thread (a real judge is another machine).
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { startFakeJudge, type FakeJudge } from '../src/testing/fake-judge'
import type { FakeJudgeFault, FakeJudgeOptions, FakeJudgeStats } from '../src/testing/schemas'

type Command =
  | { id: number; op: 'setFaults'; faults: FakeJudgeFault[] }
  | { id: number; op: 'reset' }
  | { id: number; op: 'stats' }
  | { id: number; op: 'close' }

/** The parts of a FakeJudge a benchmark needs, across the thread boundary. */
export interface RemoteFakeJudge {
  baseURL: string
  setFaults(faults: FakeJudgeFault[]): Promise<void>
  reset(): Promise<void>
  stats(): Promise<{ calls: number; stats: FakeJudgeStats }>
  close(): Promise<void>
}

/**
 * Starts the fake judge in a worker thread (inherits `--import tsx` from the parent's execArgv).
 *
 * @example
 * const fake = await startFakeJudgeInWorker({ latencyMs: 100 })
 * await fake.setFaults([{ type: 'rate-limit', rate: 0.1, retryAfter: '0.2' }])
 */
export async function startFakeJudgeInWorker(options: FakeJudgeOptions): Promise<RemoteFakeJudge> {
  // A worker does not inherit the parent's tsx hooks: register them, then load this file as the worker body.
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}) })`
  const worker = new Worker(bootstrap, { eval: true, workerData: options })
  // biome-ignore lint/suspicious/noExplicitAny: replies of every message kind go through one map
  const pending = new Map<number, (value: any) => void>()
  let nextId = 0
  const baseURL = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject)
    worker.once('message', (m: { baseURL: string }) => resolve(m.baseURL))
  })
  worker.on('message', (m: { id: number; result: unknown }) => pending.get(m.id)?.(m.result))
  const call = <T>(command: Record<string, unknown>): Promise<T> =>
    new Promise((resolve) => {
      const id = ++nextId
      pending.set(id, (value) => {
        pending.delete(id)
        resolve(value)
      })
      worker.postMessage({ ...command, id })
    })
  return {
    baseURL,
    setFaults: (faults) => call({ op: 'setFaults', faults }),
    reset: () => call({ op: 'reset' }),
    stats: () => call({ op: 'stats' }),
    close: async () => {
      await call({ op: 'close' })
      await worker.terminate()
    },
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort
  const fake: FakeJudge = await startFakeJudge(workerData as FakeJudgeOptions)
  port.postMessage({ baseURL: fake.baseURL })
  port.on('message', async (command: Command) => {
    let result: unknown = null
    if (command.op === 'setFaults') fake.setFaults(command.faults)
    else if (command.op === 'reset') fake.reset()
    else if (command.op === 'stats') result = { calls: fake.calls.length, stats: structuredClone(fake.stats) }
    else if (command.op === 'close') await fake.close()
    port.postMessage({ id: command.id, result })
  })
}
