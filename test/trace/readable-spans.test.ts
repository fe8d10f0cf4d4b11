import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { loadTrace } from '../../src/trace/load'
import { fromReadableSpans, type ReadableSpanLike } from '../../src/trace/readers/readable-spans'
import { agentRun, createRecorder } from '../helpers/otel'

describe('fromReadableSpans (InMemorySpanExporter)', () => {
  it('normalizes finished SDK spans with exact HrTime ns and GenAI mapping', () => {
    const rec = createRecorder({ seed: 31 })
    agentRun(rec.tracer, { failure: 'timeout' })
    const finished: ReadableSpan[] = rec.exporter.getFinishedSpans()
    const spans = fromReadableSpans(finished)
    expect(spans).toHaveLength(4)
    const tool = spans.find((s) => s.kind === 'tool')!
    const sdkTool = finished.find((s) => s.spanContext().spanId === tool.id)!
    expect(tool.startNs).toBe(BigInt(sdkTool.startTime[0]) * 1_000_000_000n + BigInt(sdkTool.startTime[1]))
    // at(t + 1520, 1) → at(t + 2520, 999): 1 s plus 998 ns.
    expect(tool.durationNs).toBe(1_000_000_998)
    expect(tool.status).toBe('error')
    expect(tool.events[0].attributes['exception.type']).toBe('TimeoutError')
    expect(tool.parentId).toBe(sdkTool.parentSpanContext!.spanId)
  })

  it('accepts the sdk 1.x shape (parentSpanId instead of parentSpanContext)', () => {
    const rec = createRecorder({ seed: 32 })
    agentRun(rec.tracer)
    const v1: ReadableSpanLike[] = rec.spans().map((s) => ({
      name: s.name,
      spanContext: () => s.spanContext(),
      parentSpanId: s.parentSpanContext?.spanId,
      startTime: s.startTime,
      endTime: s.endTime,
      status: s.status,
      attributes: s.attributes,
      events: s.events,
    }))
    const spans = fromReadableSpans(v1)
    expect(spans.map((s) => s.parentId)).toEqual(rec.spans().map((s) => s.parentSpanContext?.spanId ?? null))
  })

  it('loadTrace takes the exporter output directly and builds the tree', async () => {
    const rec = createRecorder({ seed: 33 })
    agentRun(rec.tracer)
    const trace = await loadTrace(rec.exporter.getFinishedSpans())
    expect(trace.roots.map((s) => s.name)).toEqual(['invoke_agent support'])
    expect(trace.children(trace.roots[0].id).map((s) => s.kind)).toEqual(['llm', 'tool', 'llm'])
    expect(trace.warnings).toEqual([])
  })

  it('does not share the SDK attribute objects (mutating the span leaves the SDK span alone)', () => {
    const rec = createRecorder({ seed: 34 })
    agentRun(rec.tracer)
    const [first] = fromReadableSpans(rec.spans())
    first.attributes.extra = 1
    expect(rec.spans()[0].attributes).not.toHaveProperty('extra')
  })
})
