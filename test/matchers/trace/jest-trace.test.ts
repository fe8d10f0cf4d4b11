// The trace matchers under real Jest (setupFilesAfterEnv: agent-verdict's entry) against the fake judge:
// one implementation for both runners, sync matchers sync, verdicts and the span tree in the worker log.
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startFakeJudge, type FakeJudge } from '../../../src/testing/fake-judge'
import { JestVerdictLineSchema } from '../../../src/verdict/jest-log'
import { FIXTURE_DIR } from '../../helpers/trail'
import { addJestFixture, jestTest, makeJestProject, runJest } from '../../support/run-jest'

let fake: FakeJudge
let dir: string
beforeAll(async () => {
  fake = await startFakeJudge()
  dir = makeJestProject('jest-trace')
})
afterAll(async () => {
  await fake.close()
  rmSync(dir, { recursive: true, force: true })
})

test('jest: deterministic and judged trace matchers, .not and .resolves, with verdicts and traces in the log', async () => {
  addJestFixture(dir, 'trace.fixture.ts')
  const logDir = join(dir, 'verdict-log')
  const run = await runJest(dir, {
    AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
    AGENT_VERDICT_MODE: 'live',
    AGENT_VERDICT_JEST_LOG_DIR: logDir,
    AV_TRAIL_FIXTURES: FIXTURE_DIR,
  })

  expect(jestTest(run, 'calls the inspector once, never web_search').status).toBe('passed')
  const budget = jestTest(run, 'too many tokens fails with the crossing span')
  expect(budget.status).toBe('failed')
  expect(budget.failureMessages[0]).toContain(
    'expect(received).toStayWithinBudget(budget)\n\nThe run exceeded 1 of 1 budget (tokens):\n  ✗ tokens: 32,481 tokens > limit 20,000 tokens — crossed at llm:LiteLLMModel.__call__ (id 8133aad4…',
  )
  expect(jestTest(run, 'resolves works with the synchronous matchers').status).toBe('passed')
  const spans = jestTest(run, 'a format failure fails the span check')
  expect(spans.status).toBe('failed')
  expect(spans.failureMessages[0]).toMatch(
    /expect\(received\)\.toHaveNoFailingSpans\(\)\n\n\d+ of \d+ judged spans failed \(policy existential\):\n {2}✗ llm:LiteLLMModel\.__call__ \(id dc63c344…/,
  )
  expect(jestTest(run, 'the run completes its task').status).toBe('passed')
  expect(run.code).toBe(1)

  const lines = readdirSync(logDir)
    .flatMap((f) => readFileSync(join(logDir, f), 'utf8').trim().split('\n'))
    .map((l) => JestVerdictLineSchema.parse(JSON.parse(l)))
  const byName = Object.fromEntries(lines.map((l) => [l.fullName, l]))
  // The .not.toCallTool('web_search') verdict says the tool was not called (fail) and that .not expected that (passed).
  expect(
    byName['trace calls the inspector once, never web_search'].verdicts.map((v) => [
      v.metric,
      v.outcome,
      v.assertion?.negated,
      v.assertion?.passed,
    ]),
  ).toEqual([
    ['tool-call', 'pass', false, true],
    ['tool-call', 'fail', true, true],
  ])
  const diagnosed = byName['trace a format failure fails the span check']
  expect(diagnosed.traces?.[0].id).toBe('d67a8ae853c0b8ed0e55f7fafe4e2f64')
  expect(diagnosed.traces?.[0].spans.find((s) => s.id === 'dc63c344d10012bc')).toMatchObject({
    failed: true,
    verdictIds: expect.arrayContaining(['dc63c344d10012bc:detector:error-status:Formatting Errors']),
  })
  expect(byName['trace the run completes its task'].verdicts.map((v) => [v.metric, v.level, v.outcome])).toEqual([
    ['agent.completeness', 'agent', 'pass'],
  ])
})
