import type {} from '../../matchers/jest'
import { expect as jestExpect } from '@jest/globals'
import { describe, expectTypeOf, test } from 'vitest'
import type { Judge } from '../../src/judges/types'

declare const judge: Judge
declare const png: Uint8Array

describe('agent-verdict/jest matcher types', () => {
  test('@jest/globals expect: every matcher returns Promise<void>, plain and under .not', () => {
    expectTypeOf(jestExpect('a').toFollowInstructions('Answer briefly.')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect('a').toBeCorrect({ reference: 'b', judge })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect('a').toBeFaithfulTo('context')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect('a').toBeFaithfulToImage(png, { instruction: 'Which?' })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(
      jestExpect('a').toBeCorrectForImage(png, { instruction: 'Total?', reference: '$1,296.00' }),
    ).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect('a').not.toHaveQuality({ min: 3 })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect('a').toSatisfyRubric('Polite.', { samples: 3 })).toEqualTypeOf<Promise<void>>()
  })

  test('@types/jest users: the global jest.Matchers carries the matchers too', () => {
    expectTypeOf<ReturnType<jest.Matchers<void>['toBeFaithfulTo']>>().toEqualTypeOf<Promise<void>>()
    expectTypeOf<Parameters<jest.Matchers<void>['toHaveQuality']>[0]>().toExtend<{ min?: number } | undefined>()
  })

  test('wrong arguments are type errors', () => {
    // @ts-expect-error toBeCorrectForImage needs { instruction }
    void jestExpect('a').toBeCorrectForImage(png, {})
    // @ts-expect-error the rubric is a string
    void jestExpect('a').toSatisfyRubric(42)
  })
})
