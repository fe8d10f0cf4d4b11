// The judge-based trace matchers go through the test file's cassette: recorded on the first run,
// replayed with no judge call on the next (here in CI mode, where a miss would fail).
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { parseCassette } from '../../../src/cassette/store'
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

const env = () => ({
  AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
  AV_TRAIL_FIXTURES: FIXTURE_DIR,
})
const verdictsOf = (meta: Record<string, unknown>) =>
  (meta[VERDICT_META_KEY] as TestVerdictMeta | undefined)?.verdicts ?? []

test('first run records every span and agent judgement; the second replays them in CI with 0 judge calls', async () => {
  const first = await runVitest(dir, env())
  expect(first.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  const calls = fake.calls.length
  expect(calls).toBeGreaterThan(1)
  const cassette = join(dir, '__verdicts__', 'trace-cassette.test.ts.json')
  expect(existsSync(cassette)).toBe(true)
  const text = readFileSync(cassette, 'utf8')
  const entries = Object.values(parseCassette(text, cassette).entries)
  expect(entries).toHaveLength(calls)
  // Named for review: span entries by test › matcher › positional span, each with that span's verdicts.
  const spans = entries.filter((e) => e.matcher === 'toHaveNoFailingSpans')
  expect(spans.length).toBe(calls - 1)
  for (const e of spans) {
    expect(e.test).toBe('span verdicts replay')
    expect(e.span).toMatch(/^1(\.\d+)+ (llm|tool):\S/)
    expect(e.verdicts!.map((v) => v.metric).sort()).toEqual([
      'span.error_category',
      'span.instruction_following',
      'span.reasoning_integrity',
      'span.tool_completeness',
    ])
    expect(e.verdicts!.find((v) => v.metric === 'span.reasoning_integrity')!.score).toMatch(/^[1-5]\/5$/)
  }
  const agent = entries.find((e) => e.matcher === 'toFollowPlan')!
  expect(agent.test).toBe('agent verdicts replay')
  expect(agent.verdicts!.map((v) => v.metric)).toContain('agent.plan_efficiency')
  // Span ids are random per live capture: the reviewed file names spans by position only.
  expect(text).not.toMatch(/05168be1bb804a8d|ecc4e15abed97adb/)

  fake.reset()
  const second = await runVitest(dir, { ...env(), CI: 'true' })
  expect(second.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
  expect(fake.stats.requests).toBe(0)
  const judged = second.tests.flatMap((t) => verdictsOf(t.meta)).filter((v) => v.judge)
  expect(judged.length).toBeGreaterThan(0)
  expect(judged.every((v) => v.judge!.cached)).toBe(true)
})
