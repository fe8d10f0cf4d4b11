// Repeated agent trials under real Vitest and Jest against the fake judge: trial 3 of 5 fails; the
// rules decide; a replay of the recorded trials makes 0 judge calls.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import { addJestFixture, jestTest, makeJestProject, runJest } from '../support/run-jest'
import { addFixture, byTitle, makeScratchProject, runVitest } from '../support/run-vitest'

let fake: FakeJudge
const dirs: string[] = []
const judgeEnv = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })

beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      {
        name: 'wrong-region',
        when: { contains: 'WRONG-REGION' },
        respond: { verdict: 'fail', reason: 'names EMEA, the reference says North America' },
      },
    ],
  })
})
afterAll(async () => {
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

// The fixture imports runTrials by its path in the repo; the scratch project sits at .tmp/<name>/.
const relocate = (file: string) =>
  writeFileSync(file, readFileSync(file, 'utf8').replace("'../../../../src/", "'../../src/"))

const EXPECTED = {
  'pass^5': 'failed',
  'pass@5': 'passed',
  'passRate 0.8': 'passed',
  'passRate 0.8 on the Wilson lower bound': 'failed',
} as const

test('vitest: pass^5 fails, pass@5 passes, passRate 0.8 passes with its interval; the replay makes 0 judge calls', async () => {
  const dir = makeScratchProject('trials')
  dirs.push(dir)
  relocate(addFixture(dir, 'trials.fixture.ts'))
  fake.reset()
  const first = await runVitest(dir, judgeEnv())
  for (const [title, status] of Object.entries(EXPECTED))
    expect([title, byTitle(first, title).status]).toEqual([title, status])
  expect(fake.stats.requests).toBe(20) // 4 tests × 5 trials, each judged once

  const all = byTitle(first, 'pass^5')
  expect(all.failureMessages.join('\n')).toContain(
    'Rule: pass^5 (all 5 must pass)\nPassed: 4/5 (rate 0.8, 95% Wilson interval 0.3755–0.9638)\nTrials: 1 ✓  2 ✓  3 ✗  4 ✓  5 ✓\nTrial 3: fail — names EMEA, the reference says North America',
  )
  const verdict = (first.tests.find((t) => t.title === 'passRate 0.8')!.meta[VERDICT_META_KEY] as TestVerdictMeta)
    .verdicts[0]
  expect(verdict).toMatchObject({
    metric: 'correctness',
    outcome: 'pass',
    score: 0.8,
    trials: { k: 5, passes: 4, rate: 0.8, rule: { kind: 'passRate', min: 0.8, bound: 'point' } },
  })
  expect(verdict.trials!.lower).toBeCloseTo(0.3755, 4)
  expect(verdict.trials!.upper).toBeCloseTo(0.9638, 4)

  fake.reset()
  const replay = await runVitest(dir, { ...judgeEnv(), CI: 'true' })
  for (const [title, status] of Object.entries(EXPECTED))
    expect([title, byTitle(replay, title).status]).toEqual([title, status])
  expect(fake.stats.requests).toBe(0)
  const replayed = (byTitle(replay, 'pass@5').meta[VERDICT_META_KEY] as TestVerdictMeta).verdicts[0]
  expect(replayed.judge?.cached).toBe(true)
})

test('jest: the same rules decide the same way, and the replay makes 0 judge calls', async () => {
  const dir = makeJestProject('jest-trials')
  dirs.push(dir)
  relocate(addJestFixture(dir, 'trials.fixture.ts'))
  fake.reset()
  const first = await runJest(dir, judgeEnv())
  for (const [title, status] of Object.entries(EXPECTED))
    expect([title, jestTest(first, title).status]).toEqual([title, status])
  expect(fake.stats.requests).toBe(20)
  expect(jestTest(first, 'pass^5').failureMessages.join('\n')).toContain(
    'Passed: 4/5 (rate 0.8, 95% Wilson interval 0.3755–0.9638)',
  )

  fake.reset()
  const replay = await runJest(dir, { ...judgeEnv(), CI: 'true' })
  for (const [title, status] of Object.entries(EXPECTED))
    expect([title, jestTest(replay, title).status]).toEqual([title, status])
  expect(fake.stats.requests).toBe(0)
})
