// The Jest reporter with gates, driven through its public hooks with a worker log on disk: Jest fails
// a run whose reporter reports an error (getLastError), so a broken gate must surface there.
import { appendFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import AgentVerdictJestReporter from '../../reporters/jest-reporter'
import { jestVerdictLogPath, JEST_LOG_DIR_ENV } from '../../src/verdict/jest-log'
import { outputVerdicts } from '../report/cases'

afterEach(() => vi.restoreAllMocks())

async function runWith(gates: object) {
  const root = mkdtempSync(join(tmpdir(), 'av-jest-gates-'))
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  const reporter = new AgentVerdictJestReporter({ rootDir: root }, { outputFile: 'r.json', silent: true, gates })
  reporter.onRunStart()
  const testPath = join(root, 'a.test.ts')
  // outputVerdicts(): one failing faithfulness verdict and one passing instruction-following verdict.
  appendFileSync(
    jestVerdictLogPath(process.env[JEST_LOG_DIR_ENV]!),
    JSON.stringify({ testPath, fullName: 'passes', verdicts: outputVerdicts() }) + '\n',
  )
  await reporter.onRunComplete(undefined, {
    testResults: [{ testFilePath: testPath, testResults: [{ fullName: 'passes', status: 'passed' }] }],
  })
  const printed = stderr.mock.calls.map((c) => String(c[0])).join('')
  stderr.mockRestore()
  return { error: reporter.getLastError(), printed }
}

describe('agent-verdict/jest-reporter gates', () => {
  it('reports an error naming the broken gate when every test passed', async () => {
    const { error, printed } = await runWith({ minPassRate: 0.9 })
    expect(error?.message).toBe(
      'agent-verdict: 1 gate(s) broken: gate minPassRate broken: pass rate (1/2 verdicts) 0.5 < 0.9',
    )
    // Printed although silent: a red run must say why.
    expect(printed).toContain('agent-verdict: gate minPassRate broken: pass rate (1/2 verdicts) 0.5 < 0.9\n')
  })

  it('reports no error when the gates hold', async () => {
    const { error, printed } = await runWith({ minPassRate: 0.5, maxUnjudgeable: 0 })
    expect(error).toBeUndefined()
    expect(printed).toBe('')
  })
})

describe('agent-verdict/jest-reporter with tests that share a full name, and retries', () => {
  it('gives each test its own lines: the failing one is not hidden behind the passing one, and the gate breaks', async () => {
    const root = mkdtempSync(join(tmpdir(), 'av-jest-dup-'))
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const reporter = new AgentVerdictJestReporter(
      { rootDir: root },
      { outputFile: 'r.json', silent: true, gates: { minPassRate: 1 } },
    )
    reporter.onRunStart()
    const testPath = join(root, 'a.test.ts')
    const [fail, pass] = outputVerdicts()
    const log = jestVerdictLogPath(process.env[JEST_LOG_DIR_ENV]!)
    // describe('refund') > test('policy') ran twice (a retry: fail, then fail again), then test('refund policy') passed.
    for (const verdicts of [[pass], [fail], [pass]])
      appendFileSync(log, JSON.stringify({ testPath, fullName: 'refund policy', verdicts }) + '\n')
    await reporter.onRunComplete(undefined, {
      testResults: [
        {
          testFilePath: testPath,
          testResults: [
            { fullName: 'refund policy', status: 'failed', invocations: 2 },
            { fullName: 'refund policy', status: 'passed', invocations: 1 },
          ],
        },
      ],
    })
    stderr.mockRestore()
    const { readFileSync } = await import('node:fs')
    const report = JSON.parse(readFileSync(join(root, 'r.json'), 'utf8'))
    expect(
      report.tests.map((t: { state: string; verdicts: Array<{ outcome: string }> }) => [
        t.state,
        t.verdicts.map((v) => v.outcome),
      ]),
    ).toEqual([
      ['fail', ['fail']],
      ['pass', ['pass']],
    ])
    expect(report.run.totals.failed).toBe(1)
    expect(reporter.getLastError()?.message).toMatch(/gate minPassRate broken/)
  })
})
