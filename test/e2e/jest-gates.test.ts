// Real Jest (under tsx, reporter from source) on the jest-reporter fixture's two passing files, with gates:
// a broken gate must turn the green run red with its line; gates within limits must leave it green.
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const config = join(repo, 'test/e2e/fixtures/jest-reporter/jest.config.cjs')

function runJest(gates: object) {
  const tmp = mkdtempSync(join(tmpdir(), 'av-jest-gates-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: tmp,
    NO_COLOR: '1',
    // The two files are picked by path, a filtered run: gates apply to what ran only when asked (decision 0041).
    AV_E2E_REPORTER_OPTIONS: JSON.stringify({
      outputFile: join(tmp, 'report.json'),
      gates,
      gatesOnPartialRun: 'apply',
    }),
  }
  delete env.AGENT_VERDICT_JEST_LOG_DIR
  delete env.GITHUB_STEP_SUMMARY
  // Only the two fixture files whose tests all pass (one correctness and one instruction-following verdict, both passing).
  const argv = [
    '--import',
    'tsx',
    join(repo, 'node_modules/jest/bin/jest.js'),
    '--config',
    config,
    '--cacheDirectory',
    join(tmp, 'cache'),
    '--runInBand',
    'invoice.test.ts',
    'login.test.ts',
  ]
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: repo, env })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

describe('agent-verdict/jest-reporter gates on a green Jest run', () => {
  it('exits 0 within limits', async () => {
    const run = await runJest({ minPassRate: 1, maxUnjudgeable: 0, metrics: { correctness: { minPassRate: 1 } } })
    expect(run.output).toMatch(/Tests:\s+1 skipped, 3 passed/)
    expect(run.output).toContain('agent-verdict: gate minPassRate ok: pass rate (2/2 verdicts) 1 ≥ 1')
    expect(run.code).toBe(0)
  }, 120_000)

  it('exits 1 with the gate’s line when a gate breaks although every test passed', async () => {
    const run = await runJest({ metrics: { faithfulness: { minPassRate: 0.9 } } })
    expect(run.output).toMatch(/Tests:\s+1 skipped, 3 passed/)
    expect(run.output).toContain(
      'agent-verdict: gate metrics.faithfulness.minPassRate broken: faithfulness pass rate (0/0 verdicts) unknown < 0.9 (no verdict of metric "faithfulness" in this run',
    )
    expect(run.code).toBe(1)
  }, 120_000)
})
