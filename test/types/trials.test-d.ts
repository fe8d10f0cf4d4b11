import type {} from '../../matchers/vitest'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { runTrials, type Trials } from '../../src/trials/run-trials'

declare const answers: Trials<string>

describe('trials types', () => {
  test('runTrials keeps the result type; every judge matcher takes a trials rule', () => {
    expectTypeOf(runTrials(3, async () => 'answer')).toEqualTypeOf<Promise<Trials<string>>>()
    expectTypeOf(expect(answers).toBeCorrect({ reference: 'x', trials: 'pass^k' })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(
      expect(answers).toHaveQuality({ min: 4, trials: { passRate: 0.8, bound: 'wilson-lower' } }),
    ).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(answers).toHaveNoFailingSpans({ trials: 'pass@k' })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(answers).toCompleteTask('goal', { trials: { passRate: 0.6 } })).toEqualTypeOf<Promise<void>>()
  })

  test('a rule that is not one of the three is a type error', () => {
    // @ts-expect-error — k is implied by the trials; write 'pass^k'
    void expect(answers).toBeCorrect({ trials: 'pass^5' })
    // @ts-expect-error — bound is 'point' or 'wilson-lower'
    void expect(answers).toFollowPlan({ trials: { passRate: 0.8, bound: 'lower' } })
  })
})
