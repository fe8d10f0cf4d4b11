// The scorer's bookkeeping quirks and the localization metrics, on small hand-built scorer inputs.
import { describe, expect, test } from 'vitest'
import { pearson } from '../../src/bench/pearson'
import { scoreTrailInputs, type TrailScoringInput } from '../../src/bench/trail-scorer'

const err = (location: unknown, category: unknown = 'Formatting Errors') => ({
  category,
  location,
  evidence: '',
  description: '',
  impact: 'LOW',
})
const scores = (s: Record<string, unknown>) => [
  { reliability_score: 3, security_score: 5, instruction_adherence_score: 3, plan_opt_score: 3, overall: 3, ...s },
]
const file = (name: string, gold: unknown, prediction: unknown | undefined): TrailScoringInput => ({
  file: `${name}.json`,
  gold: typeof gold === 'string' ? gold : JSON.stringify(gold),
  prediction:
    prediction === undefined ? undefined : typeof prediction === 'string' ? prediction : JSON.stringify(prediction),
})

describe('official bookkeeping', () => {
  test('reliability is cast with int(): 2.9 → 2 and "3.5" → ValueError → −1; other keys use float()', () => {
    const got = scoreTrailInputs([
      file(
        'a',
        { errors: [], scores: scores({ reliability_score: 1, overall: 1 }) },
        { errors: [], scores: scores({ reliability_score: '3.5', overall: '3.5' }) },
      ),
      file(
        'b',
        { errors: [], scores: scores({ reliability_score: 2, overall: 2 }) },
        { errors: [], scores: scores({ reliability_score: 2.9, overall: 2.9 }) },
      ),
      file(
        'c',
        { errors: [], scores: scores({ reliability_score: 4, overall: 4 }) },
        { errors: [], scores: scores({ reliability_score: 4, overall: 4 }) },
      ),
    ])
    expect(got.score_correlations.reliability).toEqual(pearson([1, 2, 4], [-1, 2, 4]))
    expect(got.score_correlations.overall).toEqual(pearson([1, 2, 4], [3.5, 2.9, 4]))
  })

  test('0, null and "" scores count as −1 (falsy), not as missing', () => {
    const got = scoreTrailInputs([
      file('a', { errors: [], scores: scores({ overall: 0 }) }, { errors: [], scores: scores({ overall: null }) }),
      file('b', { errors: [], scores: scores({ overall: 2 }) }, { errors: [], scores: scores({ overall: '' }) }),
      file('c', { errors: [], scores: scores({ overall: 4 }) }, { errors: [], scores: scores({ overall: 4 }) }),
    ])
    expect(got.score_correlations.overall).toEqual(pearson([-1, 2, 4], [-1, -1, 4]))
  })

  test('a TypeError in the score casts escapes: the file is not counted but its accuracy stays in the sum', () => {
    const gold = { errors: [err('s1')], scores: scores({}) }
    const got = scoreTrailInputs([
      file('a', gold, { errors: [err('s1')], scores: scores({}) }),
      file('b', gold, { errors: [err('s1')], scores: scores({ plan_opt_score: [3] }) }),
    ])
    expect(got.files_processed).toBe(1)
    // (1 + 1) / 1: exactly what calculate_scores.py prints for this pair of files.
    expect(got.location_accuracy).toBe(2)
    expect(got.score_correlations.reliability.n).toBe(2)
    expect(got.score_correlations.instruction_adherence.n).toBe(2)
    expect(got.score_correlations.plan_optimization.n).toBe(1)
    expect(got.skipped).toEqual([{ file: 'b.json', reason: expect.stringContaining('TypeError') }])
  })

  test('an infinite reliability is an OverflowError in int(), which escapes too', () => {
    const got = scoreTrailInputs([
      file('a', { errors: [], scores: scores({}) }, '{"errors": [], "scores": [{"reliability_score": Infinity}]}'),
    ])
    expect(got.files_processed).toBe(0)
    expect(got.skipped[0].reason).toMatch(/OverflowError/)
  })

  test('a missing prediction is skipped, not scored 0', () => {
    const got = scoreTrailInputs([
      file('a', { errors: [err('s1')] }, { errors: [err('s1')] }),
      file('b', { errors: [err('s2')] }, undefined),
    ])
    expect(got.files_processed).toBe(1)
    expect(got.location_accuracy).toBe(1)
    expect(got.skipped).toEqual([{ file: 'b.json', reason: 'no prediction file' }])
  })

  test('malformed gold (trailing comma) is skipped: no lenient parse, as upstream', () => {
    const got = scoreTrailInputs([
      file('a', '{"errors": [{"category": "Goal Deviation", "location": "s1"},]}', { errors: [err('s1')] }),
    ])
    expect(got.files_processed).toBe(0)
    expect(got.skipped[0].reason).toMatch(/JSON/)
  })

  test('a prediction error that is not a dict makes Python raise: skipped', () => {
    const got = scoreTrailInputs([file('a', { errors: [err('s1')] }, { errors: ['s1'] })])
    expect(got.files_processed).toBe(0)
    expect(got.skipped[0].reason).toMatch(/AttributeError/)
  })

  test('"errors": "" iterates as nothing, so the file counts with no predictions', () => {
    const got = scoreTrailInputs([file('a', { errors: [err('s1')] }, { errors: '' })])
    expect(got.files_processed).toBe(1)
    expect(got.location_accuracy).toBe(0)
  })

  test('a falsy category shifts the later categories onto earlier locations', () => {
    const gold = { errors: [err('a', 'Formatting Errors'), err('b', ''), err('c', 'Goal Deviation')] }
    // Gold pairs become (a, Formatting Errors), (b, Goal Deviation): the prediction at c misses.
    const got = scoreTrailInputs([
      file('t', gold, { errors: [err('a', 'Formatting Errors'), err('c', 'Goal Deviation')] }),
    ])
    expect(got.joint_accuracy).toBe(0.5)
    expect(got.location_accuracy).toBeCloseTo(2 / 3, 15)
  })

  test('an unmatched gold spelling stays in the joint denominator and sets no F1 bit', () => {
    const got = scoreTrailInputs([
      file('t', { errors: [err('a', 'Task Orchestration Errors')] }, { errors: [err('a', 'Task Orchestration')] }),
    ])
    expect(got.joint_accuracy).toBe(0)
    expect(got.location_accuracy).toBe(1)
    expect(got.category_metrics_with_support).toEqual({})
    expect(got.weighted_f1).toBe(0)
  })

  test('empty prediction scores give no pairs: every correlation is n = 0, r = 0, p = 1', () => {
    const got = scoreTrailInputs([file('a', { errors: [], scores: scores({}) }, { errors: [], scores: [] })])
    for (const c of Object.values(got.score_correlations)) expect(c).toEqual({ correlation: 0, p_value: 1, n: 0 })
  })

  test("weighted F1 weights each label's F1 by its gold support over traces", () => {
    const got = scoreTrailInputs([
      file(
        'a',
        { errors: [err('x', 'Goal Deviation'), err('y', 'Resource Abuse')] },
        { errors: [err('x', 'Goal Deviation')] },
      ),
      file('b', { errors: [err('x', 'Goal Deviation')] }, { errors: [err('x', 'Resource Abuse')] }),
    ])
    // Goal Deviation: tp 1, support 2, predicted 1 → F1 2/3; Resource Abuse: tp 0 → F1 0, support 1.
    expect(got.weighted_f1).toBeCloseTo((2 * (2 / 3) + 1 * 0) / 3, 15)
    expect(got.category_metrics_with_support['Resource Abuse']).toEqual({ precision: 0, recall: 0, f1: 0, support: 1 })
  })
})

