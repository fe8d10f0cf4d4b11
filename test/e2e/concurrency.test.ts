// Issue 18: the Vitest plugin's defaults run an eval file's judge assertions at the judge's limit, and
// 50 concurrent tests with distinct verdicts land each verdict on its own report row — with the global
// `expect` (and the context's), under the real Vitest and Jest CLIs on fixture projects.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { parseCassette } from '../../src/cassette/store'
import { readReport } from '../../src/report/artifact'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import type { FakeJudgeRule } from '../../src/testing/schemas'
import type { Report } from '../../src/verdict/report'
import { jestCli, vitestCli } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'

const CASES = 50
const pad = (i: number) => String(i).padStart(2, '0')
const reasonOf = (i: number) => `Reason written for case ${pad(i)} only.`
const failing = (i: number) => i % 5 === 4
// Uneven latency, so calls finish in another order than they started.
const LATENCY = { min: 100, max: 400 }

// One rule per case: its own reason, and every fifth case fails. A verdict attached to the wrong test
// shows up as a row whose reason names another case.
const rules: FakeJudgeRule[] = Array.from({ length: CASES }, (_, i) => ({
  name: `case-${pad(i)}`,
  when: { contains: `[case-${pad(i)}]` },
  respond: { verdict: failing(i) ? 'fail' : 'pass', reason: reasonOf(i) },
}))

let fake: FakeJudge
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  fake = await startFakeJudge({
    rules,
    latencyMs: LATENCY,
    defaultVerdict: { verdict: 'fail', reason: 'no rule matched: the fixture changed' },
  })
}, 120_000)

