// Runs real Jest on a fixture project with agent-verdict's Jest reporter, with workers and in band.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const config = join(repo, 'test/e2e/fixtures/jest-reporter/jest.config.cjs')

/** Spawns Jest under tsx (so the reporter loads from source) with a private TMPDIR and cache. */
function runJest(args: string[], reporterOptions: (tmp: string) => Record<string, unknown> = () => ({})) {
  const tmp = mkdtempSync(join(tmpdir(), 'av-jest-e2e-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: tmp,
    AV_E2E_REPORTER_OPTIONS: JSON.stringify({ outputFile: join(tmp, 'report.json'), ...reporterOptions(tmp) }),
    NO_COLOR: '1',
  }
  // The reporter must create the log dir itself, not inherit one.
  delete env.AGENT_VERDICT_JEST_LOG_DIR
  delete env.GITHUB_STEP_SUMMARY
  // A fresh cache dir means no recorded timings, so Jest really uses workers instead of running in band.
  const argv = [
    '--import',
    'tsx',
    join(repo, 'node_modules/jest/bin/jest.js'),
    '--config',
    config,
    '--cacheDirectory',
    join(tmp, 'cache'),
    ...args,
  ]
  return new Promise<{ code: number | null; pid: number; output: string; tmp: string }>((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: repo, env })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, pid: child.pid!, output, tmp }))
  })
}

async function checkArtifact(tmp: string) {
  const report = await readReport(join(tmp, 'report.json')) // validates with ReportSchema
  expect(report.run.runner).toBe('jest')
  const tests = [...report.tests].sort((a, b) => (a.file + a.name).localeCompare(b.file + b.name))
  expect(tests.map((t) => [t.file, t.name, t.state])).toEqual([
    ['chart.test.ts', 'chart agent answer is grounded', 'pass'],
    ['chart.test.ts', 'chart agent cites a missing figure', 'fail'],
    ['invoice.test.ts', 'extracts the invoice total', 'pass'],
    ['login.test.ts', 'login screen summary mentions no sign-up button', 'pass'],
  ])
  expect(tests[1].error).toContain('faithfulness failed: cites a 2019 figure the chart lacks')
  expect(tests[1].verdicts[0]).toMatchObject({
    metric: 'faithfulness',
    outcome: 'fail',
    reason: 'cites a 2019 figure the chart lacks',
  })
  expect(report.run.totals).toEqual({
    tests: 4,
    failedTests: 1,
    assertions: 4,
    failed: 1,
    verdicts: 4,
    judgedFail: 1,
    unjudgeable: 0,
    judgeCalls: 4,
    judgeRetries: 0,
    judgeReasks: 0,
    cachedCalls: 0,
    tokens: 240,
    costUsd: null,
  })
  // The reporter removed its log dir from the private TMPDIR.
  expect(readdirSync(tmp).filter((f) => f.startsWith('agent-verdict-jest-'))).toEqual([])
  return tests
}

const pidsOf = (tests: Awaited<ReturnType<typeof checkArtifact>>) =>
  new Set(tests.map((t) => Number(t.verdicts[0].evidence!.replace('pid ', ''))))

describe('agent-verdict/jest-reporter on a Jest run', () => {
  it('merges verdicts logged by several worker processes (--maxWorkers=2)', async () => {
    const run = await runJest(['--maxWorkers=2'], (tmp) => ({ html: join(tmp, 'report.html') }))
    expect(run.code).toBe(1) // the fixture has one failing test
    const tests = await checkArtifact(run.tmp)
    const pids = pidsOf(tests)
    // Workers inherited AGENT_VERDICT_JEST_LOG_DIR from the reporter's constructor: lines came from >1 child process.
    expect(pids.has(run.pid)).toBe(false)
    expect(pids.size).toBeGreaterThanOrEqual(2)
    expect(run.output).toContain('agent-verdict · 4 tests with verdicts')
    expect(run.output).toContain('✗ faithfulness  0/1, min 0.5  fail')
    expect(run.output).toMatch(/agent-verdict: HTML report written to .*report\.html/)
  }, 120_000)

  it('works in band, where the tests run in the reporter’s own process', async () => {
    const run = await runJest(['--runInBand'])
    expect(run.code).toBe(1)
    const tests = await checkArtifact(run.tmp)
    expect([...pidsOf(tests)]).toEqual([run.pid])
  }, 120_000)
})