describe('localization precision, recall and F1 (micro over processed traces)', () => {
  test('count distinct spans: extra predictions lower precision, duplicates count once', () => {
    const got = scoreTrailInputs([
      // gold {a, b}, predicted {a, c, d}: 1 of 3 predicted spans is right, 1 of 2 gold spans found
      file(
        't1',
        { errors: [err('a'), err('b'), err('b', 'Goal Deviation')] },
        { errors: [err('a'), err('c'), err('d'), err('a', 'Goal Deviation')] },
      ),
      // gold {x}, predicted {x}
      file('t2', { errors: [err('x')] }, { errors: [err('x')] }),
    ])
    expect(got.localization_precision).toBe(2 / 4)
    expect(got.localization_recall).toBe(2 / 3)
    expect(got.localization_f1).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 15)
    // The official metric on the same input is a macro recall: (1/2 + 1) / 2.
    expect(got.location_accuracy).toBe(0.75)
  })

  test('naming every span keeps the official location accuracy at 1 but precision collapses', () => {
    const spans = Array.from({ length: 40 }, (_, i) => `span${i}`)
    const got = scoreTrailInputs([
      file('t', { errors: [err('span3'), err('span7')] }, { errors: spans.map((s) => err(s)) }),
    ])
    expect(got.location_accuracy).toBe(1)
    expect(got.localization_precision).toBe(2 / 40)
    expect(got.localization_recall).toBe(1)
  })

  test('nothing predicted gives precision 0 (not NaN), and F1 0', () => {
    const got = scoreTrailInputs([file('t', { errors: [err('a')] }, { errors: [] })])
    expect(got.localization_precision).toBe(0)
    expect(got.localization_f1).toBe(0)
  })
})

