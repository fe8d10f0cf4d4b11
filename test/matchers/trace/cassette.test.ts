// The judge-based trace matchers go through the test file's cassette: recorded on the first run,
// replayed with no judge call on the next (here in CI mode, where a miss would fail).
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { CassetteFileSchema } from '../../../src/cassette/store'
import { startFakeJudge, type FakeJudge } from '../../../src/testing/fake-judge'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../../src/verdict/meta'
import { FIXTURE_DIR } from '../../helpers/trail'
import { addFixture, makeScratchProject, runVitest } from '../../support/run-vitest'

let fake: FakeJudge
let dir: string
beforeAll(async () => {
  fake = await startFakeJudge()
  dir = makeScratchProject('trace-cassette')
  addFixture(dir, 'trace-cassette.fixture.ts')
})
afterAll(async () => {
  await fake.close()
  rmSync(dir, { recursive: true, force: true })
})

const env = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`, AV_TRAIL_FIXTURES: FIXTURE_DIR })
const verdictsOf = (meta: Record<string, unknown>) => (meta[VERDICT_META_KEY] as TestVerdictMeta | undefined)?.verdicts ?? []

test('first run records every span and agent judgement; the second replays them in CI with 0 judge calls', async () => {
  const first = await runVitest(dir, env())
  expect(first.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  const calls = fake.calls.length
  expect(calls).toBeGreaterThan(1)
  const cassette = join(dir, '__verdicts__', 'trace-cassette.test.ts.json')
  expect(existsSync(cassette)).toBe(true)
  expect(Object.keys(CassetteFileSchema.parse(JSON.parse(readFileSync(cassette, 'utf8'))).entries)).toHaveLength(calls)

  fake.reset()
  const second = await runVitest(dir, { ...env(), CI: 'true' })
  expect(second.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  expect(fake.stats.requests).toBe(0)
  const judged = second.tests.flatMap((t) => verdictsOf(t.meta)).filter((v) => v.judge)
  expect(judged.length).toBeGreaterThan(0)
  expect(judged.every((v) => v.judge!.cached)).toBe(true)
})
