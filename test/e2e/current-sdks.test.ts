// Issue 38: an agent on openai 7 whose tests also mock an API with the user's own msw 3, under Vitest 5 on Node 24
// with the plugin's agent recordings: the model calls are recorded and replayed in CI with the model and the judge
// stopped, and the user's msw answers its mocks in both runs. openai 7 and msw 3 need Node 22+, so this runs on the
// current runtime (runtime.ts) only; the default runtime's recordings e2e (recordings.test.ts) holds the same with
// openai 6, and test/recording/matching.test.ts holds msw 2 beside recordings.
//
// Known bug, not fixed here: msw 3 runs on @mswjs/interceptors 0.45, which answers mocks below `fetch` (at the
// socket) and keeps its instances in a registry of its own instead of the global marks 0.41 (ours, msw 2's) shares.
// Our fetch patch sits on top of msw 3's, sees a msw-mocked answer as a real one and records it, and in CI replays it
// before msw is asked: a user's changed mock would not be seen in CI. The `it.fails` below holds that until fixed.
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseRecording } from '../../src/recording/format'
import { startFakeJudge } from '../../src/testing/index'
import { startAgentServers } from '../support/agent-servers'
import { runtimeHas, vitestCli } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'

const cleanup: string[] = []

const pkg = usePackageUnderTest()

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

const major = (project: string, dep: string) =>
  Number(
    (
      JSON.parse(readFileSync(join(project, 'node_modules', dep, 'package.json'), 'utf8')) as { version: string }
    ).version.split('.')[0],
  )

// The steps share the project (record, then read the recording), in this order even when CI shuffles the suite.
describe.skipIf(!runtimeHas('msw') || !runtimeHas('openai'))(
  'openai 7 and msw 3 (current runtime only)',
  { shuffle: false },
  () => {
    let project: string

    it('records the openai 7 calls beside the user’s msw 3 mocks, replays them in CI with the model and judge stopped', async () => {
      project = makeProject('current-sdks', pkg.dir, ['vitest', 'openai', 'msw'])
      cleanup.push(project)
      expect([major(project, 'openai'), major(project, 'msw')]).toEqual([7, 3])
      const vitest = [vitestCli(project), 'run']
      const servers = await startAgentServers()
      const fake = await startFakeJudge({ defaultVerdict: { verdict: 'pass', reason: 'One sentence.' } })
      const env = { MODEL_URL: servers.modelUrl, AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` }
      try {
        const recorded = await run(project, vitest, env)
        expect(recorded.code, recorded.output).toBe(0)
        expect(servers.requests()).toBe(2) // one model call per test; msw answered the inventory calls
        expect(fake.calls).toHaveLength(2)
      } finally {
        await servers.close()
        await fake.close()
      }
      expect(readdirSync(join(project, '__recordings__'))).toEqual(['shop.eval.ts.json'])
      const text = readFileSync(join(project, '__recordings__', 'shop.eval.ts.json'), 'utf8')
      const recording = parseRecording(text, 'shop.eval.ts.json')
      // Each test's model call is recorded, with its answer, and no key.
      for (const t of recording.tests) {
        expect(t.calls.filter((c) => new URL(c.request.url).pathname === '/v1/chat/completions')).toHaveLength(1)
      }
      expect(recording.tests).toHaveLength(2)
      expect(text).not.toContain('sk-planted-openai7-key')

      // CI: the model server and the judge are closed, so any call would fail.
      const ci = await run(project, vitest, { ...env, CI: 'true' })
      expect(ci.code, ci.output).toBe(0)
      expect(ci.output).toMatch(/Tests {2}2 passed \(2\)/)
    }, 180_000)

    // The known bug above: expected to fail until our interception joins msw 3's (interceptors 0.45) registry.
    it.fails('KNOWN BUG: the msw-mocked inventory calls stay out of the recording (they are recorded beside msw 3)', () => {
      const text = readFileSync(join(project, '__recordings__', 'shop.eval.ts.json'), 'utf8')
      expect(text).not.toContain('inventory.example.test')
    })
  },
)
