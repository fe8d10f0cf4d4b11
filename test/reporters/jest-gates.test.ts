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
