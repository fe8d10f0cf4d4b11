import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildReport, writeReport } from '../../src/report/artifact'
import { reportCommand } from '../../src/cli/report'
import type { Verdict } from '../../src/verdict/verdict'

function capture() {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } },
  }
}

// Hand-made verdicts: 2 of 3 pass, none unjudgeable, 0.02 USD of calls (exercises the gate, not a judge).
const verdict = (metric: string, pass: boolean): Verdict => ({
  metric,
  level: 'output',
  scale: 'binary',
  raw: pass,
  score: pass ? 1 : 0,
  threshold: 0.5,
  pass,
  outcome: pass ? 'pass' : 'fail',
  reason: 'r',
  judge: {
    provider: 'openai',
    model: 'm',
    promptVersion: 'p@1',
    tokens: { input: 1, output: 1 },
    costUsd: 0.01,
    latencyMs: 1,
    cached: !pass,
  },
})

async function reportFile() {
  const dir = mkdtempSync(join(tmpdir(), 'av-gate-'))
  const tests = [
    {
      file: 'a.test.ts',
      name: 't',
      state: 'pass' as const,
      verdicts: [verdict('correctness', true), verdict('correctness', true), verdict('faithfulness', false)],
    },
  ]
  return {
    dir,
    path: await writeReport(
      join(dir, 'r.json'),
      buildReport({ tests, startedAt: '2026-01-01T00:00:00Z', judge: null, mode: 'auto' }),
    ),
  }
}

describe('agent-verdict report gate', () => {
  it('exits 0 when every gate holds', async () => {
    const { path } = await reportFile()
    const { out, io } = capture()
    expect(
      await reportCommand(
        [
          'gate',
          path,
          '--min-pass-rate',
          '0.66',
          '--max-unjudgeable',
          '0',
          '--max-cost-usd',
          '0.02',
          '--metric-min',
          'correctness=1',
        ],
        io,
      ),
    ).toBe(0)
    expect(out.stdout).toContain('all 4 gates hold')
    expect(out.stderr).toBe('')
  })

  it('exits 1 and prints the broken gate with its value and limit', async () => {
    const { path } = await reportFile()
    const { out, io } = capture()
    expect(
      await reportCommand(['gate', path, '--min-pass-rate', '0.9', '--metric-min-score', 'faithfulness=0.5'], io),
    ).toBe(1)
    expect(out.stderr).toBe(
      'gate minPassRate broken: pass rate (2/3 verdicts) 0.6667 < 0.9\n' +
        'gate metrics.faithfulness.minMeanScore broken: faithfulness mean score (1 scored verdicts) 0 < 0.5\n',
    )
    expect(out.stdout).toContain('2 of 2 gates broken')
  })

  it('reads gates from a file, flags overriding it', async () => {
    const { dir, path } = await reportFile()
    const gates = join(dir, 'gates.json')
    writeFileSync(gates, JSON.stringify({ minPassRate: 0.99, maxCostUsd: 0.001 }))
    const { out, io } = capture()
    expect(await reportCommand(['gate', path, '--gates', gates, '--min-pass-rate', '0.5'], io)).toBe(1)
    expect(out.stdout).toContain('gate minPassRate ok')
    expect(out.stderr).toBe('gate maxCostUsd broken: judge cost USD 0.02 > 0.001\n')
  })

  it('says what to do with no limits, a bad number or a bad gates file', async () => {
    const { dir, path } = await reportFile()
    const { out, io } = capture()
    expect(await reportCommand(['gate', path], io)).toBe(2)
    expect(out.stderr).toContain('gate needs at least one limit')
    expect(await reportCommand(['gate', path, '--min-pass-rate', 'high'], io)).toBe(2)
    expect(out.stderr).toContain('--min-pass-rate needs a number, got "high"')
    expect(await reportCommand(['gate', path, '--metric-min', 'faithfulness'], io)).toBe(2)
    expect(out.stderr).toContain('--metric-min takes metric=value')
    writeFileSync(join(dir, 'bad.json'), '{"minPassRate": 2}')
    expect(await reportCommand(['gate', path, '--gates', join(dir, 'bad.json')], io)).toBe(2)
    expect(out.stderr).toMatch(/invalid gate in .*bad\.json\.minPassRate/)
  })
})
