// Issue 33 class 13: a verdict that reaches a reporter invalid (here: a passing verdict with broken usage) was
// dropped with "ignored invalid task.meta", so gates read it as absent and passed (maxCostUsd read 0). Each
// row goes through the Vitest reporter's conversion, the Jest reporter, and `agent-verdict report gate` on
// the artifact the Jest reporter wrote; an invalid verdict must count as unjudgeable there, never as absent.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import AgentVerdictJestReporter from '../../reporters/jest-reporter'
import { convertTest } from '../../reporters/vitest-reporter-run'
import { reportCommand } from '../../src/cli/report'
import { buildReport } from '../../src/report/artifact'
import { evaluateGates, type Gates } from '../../src/report/gates'
import { JEST_LOG_DIR_ENV, jestVerdictLogPath } from '../../src/verdict/jest-log'
import { VERDICT_META_KEY } from '../../src/verdict/meta'
import type { Verdict } from '../../src/verdict/verdict'
import { outputVerdicts } from '../report/cases'

/** A passing verdict from a judge call really made and priced: every gate below holds on it alone. */
function passing(): Verdict {
  const v = outputVerdicts()[1]
  return { ...v, judge: { ...v.judge!, cached: false, costUsd: 0.0004 } }
}

const GATES: Gates = {
  minPassRate: 1,
  maxUnjudgeable: 0,
  maxCostUsd: 1,
  metrics: { 'instruction-following': { minPassRate: 1 } },
}
const ALL = ['minPassRate', 'maxUnjudgeable', 'maxCostUsd', 'metrics.instruction-following.minPassRate']
const NOT_COST = ['minPassRate', 'maxUnjudgeable', 'metrics.instruction-following.minPassRate']

type Row = [what: string, mutate: (v: any) => unknown, broken: string[]]
const withJudge = (f: (j: any) => void) => (v: any) => {
  f(v.judge)
  return v
}
const ROWS: Row[] = [
  ['completion tokens -1', withJudge((j) => (j.tokens.output = -1)), ALL],
  ['string token counts', withJudge((j) => (j.tokens = { input: '1200', output: '40' })), ALL],
  ['1e308 tokens', withJudge((j) => (j.tokens.input = 1e308)), ALL],
  ['NaN tokens', withJudge((j) => (j.tokens.output = Number.NaN)), ALL],
  ['a negative cost', withJudge((j) => (j.costUsd = -5)), ALL],
  ['a string latency', withJudge((j) => (j.latencyMs = 'fast')), ALL],
  ['judge info not an object', (v) => ({ ...v, judge: 'gpt-4.1' }), ALL],
  ['a score of 2', (v) => ({ ...v, score: 2 }), NOT_COST],
  ['an unknown outcome', (v) => ({ ...v, outcome: 'maybe' }), NOT_COST],
  ['a numeric reason', (v) => ({ ...v, reason: 42 }), NOT_COST],
  // Round 3 (gap 5).
  ['token counts as an array', withJudge((j) => (j.tokens = [1200, 40])), ALL],
  ['a cost written as a string', withJudge((j) => (j.costUsd = '0.0004')), ALL],
  ['a score below 0', (v) => ({ ...v, score: -0.5 }), NOT_COST],
]

function broken(verdicts: Verdict[]): string[] {
  const report = buildReport({ tests: [test(verdicts)], startedAt: new Date(), judge: null, mode: 'auto' })
  return evaluateGates(report, GATES)
    .filter((g) => !g.ok)
    .map((g) => g.gate)
}
function test(verdicts: Verdict[]) {
  return { file: 'a.test.ts', name: 't', state: 'pass' as const, verdicts }
}

function vitestCase(meta: unknown) {
  return {
    meta: () => ({ [VERDICT_META_KEY]: meta }),
    fullName: 'answers > total',
    result: () => ({ state: 'passed' }),
    diagnostic: () => ({ duration: 12 }),
    module: { moduleId: '/repo/evals/answers.eval.ts' },
  } as never
}

const roots: string[] = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

