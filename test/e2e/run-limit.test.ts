// The run-wide judge limit through the real CLIs: four workers (Vitest threads, Vitest forks, Jest),
// each wanting 24 judge calls at once, against the fake judge with 10% 429s. The judge must see
// exactly the run limit in flight (not 4× it) and every verdict must arrive.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import { jestCli, vitestCli } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'

const LIMIT = 6
const CALLS = 4 * 24
const LATENCY = 300

let fake: FakeJudge
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  fake = await startFakeJudge({
    latencyMs: LATENCY,
    defaultVerdict: { verdict: 'pass', reason: 'Matches the reference.' },
  })
}, 180_000)

afterAll(async () => {
  await fake?.close()
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

// Each command is the project's own runner (runtime.ts: Vitest 5 and Node 24 on that leg).
const runs = [
  {
    name: 'Vitest threads pool',
    deps: ['vitest'],
    args: (p: string) => [vitestCli(p), 'run', '--pool=threads', '--maxWorkers=4'],
  },
  {
    name: 'Vitest forks pool',
    deps: ['vitest'],
    args: (p: string) => [vitestCli(p), 'run', '--pool=forks', '--maxWorkers=4'],
  },
  {
    name: 'Jest workers',
    deps: ['jest', '@swc/jest'],
    args: (p: string) => [jestCli(p), '--maxWorkers=4', '--cacheDirectory', '.jest-cache'],
  },
] as const

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
    AGENT_VERDICT_MODE: 'live',
    AGENT_VERDICT_CONCURRENCY: String(LIMIT),
    ...extra,
  }
}

describe('one judge limit for the whole run (4 workers)', () => {
  it.each(runs)(
    '$name: the judge sees exactly the run limit in flight, and 429s lose no verdict',
    async ({ deps, args }) => {
      const project = makeProject('run-limit', pkg.dir, deps)
      cleanup.push(project)
      fake.reset()
      fake.setFaults([{ type: 'rate-limit', rate: 0.1, retryAfter: '0.05' }])
      const result = await run(project, args(project), env())
      expect(result.output).not.toMatch(/no run coordinator/)
      expect(result.code, result.output).toBe(0)
      expect(fake.stats.maxInFlight).toBe(LIMIT)
      const throttled = fake.stats.byStatus['429'] ?? 0
      expect(throttled).toBeGreaterThan(0)
      expect(fake.stats.byStatus['200']).toBe(CALLS)
      // The summary line reports the same peak and 429s the judge saw, and that every request left from the
      // runner's main process, none from a worker (decision 0032).
      expect(result.output).toMatch(
        new RegExp(
          `judge limit \\(run-wide\\): openai-compatible:fake-judge ${LIMIT} — peak ${LIMIT} in flight, ${CALLS + throttled} calls, \\d+ waited, ${throttled} × 429; ${CALLS + throttled} sent from the runner's main process`,
        ),
      )
    },
    180_000,
  )

  it('control: without the global setup each worker has its own limit, so the judge sees more than the run limit', async () => {
    const project = makeProject('run-limit', pkg.dir, ['vitest'])
    cleanup.push(project)
    fake.reset()
    fake.setFaults([])
    // Two workers' calls must overlap to exceed the limit. At 300 ms a worker's 24 calls (6 at a time) are done in
    // ~1.2 s, and on a loaded machine workers can start further apart than that: at 1 s each one is busy ~4 s.
    fake.setLatency(1_000)
    onTestFinished(() => fake.setLatency(LATENCY))
    const result = await run(
      project,
      [vitestCli(project), 'run', '--pool=forks', '--maxWorkers=4'],
      env({ NO_GLOBAL_SETUP: '1' }),
    )
    expect(result.code, result.output).toBe(0)
    expect(fake.stats.maxInFlight).toBeGreaterThan(LIMIT)
    expect(result.output).toMatch(/no run coordinator, so judge concurrency 6 applies per worker/)
    // Said once for the run, not once per worker.
    expect(result.output.match(/no run coordinator/g)).toHaveLength(1)
  }, 180_000)

  it('Jest with the global setup and one test file (run in band, no workers) ends when its tests do', async () => {
    const project = makeProject('run-limit', pkg.dir, ['jest', '@swc/jest'])
    cleanup.push(project)
    for (const n of [2, 3, 4]) rmSync(join(project, `worker${n}.test.ts`))
    fake.reset()
    fake.setFaults([])
    const started = Date.now()
    // Jest's global setup has no teardown: the coordinator's end of the run's own connection kept Jest open forever.
    const result = await run(project, [jestCli(project), '--cacheDirectory', '.jest-cache'], env())
    expect(result.code, result.output).toBe(0)
    expect(result.output).not.toMatch(/did not exit/)
    expect(fake.stats.byStatus['200']).toBeGreaterThan(0)
    expect(Date.now() - started).toBeLessThan(50_000)
  }, 60_000)
})
