// Decision 0043 under the real Vitest CLI, on the source entry (no build): stale entries pruned per passing test on
// -u and counted otherwise, filtered runs pruning nothing of tests that did not run, Vitest projects sharing a test
// file owning their entries, and `evaluate*` in a test replaying from the file's cassette in CI.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseCassette, type CassetteEntry } from '../../src/cassette/store'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { addJestFixture, jestTest, makeJestProject, runJest } from '../support/run-jest'
import { REPO, addFixture, byTitle, makeScratchProject, runVitest } from '../support/run-vitest'

let fake: FakeJudge
const dirs: string[] = []
const judgeEnv = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })
// Nothing listens there: a run that reaches for the judge fails.
const DEAD_JUDGE = { AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#fake-judge', CI: 'true' }

function scratch(prefix: string): { dir: string; entries: () => CassetteEntry[] } {
  const dir = makeScratchProject(prefix)
  dirs.push(dir)
  const file = addFixture(dir, 'bookkeeping.fixture.ts')
  writeFileSync(file, readFileSync(file, 'utf8').replace("'../../../../src/", "'../../src/"))
  const cassette = join(dir, '__verdicts__', 'bookkeeping.test.ts.json')
  return { dir, entries: () => Object.values(parseCassette(readFileSync(cassette, 'utf8'), cassette).entries) }
}
const tests = (entries: CassetteEntry[]) => entries.map((e) => `${e.test}${e.projects ? ` ${e.projects}` : ''}`).sort()

beforeAll(async () => {
  fake = await startFakeJudge()
})
afterAll(async () => {
  await fake.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('one project', { shuffle: false, timeout: 120_000 }, () => {
  let dir: string
  let entries: () => CassetteEntry[]
  beforeAll(() => {
    ;({ dir, entries } = scratch('bookkeeping'))
  })

  test('evaluate* in a test records into the file’s cassette, and replays from it in CI with no judge', async () => {
    const first = await runVitest(dir, judgeEnv())
    expect(
      first.tests.map((t) => t.status),
      first.stderr,
    ).toEqual(['passed', 'passed', 'passed'])
    expect(entries().find((e) => e.test === 'evaluate in a test')).toMatchObject({ matcher: 'evaluateCorrectness' })

    fake.reset()
    const ci = await runVitest(dir, DEAD_JUDGE)
    expect(
      ci.tests.map((t) => t.status),
      ci.stderr + ci.stdout,
    ).toEqual(['passed', 'passed', 'passed'])
  })

  test('a run that leaves stale entries says how many, and how to prune them', async () => {
    fake.reset()
    const run = await runVitest(dir, { ...judgeEnv(), ANSWER_SUFFIX: ' (v2)' }, ['--reporter=default', '-t', 'changes'])
    expect(fake.stats.requests).toBe(1)
    expect(run.stdout + run.stderr).toContain(
      'holds 1 stale verdict entry (of "changes its answer") that no judge call of this run used — `vitest -u <this test file>` prunes them',
    )
    expect(entries()).toHaveLength(4)
  })

  test('a filtered -u run (-t) prunes nothing of the tests that did not run', async () => {
    const run = await runVitest(dir, { ...judgeEnv(), CI: 'true', ANSWER_SUFFIX: ' (v2)' }, ['-u', '-t', 'evaluate'])
    expect(byTitle(run, 'evaluate in a test').status).toBe('passed')
    expect(entries()).toHaveLength(4)
  })

  test('-u prunes the stale entries of a test that passed although another test of the file failed', async () => {
    const run = await runVitest(dir, { ...judgeEnv(), CI: 'true', ANSWER_SUFFIX: ' (v2)', BREAK: '1' }, ['-u'])
    expect(byTitle(run, 'fails after its verdict').status).toBe('failed')
    expect(byTitle(run, 'changes its answer').status).toBe('passed')
    expect(tests(entries())).toEqual(['changes its answer', 'evaluate in a test', 'fails after its verdict'])
  })
})

test('two Vitest projects sharing a test file: one project’s -u keeps the other’s entries, each replays its own', async () => {
  const { dir, entries } = scratch('projects')
  const setup = JSON.stringify(join(REPO, 'matchers/vitest.ts'))
  const project = (name: string) =>
    `{ test: { name: '${name}', include: ['**/*.test.ts'], setupFiles: [${setup}], testTimeout: 20000, env: { AV_PROJECT: ' [${name}]' } } }`
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { projects: [${project('alpha')}, ${project('beta')}] } }\n`,
  )
  const recorded = await runVitest(dir, judgeEnv())
  expect(
    recorded.tests.map((t) => t.status),
    recorded.stderr,
  ).toEqual(Array(6).fill('passed'))
  const all = tests(entries())
  expect(all).toHaveLength(6)
  expect(all.filter((t) => t.endsWith(' alpha'))).toHaveLength(3)

  const alphaOnly = await runVitest(dir, { ...judgeEnv(), CI: 'true' }, ['-u', '--project', 'alpha'])
  expect(alphaOnly.tests.map((t) => t.status)).toEqual(Array(3).fill('passed'))
  expect(tests(entries())).toEqual(all)

  const ci = await runVitest(dir, DEAD_JUDGE)
  expect(
    ci.tests.map((t) => t.status),
    ci.stderr + ci.stdout,
  ).toEqual(Array(6).fill('passed'))
}, 180_000)

test('jest: -u prunes a passing test’s stale entry although another test failed; evaluate* replays from the cassette', async () => {
  const dir = makeJestProject('bookkeeping-jest')
  dirs.push(dir)
  const file = addJestFixture(dir, 'bookkeeping.fixture.ts')
  writeFileSync(file, readFileSync(file, 'utf8').replace("'../../../../src/", "'../../src/"))
  const cassette = join(dir, '__verdicts__', 'bookkeeping.test.ts.json')
  const entries = () => Object.values(parseCassette(readFileSync(cassette, 'utf8'), cassette).entries)

  fake.reset()
  const first = await runJest(dir, judgeEnv())
  expect(
    first.tests.map((t) => t.status),
    first.stderr,
  ).toEqual(['passed', 'passed', 'passed'])
  expect(fake.calls).toHaveLength(3)
  expect(entries().find((e) => e.test === 'evaluate in a test')).toMatchObject({ matcher: 'evaluateCorrectness' })

  fake.reset()
  const update = await runJest(dir, { ...judgeEnv(), CI: 'true', ANSWER_SUFFIX: ' (v2)', BREAK: '1' }, ['-u'])
  expect(jestTest(update, 'fails after its verdict').status).toBe('failed')
  expect(jestTest(update, 'changes its answer').status).toBe('passed')
  expect(jestTest(update, 'evaluate in a test').status).toBe('passed')
  expect(fake.calls).toHaveLength(1) // the changed answer only: evaluateCorrectness replayed
  expect(tests(entries())).toEqual(['changes its answer', 'evaluate in a test', 'fails after its verdict'])
}, 180_000)
