import type {} from '../../matchers/vitest'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { startTraceReceiver, type TraceReceiver, type TraceWhere } from '../../src/index'
import type { Trace } from '../../src/trace/trace'

declare const receiver: TraceReceiver

describe('startTraceReceiver types', () => {
  test('a received trace is a Trace the trace matchers take', async () => {
    expectTypeOf(startTraceReceiver).returns.toEqualTypeOf<Promise<TraceReceiver>>()
    expectTypeOf(receiver.trace({ where: { rootName: /^invoke_agent/ }, timeout: 30_000 })).toEqualTypeOf<
      Promise<Trace>
    >()
    expectTypeOf(expect(await receiver.trace()).toHaveNoFailingSpans()).toEqualTypeOf<Promise<void>>()
    expectTypeOf(receiver.env).toEqualTypeOf<Record<string, string>>()
  })

  test('where: fields or a predicate over the trace', () => {
    expectTypeOf<{ traceId: string }>().toExtend<TraceWhere>()
    expectTypeOf<(trace: Trace) => boolean>().toExtend<TraceWhere>()
    // @ts-expect-error a root name is a string or RegExp
    void receiver.trace({ where: { rootName: 42 } })
    // @ts-expect-error the timeout is milliseconds
    void receiver.trace({ timeout: '30s' })
  })
})
