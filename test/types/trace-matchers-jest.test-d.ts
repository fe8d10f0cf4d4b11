import type {} from '../../matchers/jest'
import { expect as jestExpect } from '@jest/globals'
import { describe, expectTypeOf, test } from 'vitest'
import type { Judge } from '../../src/judges/types'
import type { Trace } from '../../src/trace/trace'

declare const judge: Judge
declare const trace: Trace

describe('agent-verdict/jest trace matcher types', () => {
  test('@jest/globals expect: judge-based trace matchers return Promise<void>', () => {
    expectTypeOf(jestExpect(trace).toHaveNoFailingSpans({ judge, policy: 'existential' })).toEqualTypeOf<
      Promise<void>
    >()
    expectTypeOf(jestExpect(trace).not.toUseToolsEfficiently()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect(trace).toCompleteTask('Refund order A-1042.', { judge })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(jestExpect(trace).toFollowPlan()).toEqualTypeOf<Promise<void>>()
  })

  test("deterministic trace matchers return the runner's R: void, and Promise<void> after .resolves", () => {
    expectTypeOf(jestExpect(trace).toCallTool('search', { times: 1 })).toEqualTypeOf<void>()
    expectTypeOf(jestExpect(trace).toStayWithinBudget({ tokens: 1_000 })).toEqualTypeOf<void>()
    expectTypeOf(jestExpect(Promise.resolve(trace)).resolves.toCallTool('search')).toEqualTypeOf<Promise<void>>()
  })

  test('@types/jest users: the global jest.Matchers carries the trace matchers too', () => {
    expectTypeOf<ReturnType<jest.Matchers<void>['toHaveNoFailingSpans']>>().toEqualTypeOf<Promise<void>>()
    expectTypeOf<ReturnType<jest.Matchers<void>['toCallTool']>>().toEqualTypeOf<void>()
    expectTypeOf<Parameters<jest.Matchers<void>['toStayWithinBudget']>[0]>().toExtend<{
      tokens?: number
      llmCalls?: number
      latencyMs?: number
      costUsd?: number
    }>()
  })

  test('wrong arguments are type errors', () => {
    // @ts-expect-error allowUnjudgeable is a boolean
    void jestExpect(trace).toHaveNoFailingSpans({ allowUnjudgeable: 'yes' })
    // @ts-expect-error a tool name is a string or a RegExp
    jestExpect(trace).toCallTool({ name: 'search' })
  })
})
