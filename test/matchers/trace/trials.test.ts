// Trace matchers over runTrials results: each trial's trace is checked (span verdicts and tree to the
// report), and the declared rule decides. Trial 3's run hits an HTTP 403, which the detectors flag.
import '../../../matchers/vitest'
import { describe, expect, test } from 'vitest'
import { runTrials } from '../../../src/trials/run-trials'
import { assertionStatus, countAssertions } from '../../../src/verdict/assertion'
import { useJudgeHarness } from '../../support/recording-judge'
import { metaOf, otelRun, rejectionOf } from './helpers'

const h = useJudgeHarness()

// A fresh SDK recording per trial; trial 3 (index 2) fails its lookup_order call with a 403.
const runs = () => runTrials(5, (i) => otelRun(i === 2 ? 403 : undefined).exporter)

describe('toHaveNoFailingSpans over trials', () => {
  test('pass^5 fails on trial 3 and names it; every trial’s spans were judged and its tree reported', async ({
    task,
  }) => {
    const trials = await runs()
    const error = await rejectionOf(expect(trials).toHaveNoFailingSpans({ judge: h.judge, trials: 'pass^k' }))
    expect(error.message).toContain(
      'toHaveNoFailingSpans over 5 trials: fail\nRule: pass^5 (all 5 must pass)\nPassed: 4/5 (rate 0.8, 95% Wilson interval 0.3755–0.9638)\nTrials: 1 ✓  2 ✓  3 ✗  4 ✓  5 ✓\nTrial 3: fail — ',
    )
    expect(error.message).toMatch(/Trial 3: fail — 1 of \d+ judged spans? failed/)
    expect(h.fake.calls.length).toBeGreaterThanOrEqual(5) // the judge saw every trial
    const meta = metaOf(task)
    expect(meta.traces).toHaveLength(5)
    const summary = meta.verdicts.filter((v) => v.metric === 'trials.toHaveNoFailingSpans')
    expect(summary).toHaveLength(1)
    expect(summary[0]).toMatchObject({
      outcome: 'fail',
      trials: { k: 5, passes: 4, outcomes: ['pass', 'pass', 'fail', 'pass', 'pass'] },
    })
  })

  test('pass@5 and passRate 0.8 pass on the same trials; .not inverts the rule', async () => {
    const trials = await runs()
    await expect(trials).toHaveNoFailingSpans({ judge: h.judge, trials: 'pass@k' })
    await expect(trials).toHaveNoFailingSpans({ judge: h.judge, trials: { passRate: 0.8 } })
    await expect(trials).not.toHaveNoFailingSpans({ judge: h.judge, trials: 'pass^k' })
  })
})

describe("trace trials in the report: one assertion, its .not, each trial's verdicts under it", () => {
  test('.not pass^5 with trial 3 failing passes, and counts as one passed assertion, not five', async ({ task }) => {
    await expect(await runs()).not.toHaveNoFailingSpans({ judge: h.judge, trials: 'pass^k' })
    const meta = metaOf(task)
    expect(meta.assertions).toEqual([
      { id: 'toHaveNoFailingSpans#1', matcher: 'toHaveNoFailingSpans', negated: true, passed: true },
    ])
    expect(meta.traces).toHaveLength(5)
    // Every trial's span verdicts and the rule's summary belong to the one assertion.
    expect(new Set(meta.verdicts.map((v) => v.assertion?.id))).toEqual(new Set(['toHaveNoFailingSpans#1']))
    expect(meta.verdicts.some((v) => v.outcome === 'fail')).toBe(true)
    expect(meta.verdicts.every((v) => assertionStatus(v) !== 'fail')).toBe(true)
    expect(countAssertions(meta.verdicts, meta.assertions)).toEqual({ assertions: 1, failed: 0 })
    // Span ids stay one-to-one per trial: the trees link to verdicts that exist.
    const ids = new Set(meta.verdicts.map((v) => v.id))
    for (const trace of meta.traces ?? [])
      for (const sp of trace.spans) for (const id of sp.verdictIds) expect(ids).toContain(id)
  })

  test('pass^5 with trial 3 failing fails and counts as one failed assertion', async ({ task }) => {
    await rejectionOf(expect(await runs()).toHaveNoFailingSpans({ judge: h.judge, trials: 'pass^k' }))
    const meta = metaOf(task)
    expect(meta.assertions).toEqual([
      { id: 'toHaveNoFailingSpans#1', matcher: 'toHaveNoFailingSpans', negated: false, passed: false },
    ])
    expect(countAssertions(meta.verdicts, meta.assertions)).toEqual({ assertions: 1, failed: 1 })
  })
})

describe('agent-level matchers over trials', () => {
  test('toUseToolsEfficiently with the deterministic check decides per trial', async () => {
    const trials = await runTrials(3, () => otelRun().spans())
    await expect(trials).toUseToolsEfficiently({ judge: false, trials: 'pass^k' })
    expect(h.fake.calls).toHaveLength(0)
  })

  test('toCompleteTask takes the rule in its options after the goal', async () => {
    const trials = await runTrials(2, () => otelRun().spans())
    await expect(trials).toCompleteTask('Tell the customer where order A-1042 is.', {
      judge: h.judge,
      trials: 'pass^k',
    })
    expect(h.fake.calls).toHaveLength(2)
  })
})

describe('trace trials misuse', () => {
  test('trials without a rule, and a rule without trials, say what to write', async () => {
    await expect(expect(await runs()).toHaveNoFailingSpans({ judge: h.judge })).rejects.toThrow(
      /received 5 trials, so trials must be 'pass\^k'/,
    )
    await expect(expect(otelRun().spans()).toHaveNoFailingSpans({ judge: h.judge, trials: 'pass^k' })).rejects.toThrow(
      /the trials option needs received values from runTrials/,
    )
    expect(h.fake.calls).toHaveLength(0)
  })
})
