// Runs the real Vitest CLI on a fixture project whose tests all pass, with the reporter's gates set:
// a broken gate must make the run exit non-zero with one line naming it; gates within limits must not.
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { readReport } from '../../src/report/artifact'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const fixture = join(repo, 'test/e2e/fixtures/gate-reporter')
const vitestCli = join(repo, 'node_modules/vitest/vitest.mjs')

function runVitest(gates: object): Promise<{ code: number | null; output: string; reportPath: string }> {
  const reportPath = join(mkdtempSync(join(tmpdir(), 'av-gate-e2e-')), 'report.json')
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', AV_GATES: JSON.stringify(gates), AV_OUTPUT: reportPath }
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitestCli, 'run', '--root', fixture], { cwd: fixture, env })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output, reportPath }))
  })
}

describe('reporter gates on a green Vitest run (CLI)', () => {
  it('exits 0 when every gate is within its limits', async () => {
    const { code, output, reportPath } = await runVitest({
      minPassRate: 0.5,
      maxUnjudgeable: 1,
      maxCostUsd: 0.04,
      metrics: { faithfulness: { minPassRate: 0.5 } },
    })
    expect(output).toContain('2 passed')
    expect(output).toContain('agent-verdict: gate minPassRate ok: pass rate (2/4 verdicts) 0.5 ≥ 0.5')
    expect(output).not.toContain('broken')
    expect(code).toBe(0)
    expect((await readReport(reportPath)).run.totals).toMatchObject({ verdicts: 4, unjudgeable: 1 })
  })

  it.each([
    [{ minPassRate: 0.75 }, 'gate minPassRate broken: pass rate (2/4 verdicts) 0.5 < 0.75'],
    [{ maxUnjudgeable: 0 }, 'gate maxUnjudgeable broken: unjudgeable verdicts 1 > 0'],
    [{ maxCostUsd: 0.03 }, 'gate maxCostUsd broken: judge cost USD 0.04 > 0.03'],
    [
      { metrics: { quality: { minMeanScore: 0.8 } } },
      'gate metrics.quality.minMeanScore broken: quality mean score (1 scored verdicts) 0.75 < 0.8',
    ],
  ])('%j breaks the run although every test passed', async (gates, line) => {
    const { code, output } = await runVitest(gates)
    expect(output).toContain('2 passed')
    expect(output).toContain(`agent-verdict: ${line}\n`)
    expect(code).toBe(1)
  })
})
