// Runs Vitest on fixture projects (setupFiles: agent-verdict's entry) against the fake judge.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseCassette } from '../../src/cassette/store'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { VERDICT_META_KEY, type TestVerdictMeta } from '../../src/verdict/meta'
import { REPO, addFixture, byTitle, makeScratchProject, runVitest } from '../support/run-vitest'

let fake: FakeJudge
const dirs: string[] = []
const project = (prefix: string) => {
  const dir = makeScratchProject(prefix)
  dirs.push(dir)
  return dir
}
const judgeEnv = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })
const verdictsOf = (meta: Record<string, unknown>) =>
  (meta[VERDICT_META_KEY] as TestVerdictMeta | undefined)?.verdicts ?? []

beforeAll(async () => {
  fake = await startFakeJudge({
    latencyMs: { min: 20, max: 120 },
    rules: [
      {
        name: 'emea',
        when: { contains: 'EMEA leads' },
        respond: { verdict: 'fail', reason: 'the context says North America leads' },
      },
    ],
  })
})
afterAll(async () => {
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test('a matcher the test forgot to await still fails the test, with a message saying to add await', async () => {
  const dir = project('unawaited')
  addFixture(dir, 'unawaited.fixture.ts')
  const run = await runVitest(dir, { ...judgeEnv(), AGENT_VERDICT_MODE: 'live' })

  const failing = byTitle(run, 'un-awaited failing assertion')
  expect(failing.status).toBe('failed')
  expect(failing.failureMessages.join('\n')).toContain('expect(…).toBeFaithfulTo() was not awaited — add `await`')
  // The error's first frame is the test line that forgot the await, not the hook that found it.
  const firstFrame = failing.failureMessages
    .join('\n')
    .split('\n')
    .find((l) => /^\s+at /.test(l))
  expect(firstFrame).toMatch(/unawaited\.test\.ts:7:/)
  expect(failing.failureMessages.join('\n')).toContain(
    'would have failed:\nexpect(received).toBeFaithfulTo(context)\n\nFaithfulness: fail',
  )
  // The guard reports it on the test; no stray rejection escapes as an unhandled error.
  expect(run.stdout + run.stderr).not.toMatch(/Unhandled/i)
  // The verdict still arrived and was attached, so the report shows what the judge said.
  expect(verdictsOf(failing.meta)).toEqual([
    expect.objectContaining({ outcome: 'fail', reason: 'the context says North America leads' }),
  ])

  expect(byTitle(run, 'un-awaited passing assertion').status).toBe('failed')
  expect(byTitle(run, 'awaited passing assertion').status).toBe('passed')
  expect(run.code).toBe(1)
})

test('concurrent tests with the context expect each get exactly their own verdicts', async () => {
  const dir = project('concurrent')
  addFixture(dir, 'concurrent.fixture.ts')
  fake.reset()
  const run = await runVitest(dir, { ...judgeEnv(), AGENT_VERDICT_MODE: 'live' })
  expect(run.tests).toHaveLength(6)
  expect(fake.stats.maxInFlight).toBeGreaterThan(1) // they really overlapped
  for (const t of run.tests) {
    expect(t.status).toBe('passed')
    const verdicts = verdictsOf(t.meta)
    expect(verdicts.map((v) => [v.metric, v.subject])).toEqual([
      ['faithfulness', `${t.title}: North America leads.`],
      ['instruction-following', `${t.title}: second answer.`],
    ])
  }
})

test('a retried test and tests asking the same thing replay what they recorded: CI passes with the judge gone', async () => {
  const dir = project('attempts')
  addFixture(dir, 'attempts.fixture.ts')
  fake.reset()
  const recorded = await runVitest(dir, { ...judgeEnv(), AGENT_VERDICT_MODE: 'auto' })
  expect(recorded.tests.map((t) => [t.title, t.status])).toEqual([
    ['retried after a flaky step', 'passed'],
    ['first', 'passed'],
    ['second', 'passed'],
    ['third', 'passed'],
  ])
  // The retry's two calls replay the first attempt's two entries (numbered per attempt): no third call.
  const file = join(dir, '__verdicts__', 'attempts.test.ts.json')
  expect(Object.keys(parseCassette(readFileSync(file, 'utf8'), file).entries)).toHaveLength(3)
  // One replay: it reads a fixed cassette with no judge. What varies from run to run is the record run's order (the
  // judge answers at random latencies), and the count above pins the numbering against it: numbered by arrival
  // across tests, or across attempts, the file holds more than 3 entries. Three identical replays proved no more.
  const replay = await runVitest(dir, {
    AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#fake-judge',
    CI: 'true',
  })
  expect(
    replay.tests.map((t) => t.status),
    replay.stderr,
  ).toEqual(['passed', 'passed', 'passed', 'passed'])
})

// Steps of one scenario (record, replay, CI miss, -u), in this order even when CI shuffles the suite.
describe('cassette per test file', { shuffle: false }, () => {
  let dir: string
  let testFile: string
  const cassette = () => join(dir, '__verdicts__', 'cassette.test.ts.json')
  const entries = () => Object.keys(parseCassette(readFileSync(cassette(), 'utf8'), cassette()).entries)

  beforeAll(() => {
    dir = project('cassette')
    testFile = addFixture(dir, 'cassette.fixture.ts')
    copyFileSync(join(REPO, 'test/fixtures/images/revenue-by-region.png'), join(dir, 'chart.png'))
  })

  test('first run records beside the test file; the second replays with 0 judge calls', async () => {
    fake.reset()
    const first = await runVitest(dir, judgeEnv())
    expect(first.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
    expect(fake.calls).toHaveLength(2)
    expect(entries()).toHaveLength(2)

    fake.reset()
    const second = await runVitest(dir, judgeEnv())
    expect(second.tests.map((t) => t.status)).toEqual(['passed', 'passed'])
    expect(fake.stats.requests).toBe(0)
    const replayed = second.tests.flatMap((t) => verdictsOf(t.meta))
    expect(replayed.map((v) => v.judge?.cached)).toEqual([true, true])
  })

  test('CI=true with a missing entry fails clearly and calls no judge', async () => {
    fake.reset()
    const run = await runVitest(dir, { ...judgeEnv(), CI: 'true', ANSWER_SUFFIX: ' (new wording)' })
    const miss = byTitle(run, 'chart answer is grounded')
    expect(miss.status).toBe('failed')
    expect(miss.failureMessages.join('\n')).toMatch(
      /no recorded verdict for faithfulness \(test "chart answer is grounded" › toBeFaithfulToImage\) in .*cassette\.test\.ts\.json/,
    )
    expect(miss.failureMessages.join('\n')).toContain('AGENT_VERDICT_MODE=record')
    expect(byTitle(run, 'answer follows the instruction').status).toBe('passed') // still replayed
    expect(fake.stats.requests).toBe(0)
  })

  test('vitest -u records misses even in CI and prunes entries no test uses any more', async () => {
    writeFileSync(
      testFile,
      readFileSync(testFile, 'utf8').replace(/test\('answer follows the instruction'[\s\S]*$/, ''),
    )
    fake.reset()
    const run = await runVitest(dir, { ...judgeEnv(), CI: 'true', ANSWER_SUFFIX: ' (new wording)' }, ['-u'])
    expect(run.tests.map((t) => t.status)).toEqual(['passed'])
    expect(fake.calls).toHaveLength(1)
    // Left: only the entry for the new wording; the old wording's and the deleted test's are gone.
    expect(entries()).toHaveLength(1)
    expect(existsSync(cassette())).toBe(true)
  })
})
