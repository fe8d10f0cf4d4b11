// Every matcher's parameters and return type, pinned exactly for both runners: the runner types are derived
// from the matcher table (matchers/index.ts), so a change to a matcher function's signature shows here.
import type {} from '../../matchers/vitest'
import type {} from '../../matchers/jest'
import { expect as jestExpect } from '@jest/globals'
import { describe, expect, expectTypeOf, test } from 'vitest'
import type { MetricImage } from '../../src/metrics/metric'
import type {
  AgentMatcherOptions,
  JudgeCallOptions,
  ToBeCorrectForImageOptions,
  ToBeCorrectOptions,
  ToBeFaithfulToImageOptions,
  ToBeFaithfulToOptions,
  ToCallToolOptions,
  ToCompleteTaskOptions,
  ToHaveNoFailingSpansOptions,
  ToHaveQualityOptions,
  ToSatisfyRubricOptions,
  ToStayWithinBudgetOptions,
  TrialsOption,
} from '../../matchers/index'

const v = expect('received')
const j = jestExpect('received')

describe('matcher parameters, identical in Vitest and Jest', () => {
  test('output and multimodal matchers', () => {
    expectTypeOf(v.toFollowInstructions).parameters.toEqualTypeOf<[instruction: string, options?: JudgeCallOptions]>()
    expectTypeOf(j.toFollowInstructions).parameters.toEqualTypeOf<[instruction: string, options?: JudgeCallOptions]>()
    expectTypeOf(v.toBeCorrect).parameters.toEqualTypeOf<[options?: ToBeCorrectOptions]>()
    expectTypeOf(j.toBeCorrect).parameters.toEqualTypeOf<[options?: ToBeCorrectOptions]>()
    expectTypeOf(v.toBeFaithfulTo).parameters.toEqualTypeOf<[context: string, options?: ToBeFaithfulToOptions]>()
    expectTypeOf(j.toBeFaithfulTo).parameters.toEqualTypeOf<[context: string, options?: ToBeFaithfulToOptions]>()
    expectTypeOf(v.toBeFaithfulToImage).parameters.toEqualTypeOf<
      [image: MetricImage, options?: ToBeFaithfulToImageOptions]
    >()
    expectTypeOf(j.toBeFaithfulToImage).parameters.toEqualTypeOf<
      [image: MetricImage, options?: ToBeFaithfulToImageOptions]
    >()
    expectTypeOf(v.toBeCorrectForImage).parameters.toEqualTypeOf<
      [image: MetricImage, options: ToBeCorrectForImageOptions]
    >()
    expectTypeOf(j.toBeCorrectForImage).parameters.toEqualTypeOf<
      [image: MetricImage, options: ToBeCorrectForImageOptions]
    >()
    expectTypeOf(v.toHaveQuality).parameters.toEqualTypeOf<[options?: ToHaveQualityOptions]>()
    expectTypeOf(j.toHaveQuality).parameters.toEqualTypeOf<[options?: ToHaveQualityOptions]>()
    expectTypeOf(v.toSatisfyRubric).parameters.toEqualTypeOf<[rubric: string, options?: ToSatisfyRubricOptions]>()
    expectTypeOf(j.toSatisfyRubric).parameters.toEqualTypeOf<[rubric: string, options?: ToSatisfyRubricOptions]>()
  })

  test('trace matchers (the judged ones also take a trials rule)', () => {
    expectTypeOf(v.toHaveNoFailingSpans).parameters.toEqualTypeOf<
      [options?: ToHaveNoFailingSpansOptions & TrialsOption]
    >()
    expectTypeOf(j.toHaveNoFailingSpans).parameters.toEqualTypeOf<
      [options?: ToHaveNoFailingSpansOptions & TrialsOption]
    >()
    expectTypeOf(v.toUseToolsEfficiently).parameters.toEqualTypeOf<[options?: AgentMatcherOptions & TrialsOption]>()
    expectTypeOf(j.toUseToolsEfficiently).parameters.toEqualTypeOf<[options?: AgentMatcherOptions & TrialsOption]>()
    expectTypeOf(v.toCompleteTask).parameters.toEqualTypeOf<
      [goal?: string, options?: ToCompleteTaskOptions & TrialsOption]
    >()
    expectTypeOf(j.toCompleteTask).parameters.toEqualTypeOf<
      [goal?: string, options?: ToCompleteTaskOptions & TrialsOption]
    >()
    expectTypeOf(v.toFollowPlan).parameters.toEqualTypeOf<[options?: AgentMatcherOptions & TrialsOption]>()
    expectTypeOf(j.toFollowPlan).parameters.toEqualTypeOf<[options?: AgentMatcherOptions & TrialsOption]>()
    expectTypeOf(v.toCallTool).parameters.toEqualTypeOf<[name: string | RegExp, options?: ToCallToolOptions]>()
    expectTypeOf(j.toCallTool).parameters.toEqualTypeOf<[name: string | RegExp, options?: ToCallToolOptions]>()
    expectTypeOf(v.toStayWithinBudget).parameters.toEqualTypeOf<[budget: ToStayWithinBudgetOptions]>()
    expectTypeOf(j.toStayWithinBudget).parameters.toEqualTypeOf<[budget: ToStayWithinBudgetOptions]>()
  })

  test('judge matchers return Promise<void>; the deterministic ones the runner’s synchronous result', () => {
    for (const m of [v, j, v.not, j.not]) {
      expectTypeOf(m.toBeCorrect).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toFollowInstructions).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toBeFaithfulTo).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toBeFaithfulToImage).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toBeCorrectForImage).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toHaveQuality).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toSatisfyRubric).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toHaveNoFailingSpans).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toUseToolsEfficiently).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toCompleteTask).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toFollowPlan).returns.toEqualTypeOf<Promise<void>>()
      expectTypeOf(m.toCallTool).returns.toEqualTypeOf<void>()
      expectTypeOf(m.toStayWithinBudget).returns.toEqualTypeOf<void>()
    }
    // Under `.resolves`, Jest's synchronous matchers return a promise (its R), Vitest's stay typed as declared.
    expectTypeOf(jestExpect(Promise.resolve('x')).resolves.toCallTool).returns.toEqualTypeOf<Promise<void>>()
  })
})