async function jestRun(line: unknown) {
  const root = mkdtempSync(join(tmpdir(), 'av-dropped-'))
  roots.push(root)
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  const reporter = new AgentVerdictJestReporter({ rootDir: root }, { outputFile: 'r.json', silent: true, gates: GATES })
  reporter.onRunStart()
  const testPath = join(root, 'a.test.ts')
  appendFileSync(
    jestVerdictLogPath(process.env[JEST_LOG_DIR_ENV]!),
    `${JSON.stringify({ testPath, fullName: 'passes', ...(line as object) })}\n`,
  )
  await reporter.onRunComplete(undefined, {
    testResults: [{ testFilePath: testPath, testResults: [{ fullName: 'passes', status: 'passed' }] }],
  })
  stderr.mockRestore()
  const artifact = join(root, 'r.json')
  return { error: reporter.getLastError(), artifact, report: JSON.parse(readFileSync(artifact, 'utf8')) }
}

async function cliGate(artifact: string): Promise<{ code: number; stderr: string }> {
  let err = ''
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => (err += t) } }
  const code = await reportCommand(
    [
      'gate',
      artifact,
      '--min-pass-rate',
      '1',
      '--max-unjudgeable',
      '0',
      '--max-cost-usd',
      '1',
      '--metric-min',
      'instruction-following=1',
    ],
    io,
  )
  return { code, stderr: err }
}

describe('a dropped verdict passes no gate', () => {
  it('control: the valid passing verdict holds every gate (Vitest, Jest and report gate)', async () => {
    const converted = convertTest(vitestCase({ verdicts: [passing()] }), '/repo')
    expect(converted.warning).toBeUndefined()
    expect(broken(converted.test!.verdicts)).toEqual([])
    const jest = await jestRun({ verdicts: [passing()] })
    expect(jest.error).toBeUndefined()
    expect(jest.report.run.totals).toMatchObject({ verdicts: 1, unjudgeable: 0, costUsd: 0.0004 })
    expect((await cliGate(jest.artifact)).code).toBe(0)
  })

  it.each(ROWS)('%s: the Vitest reporter counts it unjudgeable and the gates break', (_what, mutate, gates) => {
    const converted = convertTest(vitestCase({ verdicts: [mutate(passing())] }), '/repo')
    expect(converted.warning).toMatch(
      /invalid task\.meta\.\S+ of "answers > total" at verdicts\.0\..*count as unjudgeable/,
    )
    expect(converted.test?.verdicts).toMatchObject([
      { metric: 'instruction-following', outcome: 'unjudgeable', pass: false, score: null },
    ])
    expect(broken(converted.test!.verdicts)).toEqual(gates)
  })

  it.each(ROWS)('%s: the Jest reporter fails the run and report gate exits 1', async (_what, mutate, gates) => {
    const jest = await jestRun({ verdicts: [mutate(passing())] })
    expect(jest.report.run.totals).toMatchObject({ verdicts: 1, unjudgeable: 1 })
    for (const gate of gates) expect(jest.error?.message).toContain(`gate ${gate} broken`)
    const cli = await cliGate(jest.artifact)
    expect(cli.code).toBe(1)
    for (const gate of gates) expect(cli.stderr).toContain(`gate ${gate} broken`)
    if (gates.includes('maxCostUsd')) {
      expect(jest.report.run.totals.costUsd).toBeNull()
      expect(cli.stderr).toMatch(
        /maxCostUsd broken: judge cost USD unknown > 1 \(1 verdict\(s\) have unknown token counts/,
      )
    }
  })

  it('meta that is not { verdicts: [...] } at all is one unjudgeable verdict, not an absent test', async () => {
    const converted = convertTest(vitestCase({ verdicts: 'oops' }), '/repo')
    expect(converted.test?.verdicts).toHaveLength(1)
    expect(broken(converted.test!.verdicts)).toEqual([
      'minPassRate',
      'maxUnjudgeable',
      'metrics.instruction-following.minPassRate',
    ])
    const jest = await jestRun({ verdicts: null })
    expect(jest.report.run.totals).toMatchObject({ verdicts: 1, unjudgeable: 1 })
    expect(jest.error?.message).toContain('gate maxUnjudgeable broken')
  })

  it('a valid verdict whose judge reported invalid counts (tokens.invalid) breaks a cost gate only', () => {
    const v = passing()
    v.judge!.tokens = { input: 1200, output: 0, invalid: 'the judge reported completion_tokens: -1' }
    v.judge!.costUsd = null
    expect(broken([v, passing()])).toEqual(['maxCostUsd'])
    // A replayed verdict cost nothing now, whatever its counts said when recorded.
    v.judge!.cached = true
    expect(broken([v, passing()])).toEqual([])
  })
})
