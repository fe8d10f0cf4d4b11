import { describe, expect, it } from 'vitest'
import { isTrials, runTrials } from '../../src/trials/run-trials'
import { parseTrialRule, summarizeTrials } from '../../src/trials/summarize'
import type { Verdict } from '../../src/verdict/verdict'
import { VerdictSchema } from '../../src/verdict/verdict'

describe('runTrials', () => {
  it('runs k trials in order of index, never more than `concurrency` at once', async () => {
    let running = 0
    let peak = 0
    const trials = await runTrials(
      7,
      async (i) => {
        running++
        peak = Math.max(peak, running)
        await new Promise((r) => setTimeout(r, 5 + ((i * 7) % 4)))
        running--
        return `answer ${i}`
      },
      { concurrency: 3 },
    )
    expect(isTrials(trials)).toBe(true)
    expect(trials.k).toBe(7)
    expect(trials.results).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `answer ${i}`))
    expect(peak).toBe(3)
  })

  it('runs one at a time by default', async () => {
    let running = 0
    let peak = 0
    await runTrials(4, async () => {
      peak = Math.max(peak, ++running)
      await new Promise((r) => setTimeout(r, 2))
      running--
    })
    expect(peak).toBe(1)
  })

  it('names the trial that threw, and refuses bad k or concurrency', async () => {
    await expect(runTrials(3, (i) => (i === 1 ? Promise.reject(new Error('agent crashed')) : 'ok'))).rejects.toThrow(
      'runTrials: trial 2 of 3 threw: agent crashed',
    )
    await expect(runTrials(0, () => 'x')).rejects.toThrow(/k must be a positive integer/)
    await expect(runTrials(2, () => 'x', { concurrency: 0 })).rejects.toThrow(/concurrency must be a positive integer/)
  })

  it('is recognised across bundles by a registered symbol, and not fooled by look-alikes', () => {
    expect(isTrials({ [Symbol.for('agent-verdict.trials')]: true, k: 1, results: ['x'] })).toBe(true)
    expect(isTrials({ k: 5, results: [] })).toBe(false)
    expect(isTrials(null)).toBe(false)
  })
})

// Per-trial verdicts shaped by hand: this exercises the folding arithmetic, not a judge.
const v = (outcome: Verdict['outcome'], reason: string = outcome): Verdict => ({
  metric: 'correctness',
  level: 'output',
  scale: 'binary',
  raw: outcome === 'pass' ? 1 : 0,
  score: outcome === 'unjudgeable' ? null : outcome === 'pass' ? 1 : 0,
  threshold: 1,
  pass: outcome === 'pass',
  outcome,
  reason,
  judge: {
    provider: 'openai',
    model: 'm',
    promptVersion: 'c@1',
    tokens: { input: 10, output: 2 },
    costUsd: 0.001,
    latencyMs: 3,
    cached: true,
  },
})
const fourOfFive = [v('pass'), v('pass'), v('fail', 'names EMEA'), v('pass'), v('pass')]

describe('summarizeTrials', () => {
  it('trial 3 of 5 failing: pass^5 fails, pass@5 passes, passRate 0.8 passes with its interval', () => {
    const all = summarizeTrials(fourOfFive, parseTrialRule('pass^k'))
    expect(all).toMatchObject({ outcome: 'fail', pass: false, score: 0.8, scale: 'ratio', threshold: 1 })
    expect(all.reason).toBe(
      '4/5 trials passed (rate 0.8, 95% CI 0.3755–0.9638); rule pass^5 (all 5 must pass) — not met; trial 3 fail: names EMEA',
    )
    expect(summarizeTrials(fourOfFive, parseTrialRule('pass@k'))).toMatchObject({ outcome: 'pass', pass: true })
    const rate = summarizeTrials(fourOfFive, parseTrialRule({ passRate: 0.8 }))
    expect(rate.outcome).toBe('pass')
    expect(rate.trials).toMatchObject({
      k: 5,
      passes: 4,
      rate: 0.8,
      rule: { kind: 'passRate', min: 0.8, bound: 'point' },
      outcomes: ['pass', 'pass', 'fail', 'pass', 'pass'],
    })
    expect(rate.trials!.lower).toBeCloseTo(0.3755, 4)
    expect(rate.trials!.upper).toBeCloseTo(0.9638, 4)
    // The same 4/5 does not show, with 95% confidence, a rate of at least 0.8.
    expect(summarizeTrials(fourOfFive, parseTrialRule({ passRate: 0.8, bound: 'wilson-lower' })).outcome).toBe('fail')
    expect(VerdictSchema.parse(rate)).toEqual(rate)
  })

  it('sums the judges’ tokens and cost and is cached only when every trial was', () => {
    const s = summarizeTrials(
      [...fourOfFive.slice(0, 4), { ...v('pass'), judge: { ...v('pass').judge!, cached: false } }],
      parseTrialRule('pass@k'),
    )
    expect(s.judge).toMatchObject({ tokens: { input: 50, output: 10 }, costUsd: 0.005, cached: false })
  })

  it('is unjudgeable, never a pass, when a trial is unjudgeable', () => {
    const s = summarizeTrials([v('pass'), v('unjudgeable', 'judge refused'), v('pass')], parseTrialRule('pass@k'))
    expect(s).toMatchObject({ outcome: 'unjudgeable', pass: false })
    expect(s.reason).toContain('not decided: 1 trial(s) unjudgeable; trial 2 unjudgeable: judge refused')
  })

  it('explains a wrong rule', () => {
    expect(() => parseTrialRule('pass^5')).toThrow(/trials must be 'pass\^k', 'pass@k' or \{ passRate/)
    expect(() => parseTrialRule({ passRate: 80 })).toThrow(/passRate 80 is not in 0..1/)
    expect(() => parseTrialRule({ passRate: 0.8, bound: 'lower' })).toThrow(/bound lower is neither/)
  })
})
