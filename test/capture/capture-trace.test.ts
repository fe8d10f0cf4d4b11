// captureTrace's edges: a failing fn, spans still open, no span at all, spans outside the capture, start order.
import '../../matchers/vitest'
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import { describe, expect, test } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { supportAgent } from './agent'

const tracer = trace.getTracer('capture-edges')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('captureTrace', () => {
  test('fn throws: the promise rejects with that very error; captureTrace.settled keeps the failed run', async () => {
    const error = await captureTrace(() => supportAgent(1, { failTool: true })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('order A-1 not found')

    const run = await captureTrace.settled(() => supportAgent(2, { failTool: true }))
    expect(run.status).toBe('rejected')
    if (run.status !== 'rejected') return
    expect((run.error as Error).message).toBe('order A-2 not found')
    expect(run.trace.spans.map((s) => [s.name, s.status])).toEqual([
      ['invoke_agent support', 'error'],
      ['chat gpt-4o-mini', 'unset'],
      ['execute_tool lookup_order', 'error'],
    ])
    expect(() => expect(run).toCallTool('lookup_order', { times: 2 })).toThrow()
    await expect(expect(run).toHaveNoFailingSpans({ judge: false })).rejects.toThrow(/execute_tool lookup_order/)

    const ok = await captureTrace.settled(() => 42)
    expect(ok).toMatchObject({ status: 'fulfilled', result: 42 })
  })

  test('a span still open when fn returns: awaited up to settleMs, else kept as unfinished with a warning', async () => {
    const late = await captureTrace(() => {
      const span = tracer.startSpan('stream chat')
      setTimeout(() => span.end(), 30)
      return 'returned before the stream ended'
    })
    expect(late.trace.spans.map((s) => s.name)).toEqual(['stream chat'])
    expect(late.trace.spans[0].durationNs).toBeGreaterThanOrEqual(25_000_000n)
    expect(late.trace.warnings).toEqual([])

    const open = await captureTrace(
      () => {
        tracer.startSpan('never ended')
        return sleep(5)
      },
      { settleMs: 20 },
    )
    expect(open.trace.spans.map((s) => s.name)).toEqual(['never ended'])
    expect(open.trace.spans[0].endNs).toBeGreaterThanOrEqual(open.trace.spans[0].startNs)
    expect(open.trace.warnings).toEqual([
      expect.objectContaining({
        code: 'unfinished-span',
        message: expect.stringMatching(/^span never ended .*still open/),
      }),
    ])
  })

  test('a promise instead of a function: a TypeError saying the run started outside the capture', async () => {
    const started = Promise.resolve('answer')
    await expect(captureTrace(started as unknown as () => string)).rejects.toThrow(
      /^captureTrace\(fn\): fn must be a function that starts the run, e\.g\. captureTrace\(\(\) => agent\.run\(question\)\) — got a promise: the run had already started outside the capture$/,
    )
    await expect(captureTrace.settled('agent' as unknown as () => string)).rejects.toThrow(/— got string$/)
  })

  test('no span started inside fn: an empty trace whose warning says why, and the matchers fail with it', async () => {
    const run = await captureTrace(() => 'no tracing here')
    expect(run.result).toBe('no tracing here')
    expect(run.trace.size).toBe(0)
    expect(run.trace.warnings[0].message).toMatch(/^captureTrace recorded no span/)
    expect(() => expect(run).toStayWithinBudget({ llmCalls: 1 })).toThrow(/captureTrace recorded no span/)
    expect(() => expect(run.trace).not.toCallTool('delete_order')).toThrow(/captureTrace recorded no span/)
  })

  test('spans outside the capture stay out: before it, beside it, and roots fn starts on purpose', async () => {
    const outside = tracer.startSpan('before the capture')
    let beside: Promise<void> = Promise.resolve()
    const run = await captureTrace(async () => {
      // Work the test starts from inside fn but in a context of its own is not the agent's.
      beside = context.with(ROOT_CONTEXT, async () => {
        const span = tracer.startSpan('unrelated work')
        await sleep(2)
        span.end()
      })
      await tracer.startActiveSpan('agent', async (span) => {
        tracer.startSpan('own root', { root: true }).end()
        await sleep(3)
        span.end()
      })
    })
    outside.end()
    await beside
    expect(run.trace.spans.map((s) => s.name)).toEqual(['agent'])
  })

  test('spans are handed over in the order they started, and a capture inside a capture is its own', async () => {
    const run = await captureTrace(async () => {
      const a = tracer.startSpan('a')
      const b = tracer.startSpan('b')
      const c = tracer.startSpan('c')
      const inner = await captureTrace(() => tracer.startSpan('inner').end())
      c.end()
      await sleep(1)
      b.end()
      a.end()
      return inner
    })
    expect(run.trace.spans.map((s) => s.name)).toEqual(['a', 'b', 'c'])
    expect(run.result.trace.spans.map((s) => s.name)).toEqual(['inner'])
    expect(run.result.trace.traceId).not.toBe(run.trace.traceId)
  })
})

describe('diagnose', () => {
  test('takes the capture as the matchers do', async () => {
    const { diagnose } = await import('../../src/diagnosis/diagnose')
    const run = await captureTrace.settled(() => supportAgent(3, { failTool: true }))
    const diagnosis = await diagnose(run) // no judge configured: the deterministic detectors
    expect(diagnosis.failingLeaves.map((l) => l.spanId)).toEqual([
      run.trace.spans.find((s) => s.name === 'execute_tool lookup_order')?.id,
    ])
  })
})