afterAll(async () => {
  await fake?.close()
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

const judgeEnv = () => ({
  AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
  AGENT_VERDICT_MODE: 'live',
})

/** Every case's row carries exactly its own verdict, and the failing cases fail with their own reason. */
function expectOwnVerdicts(report: Report): void {
  const rows = report.tests.filter((t) => /case \d\d/.test(t.name))
  expect(rows).toHaveLength(CASES)
  for (const row of rows) {
    const i = Number(/case (\d\d)/.exec(row.name)![1])
    expect(row.verdicts, row.name).toHaveLength(1)
    expect(row.verdicts[0], row.name).toMatchObject({
      metric: 'correctness',
      reason: reasonOf(i),
      outcome: failing(i) ? 'fail' : 'pass',
    })
    expect(row.state, row.name).toBe(failing(i) ? 'fail' : 'pass')
    if (failing(i)) expect(row.error, row.name).toContain(reasonOf(i))
  }
  expect(report.run.totals).toMatchObject({ verdicts: CASES, failed: CASES / 5, judgeCalls: CASES })
}

describe('Vitest with agentVerdict() and no other option', () => {
  let project: string
  let vitest: string[]

  beforeAll(() => {
    project = makeProject('concurrent-vitest', pkg.dir, ['vitest'])
    vitest = [vitestCli(project), 'run']
    cleanup.push(project)
  })

  it('puts each of 50 concurrent tests’ verdicts on its own row: eval file (plugin), test.concurrent, describe.concurrent; global and context expect', async () => {
    fake.reset()
    // --reporter replaces the config's reporters; the plugin still adds its own (the report is read below).
    const result = await run(project, [...vitest, '--reporter=verbose'], judgeEnv())
    expect(result.code, result.output).toBe(1) // the ten failing cases
    expect(fake.calls).toHaveLength(CASES)
    // The quick test ends while other tests' judge calls run: they are not its un-awaited calls.
    expect(result.output).not.toContain('was not awaited')
    expect(result.output).toMatch(/✓ .*quick check among the evals/)
    for (const n of ['first', 'second', 'third']) expect(result.output).toContain(`✓ unit.test.ts > sequential ${n}`) // no overlap there
    expectOwnVerdicts(await readReport(join(project, 'agent-verdict-report.json')))
  }, 180_000)

  it('labels each recorded cassette entry with the test that made the call, under the plugin’s concurrency', async () => {
    fake.reset()
    const result = await run(project, [...vitest, 'answers.eval.ts'], { ...judgeEnv(), AGENT_VERDICT_MODE: 'record' })
    expect(result.code, result.output).toBe(1)
    const cassette = parseCassette(
      readFileSync(join(project, '__verdicts__', 'answers.eval.ts.json'), 'utf8'),
      'answers',
    )
    const entries = Object.values(cassette.entries)
    expect(entries).toHaveLength(30)
    for (const entry of entries) {
      // The judged text carries its case's tag; the label must name that case's test, not the one started last.
      const tagged = /\[case-(\d\d)\]/.exec(entry.judged ?? '')?.[1]
      expect(tagged, JSON.stringify(entry)).toBeDefined()
      expect(entry.test, entry.judged).toMatch(new RegExp(`^case ${tagged}\\b`))
    }
  }, 180_000)

  it('runs the eval file’s judge calls at the judge’s limit (8 in flight), leaving unit tests sequential', async () => {
    fake.reset()
    // Answers slow enough that the first 8 calls overlap even on a loaded machine.
    fake.setLatency({ min: 400, max: 600 })
    onTestFinished(() => fake.setLatency(LATENCY))
    const result = await run(project, [...vitest, 'answers.eval.ts', 'unit.test.ts'], judgeEnv())
    expect(result.code, result.output).toBe(1)
    expect(result.output).toContain('unit.test.ts (3 tests)')
    expect(fake.calls).toHaveLength(30)
    expect(fake.stats.maxInFlight).toBe(8)
  }, 180_000)

  it('without the plugin (setupFiles + reporters) the same tests stay one at a time, as before', async () => {
    const { writeFileSync } = await import('node:fs')
    // A project of its own: the other tests of this block (in any order) keep the plugin's config.
    const project = makeProject('concurrent-vitest', pkg.dir, ['vitest'])
    cleanup.push(project)
    writeFileSync(
      join(project, 'vitest.config.ts'),
      // 60 s per test, as the package recommends for judge tests: at Vitest's default 5 s a loaded machine timed one
      // out before its call (29 of 30 calls), which says nothing about concurrency.
      `export default { test: { include: ['*.eval.ts'], setupFiles: ['agent-verdict/vitest'], reporters: ['default', 'agent-verdict/reporter'], testTimeout: 60_000 } }\n`,
    )
    fake.reset()
    // One at a time holds at any latency, and 30 calls in a row at the uneven one took ~7.5 s. At 50 ms calls that
    // did overlap still show: under the plugin's config this same run peaks at 8 (checked by swapping the config).
    fake.setLatency(50)
    onTestFinished(() => fake.setLatency(LATENCY))
    const result = await run(project, [...vitest, 'answers.eval.ts'], judgeEnv())
    expect(result.code, result.output).toBe(1)
    expect(fake.calls).toHaveLength(30)
    expect(fake.stats.maxInFlight).toBe(1)
  }, 180_000)
})

describe('Jest with test.concurrent and maxConcurrency 8 (the documented equivalent)', () => {
  let project: string

  beforeAll(() => {
    project = makeProject('concurrent-jest', pkg.dir, ['jest', '@swc/jest'])
    cleanup.push(project)
  })

  it('puts each of 50 concurrent tests’ verdicts (global expect) on its own row, at 8 in flight', async () => {
    fake.reset()
    fake.setLatency({ min: 400, max: 600 })
    onTestFinished(() => fake.setLatency(LATENCY))
    const result = await run(project, [jestCli(project), '--cacheDirectory', '.jest-cache'], judgeEnv())
    expect(result.code, result.output).toBe(1)
    expect(fake.calls).toHaveLength(CASES)
    expect(fake.stats.maxInFlight).toBe(8)
    expectOwnVerdicts(await readReport(join(project, 'agent-verdict-report.json')))
  }, 180_000)
})
