// The end-to-end test: Vitest and Jest projects that use the built package exactly as a user
// would (setup entry + reporter), judged by the fake judge server: record, replay, then CI replay misses.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { startFakeJudge, type FakeJudge } from '../../src/testing/index'
import type { Report } from '../../src/verdict/report'
import { jestCli, vitestCli } from './runtime'
import { makeProject, run, usePackageUnderTest } from './user-project'

const WRONG_TOTAL = 'The answer says $1,926.00 but the invoice total due is $1,296.00.'

let fake: FakeJudge
const cleanup: string[] = []

const pkg = usePackageUnderTest()

beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      { name: 'wrong-total', when: { contains: '$1,926.00' }, respond: { verdict: 'fail', reason: WRONG_TOTAL } },
    ],
    defaultVerdict: { verdict: 'pass', reason: 'Supported by the given material.' },
  })
}, 120_000)

afterAll(async () => {
  await fake?.close()
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

const runners = [
  {
    runner: 'vitest',
    fixture: 'user-vitest',
    deps: ['vitest'],
    args: (project: string) => [vitestCli(project), 'run'],
    // faithfulness + instruction following in one test, correctness (fails) in another
    verdicts: 3,
    testsWithVerdicts: 2,
  },
  {
    runner: 'jest',
    fixture: 'user-jest',
    deps: ['jest', '@swc/jest'],
    args: (project: string) => [jestCli(project), '--maxWorkers=2', '--cacheDirectory', '.jest-cache'],
    verdicts: 4, // the same three, plus the invoice date in a second file (run by another worker)
    testsWithVerdicts: 3,
  },
] as const

const verdictsOf = (report: Report) => report.tests.flatMap((t) => t.verdicts)

function cassetteFiles(project: string): string[] {
  const dir = join(project, '__verdicts__')
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : []
}

// Steps of one user's loop (record, replay, CI miss), in this order even when CI shuffles the suite.
describe('a user project', { shuffle: false }, () => {
  describe.each(runners)(
    '$runner project using agent-verdict',
    ({ runner, fixture, deps, args, verdicts, testsWithVerdicts }) => {
      let project: string
      const judgeEnv = () => ({ AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge` })

      beforeAll(() => {
        project = makeProject(fixture, pkg.dir, deps)
        cleanup.push(project)
      })

      it('records: the failing test shows the judge’s reason, the artifact validates and holds every verdict', async () => {
        fake.reset()
        const result = await run(project, args(project), judgeEnv())
        expect(result.code, result.output).toBe(1)
        expect(result.output).toContain(`Reason: ${WRONG_TOTAL}`)
        expect(result.output).toContain(
          `agent-verdict · ${testsWithVerdicts} tests with verdicts · judge openai-compatible:fake-judge · mode auto`,
        )

        const report = await readReport(join(project, 'agent-verdict-report.json')) // validates with ReportSchema
        expect(report.run).toMatchObject({ runner, judge: 'openai-compatible:fake-judge', mode: 'auto' })
        const all = verdictsOf(report)
        expect(all).toHaveLength(verdicts)
        expect(fake.stats.requests).toBe(verdicts) // one judge call per verdict, none lost
        expect(all.every((v) => v.judge?.cached === false && v.judge.model === 'fake-judge')).toBe(true)
        const failing = report.tests.find((t) => t.name.includes('invoice total is correct'))!
        expect(failing).toMatchObject({ state: 'fail', file: 'answers.test.ts' })
        expect(failing.verdicts).toMatchObject([{ metric: 'correctness', outcome: 'fail', reason: WRONG_TOTAL }])
        expect(failing.error).toContain(WRONG_TOTAL)
        expect(report.run.totals).toMatchObject({ verdicts, failed: 1, judgeCalls: verdicts, cachedCalls: 0 })
        expect(cassetteFiles(project).length).toBeGreaterThan(0)
      }, 180_000)

      it('replays with the judge stopped: a second run answers every matcher from the cassette with 0 judge calls', async () => {
        // Nothing listens at this judge's URL any more: a call would come back as an error, not a cached verdict.
        const stopped = await startFakeJudge()
        await stopped.close()
        const result = await run(project, args(project), {
          AGENT_VERDICT_JUDGE: `openai-compatible:${stopped.baseURL}#fake-judge`,
        })
        expect(result.code, result.output).toBe(1) // the recorded failing verdict, replayed
        expect(result.output).toContain(`Reason: ${WRONG_TOTAL}`)
        const report = await readReport(join(project, 'agent-verdict-report.json'))
        expect(verdictsOf(report)).toHaveLength(verdicts)
        expect(verdictsOf(report).every((v) => v.judge?.cached === true)).toBe(true)
        expect(report.run.totals).toMatchObject({
          verdicts,
          judgeCalls: 0,
          cachedCalls: verdicts,
          tokens: 0,
          costUsd: 0,
        })
      }, 180_000)

      it('CI=true with a missing cassette entry fails clearly, saying how to record it', async () => {
        // Drop the recorded correctness verdicts; the others stay and replay.
        for (const file of cassetteFiles(project)) {
          const cassette = JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ metric: string }> }
          cassette.entries = cassette.entries.filter((entry) => entry.metric !== 'correctness')
          writeFileSync(file, JSON.stringify(cassette, null, 2) + '\n')
        }
        fake.reset()
        const result = await run(project, args(project), { ...judgeEnv(), CI: 'true' })
        expect(result.code, result.output).toBe(1)
        expect(fake.stats.requests).toBe(0)
        expect(result.output).toMatch(
          /no recorded verdict for correctness \(test "invoice total is correct" › toBeCorrect\) in .*answers\.test\.ts\.json — CI is set, so verdicts are replayed only and the judge \(\S+\) is not called: run the tests locally without CI to record it and commit .*answers\.test\.ts\.json, or set AGENT_VERDICT_MODE=record to judge it in this run/,
        )
        // The judge is configured: the miss must not tell the user to configure one.
        expect(result.output).not.toContain('Set AGENT_VERDICT_JUDGE to one of')
        // The error is thrown after the cassette read, yet its stack ends in the assertion's line (answers.test.ts
        // line 13 in the Vitest fixture, 11 in the Jest one), and no frame points at sources the package does not ship.
        expect(result.output).toMatch(
          runner === 'vitest' ? /answers\.test\.ts:13:\d+/ : /at Object\.toBeCorrect \(answers\.test\.ts:11:\d+\)/,
        )
        expect(result.output).not.toMatch(
          /agent-verdict\/(src|matchers|runner)\/|\.\.\/(src|matchers|runner)\/[\w/-]+\.ts/,
        )
        const report = await readReport(join(project, 'agent-verdict-report.json'))
        expect(report.run.mode).toBe('replay')
        // Only the faithfulness and instruction-following verdicts were replayed; the misses never became verdicts.
        expect(
          verdictsOf(report)
            .map((v) => v.metric)
            .sort(),
        ).toEqual(['faithfulness', 'instruction-following'])
      }, 180_000)
    },
  )
})
