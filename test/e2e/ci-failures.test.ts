// A CI run where tests fail before any verdict (three replay misses, one judge that cannot be built), under
// the real Vitest and Jest CLIs on the built package: every report — terminal, JSON, HTML, JUnit, GitHub
// summary — counts the 4 failed tests the runner counts. Then a `-t` run with gates configured passes.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { makeProject, repo, run, usePackageUnderTest } from './user-project'

const FAILED = [
  'invoice answer is correct',
  'judge built with no model',
  'refund answer is correct',
  'summary follows the instruction',
]
// A gate the filtered run cannot meet: no correctness verdict at all runs under `-t deterministic`.
const GATES = JSON.stringify({ minPassRate: 1, metrics: { correctness: { minPassRate: 1 } } })

const cleanup: string[] = []
const pkg = usePackageUnderTest()

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true })
})

const runners = [
  {
    runner: 'vitest',
    deps: ['vitest'],
    args: [join(repo, 'node_modules/vitest/vitest.mjs'), 'run'],
    counted: /Tests\s+4 failed \| 1 passed \(5\)/,
    filter: ['-t', 'deterministic'],
  },
  {
    runner: 'jest',
    deps: ['jest', '@swc/jest'],
    args: [join(repo, 'node_modules/jest/bin/jest.js'), '--cacheDirectory', '.jest-cache'],
    counted: /Tests:\s+4 failed, 1 passed, 5 total/,
    filter: ['-t', 'deterministic'],
  },
] as const

describe.each(runners)('failed before any verdict, under $runner', ({ runner, deps, args, counted, filter }) => {
  let project: string
  beforeAll(() => {
    project = makeProject('ci-failures', pkg.dir, deps)
    cleanup.push(project)
  })

  it('a CI run with 3 replay misses and 1 judge failure: 4 failed tests in every report, as the runner counts', async () => {
    const summary = join(project, 'step-summary.md')
    writeFileSync(summary, '')
    const result = await run(project, [...args], {
      CI: 'true',
      AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#fake-judge',
      GITHUB_STEP_SUMMARY: summary,
    })
    expect(result.code, result.output).toBe(1)
    expect(result.output).toMatch(counted)
    // Terminal: the section lists the 4 tests with their errors, and the totals say 4.
    expect(result.output).toContain('failed tests 4')
    for (const name of FAILED) expect(result.output).toContain(`✗ evals.test.ts › ${name}`)
    expect(result.output).toMatch(/error: .*no recorded verdict for correctness/)
    expect(result.output).toMatch(/error: .*openaiJudge needs a model/)

    const report = await readReport(join(project, 'agent-verdict-report.json'))
    expect(report.run.totals.failedTests).toBe(4)
    const failed = report.tests.filter((t) => t.state === 'fail')
    expect(failed.map((t) => t.name).sort()).toEqual(FAILED)
    for (const t of failed) expect(t.error).toBeTruthy()

    const html = readFileSync(join(project, 'report.html'), 'utf8')
    expect(html.match(/<section class="test state-fail/g)).toHaveLength(4)
    expect(html).toContain('no recorded verdict for correctness')

    const junit = readFileSync(join(project, 'junit.xml'), 'utf8')
    expect(junit).toMatch(/<testsuites name="agent-verdict" tests="\d+" failures="4"/)
    expect(junit).toContain('<property name="agent-verdict.failed-tests" value="4"/>')
    for (const name of FAILED) expect(junit).toContain(`name="${name}"`)

    const step = readFileSync(summary, 'utf8')
    for (const name of FAILED) expect(step).toContain(`evals.test.ts › ${name}`)
    expect(step).toMatch(/\| tests \| failed tests \|[^\n]*\n[^\n]*\n\| \d+ \| 4 \|/)
  }, 240_000)

  it('a filtered run (-t) with gates configured exits 0 when every test that ran passed, and says the gates were skipped', async () => {
    const result = await run(project, [...args, ...filter], {
      CI: 'true',
      AGENT_VERDICT_JUDGE: 'openai-compatible:http://127.0.0.1:9/v1#fake-judge',
      AV_GATES: GATES,
    })
    expect(result.output).toContain('agent-verdict: gates skipped: this run is filtered (-t')
    expect(result.output).not.toContain('broken')
    expect(result.code, result.output).toBe(0)
    if (runner === 'jest')
      // Jest's own hint form: one module path, never Vitest's list (Jest rejects it).
      expect(result.output).not.toContain("globalSetup: ['agent-verdict/global-setup']")
  }, 240_000)
})
