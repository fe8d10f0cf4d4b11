// Outcome matrix (issue 11 item 6): every matcher × runner (real Vitest and Jest CLIs) × {pass, fail,
// .not pass, .not fail, unjudgeable}. One fixture project per runner holds every cell (one process
// each); the shipped fake judge answers from scripted rules. For every cell the runner's result and the
// outcome written to the terminal, the JSON artifact, JUnit and the GitHub summary must agree — a passing
// `.not` is a pass everywhere, a failing one a failure everywhere.
import { spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { countAssertions } from '../../src/verdict/assertion'
import type { Report } from '../../src/verdict/report'
import { agentRun, createRecorder } from '../helpers/otel'
import { REPO } from '../support/run-vitest'
import { MATRIX, type Case } from './fixtures/outcome-matrix/matrix'

const FIXTURE = join(REPO, 'test/e2e/fixtures/outcome-matrix')
const CELLS = MATRIX.flatMap((m) => m.cases.map((c) => ({ name: `${m.name} | ${c}`, matcher: m.name, c })))
/** The assertion passes exactly for a pass and a `.not` on a failing verdict. */
const passes = (c: Case) => c === 'pass' || c === 'not-pass'

let fake: FakeJudge
let shared: string
/** Checks begun and not finished (a failed expect leaves it above 0): then the projects are kept. */
let unfinished = 0
beforeAll(async () => {
  fake = await startFakeJudge({
    faults: [
      { type: 'malformed-json', when: { contains: 'JUDGE-UNJ' } },
      // The run whose task is about the Scikit-Learn changelog stands for "unjudgeable" where no marker can be passed.
      { type: 'malformed-json', when: { contains: 'Scikit' } },
    ],
    rules: [
      { name: 'pass', when: { contains: 'JUDGE-PASS' }, respond: { verdict: 'pass', reason: 'scripted pass' } },
      { name: 'fail', when: { contains: 'JUDGE-FAIL' }, respond: { verdict: 'fail', reason: 'scripted fail' } },
      // No marker: the run is told by its task (0ebe… asks for the opposite of "left", 41bb… about a Calculus reading).
      { name: 'pass-run', when: { contains: 'opposite' }, respond: { verdict: 'pass', reason: 'scripted pass (run)' } },
      { name: 'fail-run', when: { contains: 'Calculus' }, respond: { verdict: 'fail', reason: 'scripted fail (run)' } },
    ],
  })
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  shared = mkdtempSync(join(REPO, '.tmp', 'outcome-matrix-'))
  const rec = createRecorder({ seed: 5 })
  agentRun(rec.tracer)
  writeFileSync(join(shared, 'clean-trace.json'), rec.otlpJson())
})
afterAll(async () => {
  await fake?.close()
  // Kept when a cell failed, for reading the runner's terminal.txt, report.json, junit.xml and summary.md.
  if (unfinished === 0) rmSync(shared, { recursive: true, force: true })
})

function env(project: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
    AGENT_VERDICT_MODE: 'live',
    AV_MATRIX_IMAGE: join(REPO, 'test/fixtures/images/shapes.png'),
    AV_MATRIX_TRACE: join(REPO, 'test/fixtures/trail/0ebe673d64647ec44c370638b82d3c78.json'),
    AV_MATRIX_CLEAN_TRACE: join(shared, 'clean-trace.json'),
    AV_MATRIX_TRACE_FAIL: join(REPO, 'test/fixtures/trail/41bbc898aa7de0f31d2382ff57700a76.json'),
    AV_MATRIX_TRACE_UNJ: join(REPO, 'test/fixtures/trail/d67a8ae853c0b8ed0e55f7fafe4e2f64.json'),
    GITHUB_STEP_SUMMARY: join(project, 'summary.md'),
    TMPDIR: project,
  }
}

function spawnRun(
  argv: string[],
  cwd: string,
  childEnv: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd, env: childEnv })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out }))
  })
}

const reporterOptions = { outputFile: 'report.json', junit: 'junit.xml', githubSummary: true }

