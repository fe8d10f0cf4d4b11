import type {} from '../../matchers/vitest'
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { describe, expect, expectTypeOf, test } from 'vitest'
import {
  agentVerdictSpanProcessor,
  captureTrace,
  type CapturedTrace,
  type SettledCapture,
  type Trace,
} from '../../src/index'

describe('captureTrace types', () => {
  test("resolves to fn's own result type and a Trace, for sync and async fn", () => {
    expectTypeOf(captureTrace(() => 42)).toEqualTypeOf<Promise<CapturedTrace<number>>>()
    expectTypeOf(captureTrace(async () => ({ answer: 'shipped' }))).toEqualTypeOf<
      Promise<CapturedTrace<{ answer: string }>>
    >()
    expectTypeOf<CapturedTrace<string>['trace']>().toEqualTypeOf<Trace>()
    captureTrace(() => 1, { settleMs: 500 })
    // @ts-expect-error settleMs is a number of milliseconds
    captureTrace(() => 1, { settleMs: '500' })
    // @ts-expect-error fn takes no argument
    captureTrace((x: string) => x)
  })

  test('settled is a union to narrow on status; only the rejected side has error', async () => {
    const run = await captureTrace.settled(async () => 'answer')
    expectTypeOf(run).toEqualTypeOf<SettledCapture<string>>()
    if (run.status === 'fulfilled') expectTypeOf(run.result).toEqualTypeOf<string>()
    else expectTypeOf(run.error).toEqualTypeOf<unknown>()
    expectTypeOf(run.trace).toEqualTypeOf<Trace>()
  })

  test("the span processor goes into an SDK provider's processor list", () => {
    expectTypeOf(agentVerdictSpanProcessor()).toExtend<SpanProcessor>()
    new NodeTracerProvider({ spanProcessors: [agentVerdictSpanProcessor()] })
  })

  test('the trace matchers take the capture and its trace', async () => {
    const run = await captureTrace(() => 'x')
    expectTypeOf(expect(run).toHaveNoFailingSpans()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(expect(run.trace).toStayWithinBudget({ llmCalls: 3 })).toEqualTypeOf<void>()
  })
})
