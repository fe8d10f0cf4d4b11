import { describe, expect, it } from 'vitest'
import { parseTrace } from '../../src/trace/parse'
import { Trace } from '../../src/trace/trace'
import { agentRun, createRecorder } from '../helpers/otel'

/** An OTLP request of n copies of one real SDK span, re-parented into a chain or a flat fan-out. */
function bigRequest(n: number, shape: 'chain' | 'fan'): string {
  const rec = createRecorder({ seed: 61 })
  agentRun(rec.tracer)
  const doc = JSON.parse(rec.otlpJson())
  const template = doc.resourceSpans[0].scopeSpans[0].spans[0]
  const id = (i: number) => i.toString(16).padStart(16, '0')
  doc.resourceSpans[0].scopeSpans[0].spans = Array.from({ length: n }, (_, i) => ({
    ...template,
    spanId: id(i + 1),
    parentSpanId: i === 0 ? '' : shape === 'chain' ? id(i) : id(1),
  }))
  return JSON.stringify(doc)
}

describe('large traces', () => {
  it('reads a 30k-span chain (depth 30k) without recursion limits', () => {
    const trace = parseTrace(bigRequest(30_000, 'chain'))
    expect(trace.size).toBe(30_000)
    expect(trace.roots).toHaveLength(1)
    expect(trace.depth((30_000).toString(16).padStart(16, '0'))).toBe(29_999)
    expect(trace.spans.every((s) => s.kind === 'llm')).toBe(true)
  })

  it('reads a 30k-span fan-out with every child under one root', () => {
    const trace = parseTrace(bigRequest(30_000, 'fan'))
    expect(trace.children(trace.roots[0].id)).toHaveLength(29_999)
  })

  it('Trace reports a cycle instead of silently dropping spans', () => {
    const rec = createRecorder({ seed: 62 })
    agentRun(rec.tracer)
    const spans = parseTrace(rec.otlpJson()).spans.map((s) => ({ ...s }))
    spans[0].parentId = spans[1].id
    expect(() => new Trace(spans)).toThrow(/parent ids form a cycle/)
  })
})