async function runVitestMatrix(): Promise<string> {
  const dir = mkdtempSync(join(shared, 'vitest-'))
  copyFileSync(join(FIXTURE, 'matrix.ts'), join(dir, 'matrix.ts'))
  copyFileSync(join(FIXTURE, 'matrix.vitest.test.ts'), join(dir, 'matrix.test.ts'))
  const config = {
    test: {
      include: ['matrix.test.ts'],
      setupFiles: [join(REPO, 'matchers/vitest.ts')],
      reporters: ['default', [join(REPO, 'reporters/vitest-reporter.ts'), reporterOptions]],
      testTimeout: 30_000,
    },
  }
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default ${JSON.stringify(config)}\n`)
  const run = await spawnRun(
    [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
    dir,
    env(dir),
  )
  writeFileSync(join(dir, 'terminal.txt'), run.out)
  return dir
}

async function runJestMatrix(): Promise<string> {
  const dir = mkdtempSync(join(shared, 'jest-'))
  copyFileSync(join(FIXTURE, 'matrix.ts'), join(dir, 'matrix.ts'))
  copyFileSync(join(FIXTURE, 'matrix.jest.test.ts'), join(dir, 'matrix.test.ts'))
  const config = {
    rootDir: dir,
    testMatch: ['<rootDir>/matrix.test.ts'],
    testEnvironment: 'node',
    testTimeout: 30_000,
    transform: { '^.+\\.(t|j)sx?$': '@swc/jest' },
    setupFilesAfterEnv: [join(REPO, 'matchers/jest.ts')],
    reporters: ['default', [join(REPO, 'reporters/jest-reporter.ts'), reporterOptions]],
  }
  writeFileSync(join(dir, 'jest.config.json'), `${JSON.stringify(config)}\n`)
  // The reporter loads from source in Jest's own process: run Jest under tsx.
  const argv = [
    '--import',
    'tsx',
    join(REPO, 'node_modules/jest/bin/jest.js'),
    '--config',
    join(dir, 'jest.config.json'),
    '--cacheDirectory',
    join(dir, 'cache'),
    '--ci=false',
  ]
  const run = await spawnRun(argv, REPO, env(dir))
  writeFileSync(join(dir, 'terminal.txt'), run.out)
  return dir
}

/** The agent-verdict section of the runner's output: from its header to the totals line. */
function section(terminal: string): string {
  const start = terminal.indexOf('agent-verdict · ')
  const end = terminal.indexOf('\n', terminal.indexOf('assertions ', start))
  return terminal.slice(start, end)
}

function checkAgreement(dir: string, report: Report): void {
  unfinished++
  const failing = CELLS.filter((cell) => !passes(cell.c))
  const terminal = section(readFileSync(join(dir, 'terminal.txt'), 'utf8'))
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8')
  const summary = readFileSync(join(dir, 'summary.md'), 'utf8')

  // Every cell ran, and the runner's result is the expected one.
  const byName = new Map(report.tests.map((t) => [t.name, t]))
  for (const cell of CELLS) {
    const test = byName.get(cell.name)
    expect(test, cell.name).toBeDefined()
    expect([cell.name, test!.state]).toEqual([cell.name, passes(cell.c) ? 'pass' : 'fail'])
    // JSON: the test's verdicts say the assertion's outcome, and whether it was under .not.
    expect([cell.name, countAssertions(test!.verdicts, test!.assertions)]).toEqual([
      cell.name,
      { assertions: 1, failed: passes(cell.c) ? 0 : 1 },
    ])
    expect([cell.name, test!.assertions]).toEqual([
      cell.name,
      [{ id: `${cell.matcher}#1`, matcher: cell.matcher, negated: cell.c.startsWith('not-'), passed: passes(cell.c) }],
    ])
    for (const v of test!.verdicts)
      expect([cell.name, v.assertion?.negated, v.assertion?.matcher]).toEqual([
        cell.name,
        cell.c.startsWith('not-'),
        cell.matcher,
      ])
    if (cell.c === 'unjudgeable' && cell.matcher !== 'toStayWithinBudget')
      expect(
        test!.verdicts.some((v) => v.outcome === 'unjudgeable'),
        cell.name,
      ).toBe(true)
    // Terminal: the test's line carries the runner's symbol.
    expect(terminal, cell.name).toContain(`${passes(cell.c) ? '✓' : '✗'} matrix.test.ts › ${cell.name}\n`)
    // JUnit: a <failure> exactly for the failing cells.
    const tc = new RegExp(
      `<testcase classname="matrix\\.test\\.ts" name="${cell.name.replace(/[|]/g, '\\|')}"[^>]*?(?:/>|>([\\s\\S]*?)</testcase>)`,
    ).exec(junit)
    expect(tc, cell.name).not.toBeNull()
    expect([cell.name, (tc![1] ?? '').includes('<failure')]).toEqual([cell.name, !passes(cell.c)])
  }
  // One set of numbers: the totals in the JSON, the terminal, JUnit and the GitHub summary.
  const t = report.run.totals
  expect(t).toMatchObject({ assertions: CELLS.length, failed: failing.length })
  expect(terminal).toContain(
    `assertions ${CELLS.length} · failed ${failing.length} · verdicts ${t.verdicts} · judged fail ${t.judgedFail} · unjudgeable ${t.unjudgeable} · judge calls ${t.judgeCalls}`,
  )
  expect(junit).toContain(`<property name="agent-verdict.failed" value="${failing.length}"/>`)
  expect(summary).toContain(
    `| ${CELLS.length} | ${failing.length} | ${t.verdicts} | ${t.judgedFail} | ${t.unjudgeable} | ${t.judgeCalls}`,
  )
  // GitHub summary: "Failed assertions" lists exactly the failing cells (a passing .not never).
  const listed = new Set(
    [...summary.matchAll(/^\| [✗?] \| matrix\.test\.ts › (.+?) \| /gm)].map((m) => m[1].replace(/\\\|/g, '|')),
  )
  expect([...listed].sort()).toEqual(failing.map((c) => c.name).sort())
  // A passing .not keeps the judge's own verdict visible.
  expect(terminal).toMatch(/✓ \S+ +\S+, min \S+ +fail, expected not/)
  unfinished--
}

describe('outcome matrix: every matcher × {pass, fail, .not pass, .not fail, unjudgeable}', () => {
  it('Vitest: runner result, terminal, JSON, JUnit and GitHub summary agree on every cell', async () => {
    const dir = await runVitestMatrix()
    checkAgreement(dir, await readReport(join(dir, 'report.json')))
  })

  it('Jest: runner result, terminal, JSON, JUnit and GitHub summary agree on every cell', async () => {
    const dir = await runJestMatrix()
    checkAgreement(dir, await readReport(join(dir, 'report.json')))
  })
})
