import { describe, expect, it } from 'vitest'
import { buildReport } from '../../src/report/artifact'
import { evaluateGates, parseGates } from '../../src/report/gates'
import type { ReportTest } from '../../src/verdict/report'
import type { Verdict } from '../../src/verdict/verdict'

// Verdicts shaped by hand to exercise the gate arithmetic (not judge results).
function v(metric: string, outcome: Verdict['outcome'], score: number | null, costUsd?: number | null): Verdict {
  return {
    metric,
    level: 'output',
    scale: 'likert5',
    raw: score,
    score,
    threshold: 0.6,
    pass: outcome === 'pass',
    outcome,
    reason: outcome,
    ...(costUsd !== undefined
      ? {
          judge: {
            provider: 'openai',
            model: 'm',
            promptVersion: 'p@1',
            tokens: { input: 10, output: 2 },
            costUsd,
            latencyMs: 1,
            cached: false,
          },
        }
      : {}),
  }
}

function report(verdicts: Verdict[]) {
  const tests: ReportTest[] = [{ file: 'a.test.ts', name: 'all tests passed', state: 'pass', verdicts }]
  return buildReport({ tests, startedAt: '2026-01-01T00:00:00Z', judge: 'openai:m', mode: 'auto' })
}

// 4 verdicts: 3 pass, 1 unjudgeable; faithfulness scores 1 and 0.5 (mean 0.75); total cost 0.3.
const run = report([
  v('faithfulness', 'pass', 1, 0.1),
  v('faithfulness', 'pass', 0.5, 0.1),
  v('quality', 'pass', 0.75, 0.1),
  v('quality', 'unjudgeable', null),
])

describe('evaluateGates', () => {
  it('holds every gate within its limits, including exactly at the limit', () => {
    const results = evaluateGates(run, {
      minPassRate: 0.75,
      maxUnjudgeable: 1,
      maxCostUsd: 0.3,
      metrics: { faithfulness: { minPassRate: 1, minMeanScore: 0.75 } },
    })
    expect(results.map((r) => [r.gate, r.ok])).toEqual([
      ['minPassRate', true],
      ['maxUnjudgeable', true],
      ['maxCostUsd', true],
      ['metrics.faithfulness.minPassRate', true],
      ['metrics.faithfulness.minMeanScore', true],
    ])
    expect(results[0].line).toBe('gate minPassRate ok: pass rate (3/4 verdicts) 0.75 ≥ 0.75')
  })

  it.each([
    [{ minPassRate: 0.8 }, 'gate minPassRate broken: pass rate (3/4 verdicts) 0.75 < 0.8'],
    [{ maxUnjudgeable: 0 }, 'gate maxUnjudgeable broken: unjudgeable verdicts 1 > 0'],
    [{ maxCostUsd: 0.29 }, 'gate maxCostUsd broken: judge cost USD 0.3 > 0.29'],
    [
      { metrics: { quality: { minPassRate: 0.6 } } },
      'gate metrics.quality.minPassRate broken: quality pass rate (1/2 verdicts) 0.5 < 0.6',
    ],
    [
      { metrics: { faithfulness: { minMeanScore: 0.8 } } },
      'gate metrics.faithfulness.minMeanScore broken: faithfulness mean score (2 scored verdicts) 0.75 < 0.8',
    ],
  ])('breaks %j with one line naming the gate, the value and the limit', (gates, line) => {
    const [result] = evaluateGates(run, gates)
    expect(result.ok).toBe(false)
    expect(result.line).toBe(line)
  })

  it('breaks a metric gate on a metric that never ran, and a cost gate when no price is known', () => {
    const [missing] = evaluateGates(run, { metrics: { faithfullness: { minPassRate: 0.5 } } })
    expect(missing.ok).toBe(false)
    expect(missing.line).toContain(
      'pass rate (0/0 verdicts) unknown < 0.5 (no verdict of metric "faithfullness" in this run',
    )
    const unpriced = report([v('quality', 'pass', 1, null)])
    const [cost] = evaluateGates(unpriced, { maxCostUsd: 10 })
    expect(cost.ok).toBe(false)
    expect(cost.line).toContain('judge cost USD unknown > 10 (the judge model has no known price')
  })

  it('breaks the pass-rate gate on an empty run rather than calling it green', () => {
    expect(evaluateGates(report([]), { minPassRate: 0 })[0].ok).toBe(false)
  })
})

describe('parseGates', () => {
  it('names a wrong key or value and lists the valid gates', () => {
    expect(() => parseGates({ minPassrate: 0.9 })).toThrow(/invalid gates: Unrecognized key.*Valid gates: minPassRate/)
    expect(() => parseGates({ minPassRate: 90 })).toThrow(/invalid gates\.minPassRate/)
    expect(() => parseGates({ metrics: { q: { minScore: 1 } } })).toThrow(/invalid gates\.metrics\.q/)
  })
})

describe('gates count verdicts as asserted', () => {
  it('a verdict judged fail under a passing .not passes the pass-rate gates; a failed .not does not', () => {
    const negated = (outcome: Verdict['outcome'], passed: boolean): Verdict => ({
      ...v('faithfulness', outcome, outcome === 'pass' ? 1 : 0),
      assertion: { id: `not.toBeFaithfulTo#${passed ? 1 : 2}`, matcher: 'toBeFaithfulTo', negated: true, passed },
    })
    const results = evaluateGates(report([negated('fail', true), negated('pass', false)]), {
      minPassRate: 0.5,
      metrics: { faithfulness: { minPassRate: 0.6 } },
    })
    expect(results.map((r) => [r.gate, r.ok, r.measured])).toEqual([
      ['minPassRate', true, 0.5],
      ['metrics.faithfulness.minPassRate', false, 0.5],
    ])
  })
})
