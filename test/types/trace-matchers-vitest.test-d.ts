import type {} from '../../matchers/vitest'
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { describe, expect, expectTypeOf, test } from 'vitest'
import type { Judge } from '../../src/judges/types'
import type { Trace } from '../../src/trace/trace'

declare const judge: Judge
declare const trace: Trace
declare const exporter: InMemorySpanExporter

describe('agent-verdict/vitest trace matcher types', () => {
  test('judge-based trace matchers are async: Promise<void>, plain and under .not', () => {
    expectTypeOf(expect(trace).toHaveNoFailingSpans()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect('traces/run.json').not.toHaveNoFailingSpans({ judge: false })).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(trace).toUseToolsEfficiently()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(exporter).toCompleteTask('Refund order A-1042.')).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(trace).toCompleteTask()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(trace).not.toFollowPlan({ judge })).toEqualTypeOf<Promise<void>>()
  })

  test('deterministic trace matchers are synchronous: void', () => {
    expectTypeOf(expect(trace).toCallTool('search')).toEqualTypeOf<void>()
    expectTypeOf(expect(exporter.getFinishedSpans()).not.toCallTool(/^delete_/, { times: 0 })).toEqualTypeOf<void>()
    expectTypeOf(expect(trace).toStayWithinBudget({ tokens: 200_000, llmCalls: 40 })).toEqualTypeOf<void>()
  })

  test('options', () => {
    void expect(trace).toHaveNoFailingSpans({
      judge,
      select: { kind: ['llm', 'tool'], name: /Search/ },
      policy: { type: 'threshold', threshold: 0.3 },
      threshold: 0.75,
      budgetTokens: 8_000,
      judgeDetectorSpans: true,
      metrics: ['span.reasoning_integrity', 'span.error_category', 'detectors'],
      allowUnjudgeable: true,
    })
    void expect(trace).toHaveNoFailingSpans({
      policy: { type: 'category', categories: ['Rate Limiting', 'Service Errors'] },
    })
    void expect(trace).toHaveNoFailingSpans({ policy: 'existential' })
    void expect(trace).toUseToolsEfficiently({ judge: false, threshold: 0.8, budgetTokens: 8_000 })
    void expect(trace).toCompleteTask(undefined, { threshold: 1 })
    expect(trace).toCallTool('lookup_order', { args: { order_id: expect.stringMatching(/^A-/) }, times: 1 })
    expect(trace).toStayWithinBudget({
      costUsd: 0.5,
      latencyMs: 60_000,
      prices: { 'o3-mini': { input: 1.1, output: 4.4 } },
    })
  })

  test('wrong arguments are type errors', () => {
    // @ts-expect-error policy names are existential | threshold | category
    void expect(trace).toHaveNoFailingSpans({ policy: 'majority' })
    // @ts-expect-error categories are TRAIL labels
    void expect(trace).toHaveNoFailingSpans({ policy: { type: 'category', categories: ['Oops'] } })
    // @ts-expect-error metrics are the span metrics or 'detectors'
    void expect(trace).toHaveNoFailingSpans({ metrics: ['agent.completeness'] })
    // @ts-expect-error judge is a Judge or false
    void expect(trace).toFollowPlan({ judge: true })
    // @ts-expect-error the goal is a string
    void expect(trace).toCompleteTask(42)
    // @ts-expect-error times is a number
    expect(trace).toCallTool('search', { times: '2' })
    // @ts-expect-error a tool name is a string or a RegExp
    expect(trace).toCallTool(7)
    // @ts-expect-error budgets are numbers
    expect(trace).toStayWithinBudget({ tokens: '200k' })
    // @ts-expect-error a budget is required
    expect(trace).toStayWithinBudget()
  })
})
