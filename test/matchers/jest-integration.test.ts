// Runs Jest on fixture projects (setupFilesAfterEnv: agent-verdict's entry) against the fake judge.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { JestVerdictLineSchema } from '../../src/verdict/jest-log'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { addJestFixture, jestTest, makeJestProject, runJest } from '../support/run-jest'

let fake: FakeJudge
const dirs: string[] = []
const judgeEnv = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })

beforeAll(async () => {
  fake = await startFakeJudge({
    latencyMs: 30,
    rules: [
      {
        name: 'bonus',
        when: { contains: 'bonus credit' },
        respond: { verdict: 'fail', reason: 'the policy mentions no bonus credit' },
      },
    ],
  })
})
afterAll(async () => {
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test('jest: pass, fail with the judge reason, .not, un-awaited guard, and one log line per test', async () => {
  const dir = makeJestProject('jest-text')
  dirs.push(dir)
  const testFile = addJestFixture(dir, 'text.fixture.ts')
  const logDir = join(dir, 'verdict-log')
  const run = await runJest(dir, { ...judgeEnv(), AGENT_VERDICT_MODE: 'live', AGENT_VERDICT_JEST_LOG_DIR: logDir })

  expect(jestTest(run, 'grounded answer passes').status).toBe('passed')
  const failed = jestTest(run, 'invented detail fails with the judge reason')
  expect(failed.status).toBe('failed')
  expect(failed.failureMessages[0]).toContain(
    'expect(received).toBeFaithfulTo(context)\n\nFaithfulness: fail (0/1, min 1)\nReason: the policy mentions no bonus credit',
  )
  expect(jestTest(run, '.not catches the invented detail').status).toBe('passed')
  const unawaited = jestTest(run, 'un-awaited assertion fails the test')
  expect(unawaited.status).toBe('failed')
  expect(unawaited.failureMessages.join('\n')).toContain('expect(…).toBeFaithfulTo() was not awaited — add `await`')
  expect(unawaited.failureMessages.join('\n')).toContain('Reason: the policy mentions no bonus credit')
  expect(run.code).toBe(1) // failing tests, not a crashed worker

  const files = readdirSync(logDir)
  expect(files.every((f) => /^\d+\.jsonl$/.test(f))).toBe(true)
  const lines = files
    .flatMap((f) => readFileSync(join(logDir, f), 'utf8').trim().split('\n'))
    .map((l) => JestVerdictLineSchema.parse(JSON.parse(l)))
  const byName = Object.fromEntries(lines.map((l) => [l.fullName, l]))
  expect(Object.keys(byName).sort()).toEqual([
    'refund answers .not catches the invented detail',
    'refund answers grounded answer passes',
    'refund answers invented detail fails with the judge reason',
    'refund answers un-awaited assertion fails the test',
  ])
  expect(lines.every((l) => l.testPath === testFile)).toBe(true)
  expect(byName['refund answers grounded answer passes'].verdicts.map((v) => v.metric)).toEqual([
    'faithfulness',
    'instruction-following',
  ])
  expect(byName['refund answers un-awaited assertion fails the test'].verdicts[0]).toMatchObject({ outcome: 'fail' })
})

test('jest: verdicts are recorded beside the test file and replayed with 0 judge calls', async () => {
  const dir = makeJestProject('jest-replay')
  dirs.push(dir)
  addJestFixture(dir, 'replay.fixture.ts')
  fake.reset()
  const first = await runJest(dir, judgeEnv())
  expect(first.tests.map((t) => t.status)).toEqual(['passed'])
  expect(fake.calls).toHaveLength(1)
  expect(existsSync(join(dir, '__verdicts__', 'replay.test.ts.json'))).toBe(true)

  fake.reset()
  const second = await runJest(dir, { ...judgeEnv(), CI: 'true' })
  expect(second.tests.map((t) => t.status)).toEqual(['passed'])
  expect(fake.stats.requests).toBe(0)
})

test('jest: a retried test (jest.retryTimes) replays the entries its first attempt recorded, in CI too', async () => {
  const dir = makeJestProject('jest-retry')
  dirs.push(dir)
  addJestFixture(dir, 'retry.fixture.ts')
  fake.reset()
  const first = await runJest(dir, judgeEnv())
  expect(first.tests.map((t) => t.status)).toEqual(['passed'])
  expect(fake.calls).toHaveLength(2) // the retry replayed both
  const second = await runJest(dir, {
    AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#fake-judge',
    CI: 'true',
  })
  expect(second.tests.map((t) => t.status)).toEqual(['passed'])
})

test('jest without the log variable writes no log and still judges', async () => {
  const dir = makeJestProject('jest-nolog')
  dirs.push(dir)
  addJestFixture(dir, 'replay.fixture.ts')
  const run = await runJest(dir, { ...judgeEnv(), AGENT_VERDICT_MODE: 'live' })
  expect(run.tests.map((t) => t.status)).toEqual(['passed'])
  expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl'))).toEqual([])
})