describe('companion metrics: pair precision and recall, top-1 joint accuracy, predictions per trace', () => {
  test('extra categories on a found span raise the official joint accuracy but not the top-1 one, and cost pair precision', () => {
    // Gold: span a is a Formatting Error. The prediction names a with Goal Deviation first, then Formatting Errors.
    const hedged = file(
      't',
      { errors: [err('a')] },
      { errors: [err('a', 'Goal Deviation'), err('a', 'Formatting Errors'), err('a', 'Resource Abuse')] },
    )
    const got = scoreTrailInputs([hedged])
    expect(got.joint_accuracy).toBe(1) // official: recall of gold pairs, hedging is free
    expect(got.top1_joint_accuracy).toBe(0) // the first category named for a is wrong
    expect(got.pair_precision).toBe(1 / 3)
    expect(got.pair_recall).toBe(1)
    expect(got.predictions_per_trace).toBe(3)
    expect(got.predictions_max).toBe(3)
  })

  test('micro pair counts over traces, duplicates counted once, mean and max of predictions', () => {
    const got = scoreTrailInputs([
      // gold pairs {(a,FE),(b,GD)}; predicted pairs {(a,FE),(c,FE)} (a named twice with the same category)
      file('t1', { errors: [err('a'), err('b', 'Goal Deviation')] }, { errors: [err('a'), err('a'), err('c')] }),
      // gold {(x,FE)}; predicted {(x,RA)} first, then (x,FE): top-1 misses, official joint hits
      file('t2', { errors: [err('x')] }, { errors: [err('x', 'Resource Abuse'), err('x')] }),
    ])
    expect(got.pair_precision).toBe(2 / 4)
    expect(got.pair_recall).toBe(2 / 3)
    expect(got.joint_accuracy).toBe((1 / 2 + 1) / 2)
    expect(got.top1_joint_accuracy).toBe((1 / 2 + 0) / 2)
    expect(got.predictions_per_trace).toBe(2.5)
    expect(got.predictions_max).toBe(3)
  })

  test('nothing predicted: every companion is 0, not NaN', () => {
    const got = scoreTrailInputs([file('t', { errors: [err('a')] }, { errors: [] })])
    expect([
      got.pair_precision,
      got.pair_recall,
      got.top1_joint_accuracy,
      got.predictions_per_trace,
      got.predictions_max,
    ]).toEqual([0, 0, 0, 0, 0])
  })
})
