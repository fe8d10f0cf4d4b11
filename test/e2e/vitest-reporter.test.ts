// Runs Vitest programmatically on a fixture project with agent-verdict's reporter and checks what it writes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startVitest } from 'vitest/node'
import { readReport } from '../../src/report/artifact'

const fixture = fileURLToPath(new URL('./fixtures/vitest-reporter', import.meta.url))
const reporter = fileURLToPath(new URL('../../reporters/vitest-reporter.ts', import.meta.url))

async function runFixture(options: Record<string, unknown>, filters: string[] = []) {
  let out = ''
  let err = ''
  const sink = (append: (text: string) => void) => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk))
        done()
      },
    })
    // Vitest pipes each pool worker's stdout into this stream, and pipe() ends it when a worker exits.
    stream.end = () => stream
    return stream
  }
  const stdout = sink((t) => (out += t))
  const stderr = sink((t) => (err += t))
  const exitCode = process.exitCode
  const vitest = await startVitest(
    'test',
    filters,
    { root: fixture, config: join(fixture, 'vitest.config.ts'), watch: false, reporters: [[reporter, options]] },
    {},
    { stdout, stderr },
  )
  await vitest.close()
  // startVitest sets the exit code for the failing fixture test; that is the fixture's result, not ours.
  process.exitCode = exitCode
  return { out, err }
}

const savedSummary = process.env.GITHUB_STEP_SUMMARY
afterEach(() => {
  if (savedSummary === undefined) delete process.env.GITHUB_STEP_SUMMARY
  else process.env.GITHUB_STEP_SUMMARY = savedSummary
})

describe('agent-verdict/reporter on a Vitest run', () => {
  it('writes a valid artifact with every verdict from task.meta, the HTML report and the step summary, and prints the section', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-vitest-e2e-'))
    const summary = join(dir, 'summary.md')
    writeFileSync(summary, '')
    process.env.GITHUB_STEP_SUMMARY = summary
    const { out, err } = await runFixture({
      outputFile: join(dir, 'out', 'report.json'),
      html: join(dir, 'out', 'report.html'),
    })

    const report = await readReport(join(dir, 'out', 'report.json')) // validates with ReportSchema
    expect(report.run.runner).toBe('vitest')
    expect(report.tests.map((t) => [t.file, t.name, t.state])).toEqual([
      // Its verdict is invalid: kept as unjudgeable (dropped, it read as absent and a gate passed on it).
      ['invalid-meta.test.ts', 'stores an invalid verdict', 'pass'],
      ['verdicts.test.ts', 'chart agent > answer is grounded', 'pass'],
      ['verdicts.test.ts', 'chart agent > cites a missing figure', 'fail'],
      ['verdicts.test.ts', 'agent run has no failing spans', 'pass'],
    ])
    expect(report.tests[0].verdicts[0]).toMatchObject({ metric: 'x', outcome: 'unjudgeable' })
    const failing = report.tests[2]
    expect(failing.error).toContain('faithfulness 0.25 < 0.60: cites a 2019 figure the chart lacks')
    expect(failing.verdicts[0]).toMatchObject({ id: 'm1', score: 0.25, outcome: 'fail', judge: { cached: true } })
    expect(report.tests[3].traces?.[0].spans.map((s) => s.name)).toEqual(['agent.run', 'visit_page'])
    expect(report.run.totals).toEqual({
      tests: 4,
      failedTests: 1,
      assertions: 4,
      failed: 3, // the invalid verdict's assertion counts as not passed
      verdicts: 4,
      judgedFail: 2,
      unjudgeable: 1,
      judgeCalls: 1,
      judgeRetries: 0,
      judgeReasks: 0,
      cachedCalls: 1,
      tokens: 120,
      costUsd: 0.001,
    })

    expect(out).toContain('agent-verdict · 4 tests with verdicts')
    expect(out).toContain(
      '✗ tool:visit_page (id b2, path agent.run › visit_page) — Authentication Errors (span-quality 0/1): HTTP 403 from the page',
    )
    expect(out).toMatch(/agent-verdict: report written to .*report\.json/)
    expect(err).toMatch(
      /invalid task\.meta\.agentVerdict of "stores an invalid verdict" at verdicts\.0\.score.*count as unjudgeable/,
    )

    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8')
    expect(html).toContain('cites a &lt;b&gt;2019&lt;/b&gt; figure')
    expect(readFileSync(summary, 'utf8')).toContain(
      '| ✗ | verdicts.test.ts › chart agent &gt; cites a missing figure | faithfulness |',
    )
  })

  it('prints one line when no test has verdicts, still writes an (empty) artifact, and is quiet when silent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-vitest-e2e-'))
    delete process.env.GITHUB_STEP_SUMMARY
    const loud = await runFixture({ outputFile: join(dir, 'a.json') }, ['verdicts.test.ts'])
    expect(loud.out).toContain('agent-verdict · 3 tests')
    const quiet = await runFixture({ outputFile: join(dir, 'b.json'), silent: true }, ['verdicts.test.ts'])
    expect(quiet.out).not.toContain('agent-verdict')
    expect((await readReport(join(dir, 'b.json'))).tests).toHaveLength(3)
    const none = await runFixture({ outputFile: join(dir, 'c.json') }, ['plain.test.ts'])
    expect(none.out).toContain('agent-verdict: no verdicts in this run')
    expect((await readReport(join(dir, 'c.json'))).tests).toEqual([])
  })
})
