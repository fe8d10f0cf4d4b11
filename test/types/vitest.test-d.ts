import type {} from '../../matchers/vitest'
import { describe, expect, expectTypeOf, test } from 'vitest'
import type { Judge } from '../../src/judges/types'
import type { LoadedImage } from '../../src/media/loaded-image'

declare const judge: Judge
declare const png: Buffer
declare const loaded: LoadedImage

describe('agent-verdict/vitest matcher types', () => {
  test('every matcher is async: it returns Promise<void>, plain and under .not', () => {
    expectTypeOf(expect('a').toFollowInstructions('Answer briefly.')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toBeCorrect()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toBeFaithfulTo('context')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toBeFaithfulToImage('chart.png')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toBeCorrectForImage(png, { instruction: 'Total?' })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toHaveQuality({ min: 4 })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('a').toSatisfyRubric('Polite.')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect({ output: 'a', image: png }).not.toHaveQuality()).toEqualTypeOf<Promise<void>>()
  })

  test('options: judge, threshold, samples on every matcher; images in every accepted form', () => {
    expectTypeOf(expect('a').toBeCorrect)
      .parameter(0)
      .toExtend<
        { judge?: Judge; threshold?: number; samples?: number; reference?: string; input?: string } | undefined
      >()
    expectTypeOf(expect('a').toBeFaithfulToImage)
      .parameter(0)
      .toExtend<string | Buffer | Uint8Array | URL | LoadedImage>()
    void expect('a').toBeFaithfulToImage(new URL('file:///chart.png'), {
      instruction: 'Which region?',
      judge,
      samples: 3,
    })
    void expect('a').toBeFaithfulToImage(loaded)
    void expect('a').toSatisfyRubric('Describes the chart.', { image: png, scale: 'likert5', min: 3, threshold: 0.5 })
  })

  test('wrong arguments are type errors', () => {
    // @ts-expect-error toBeCorrectForImage needs { instruction }
    void expect('a').toBeCorrectForImage(png, {})
    // @ts-expect-error min is a number
    void expect('a').toHaveQuality({ min: '4' })
    // @ts-expect-error scale is 'binary' or 'likert5'
    void expect('a').toSatisfyRubric('x', { scale: 10 })
    // @ts-expect-error an image is not a number
    void expect('a').toBeFaithfulToImage(42)
  })
})
