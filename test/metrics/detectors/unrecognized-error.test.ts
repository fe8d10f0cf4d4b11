// Errors no rule recognizes still fail a diagnosis: a fallback finding (detector `unrecognized-error`), on an SDK
// trace and on the real TRAIL traces whose only trace of a tool's crash is such an error.
import type { Attributes } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { diagnose } from '../../../src/diagnosis/diagnose'
import { detect } from '../../../src/metrics/detectors/index'
import { errorBelow, isLeafKind, producerLlm, sourceLeaf } from '../../../src/metrics/detectors/localize'
import { hasErrorSignal } from '../../../src/metrics/detectors/signals'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'
import { agentSpan, at, createRecorder, record, type SpanSpec } from '../../helpers/otel'
import { allTrailTraces, HAVE_TRAIL, spanText, trailTrace } from './trail'

function otlp(children: SpanSpec[]): Trace {
  const rec = createRecorder({ seed: 11 })
  record(rec.tracer, agentSpan(children))
  return parseTrace(rec.otlpJson(), 'sdk-run.json')
}

const tool = (start: number, name: string, extra: Partial<SpanSpec> & { attributes?: Attributes } = {}): SpanSpec => ({
  name: `execute_tool ${name}`,
  start: at(start),
  end: at(start + 300),
  ...extra,
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, ...extra.attributes },
})

describe('an error no rule recognizes', () => {
  const crash = { type: 'UnboundLocalError', message: "cannot access local variable 'res'", time: at(350) }

  it('is a finding on the span that raised it, quoting the error and naming its type', () => {
    const trace = otlp([tool(100, 'inspect', { error: crash })])
    const span = trace.spansByKind('tool')[0]
    const findings = detect(trace)
    expect(findings).toEqual([
      expect.objectContaining({
        spanId: span.id,
        detector: 'unrecognized-error',
        category: 'Environment Setup Errors',
        reason: 'the call failed with an error no rule recognizes (UnboundLocalError)',
      }),
    ])
    expect(spanText(span)).toContain(findings[0].evidence)
    expect(findings[0].evidence).toContain("cannot access local variable 'res'")
  })

  it('fails the diagnosis without a judge (it was clean before: decision 0029)', async () => {
    const trace = otlp([tool(100, 'inspect', { error: crash })])
    const result = await diagnose(trace, { agent: false })
    expect(result.verdict.pass).toBe(false)
  })

  it('is no finding when a rule recognizes the error, or when it is switched off', () => {
    const known = otlp([
      tool(100, 'fetch', { error: { type: 'TimeoutError', message: 'read timed out', time: at(390) } }),
    ])
    expect(detect(known).map((f) => f.detector)).toEqual(['error-status'])
    const trace = otlp([tool(100, 'inspect', { error: crash })])
    expect(detect(trace, { detectors: ['error-status'] })).toEqual([])
  })

  it('a span with no error is no finding (status ok, no exception)', () => {
    expect(detect(otlp([tool(100, 'inspect', { ok: true })]))).toEqual([])
  })
})

describe('a deep chain of failing calls (one walk up the tree, not one per call)', () => {
  it('names every call, high severity where its run failed and medium under a run that did not', () => {
    const T = '0af7651916cd43dd8448eb211c80319c'
    const n = 3000
    const spans: string[] = []
    for (let i = 0; i < n; i++) {
      const id = (i + 1).toString(16).padStart(16, '0')
      const parent = i === 0 ? '' : i.toString(16).padStart(16, '0')
      // The root is a failed agent run; span 1500 a nested run that succeeded; the rest alternate LLM and TOOL.
      const kind = i === 0 || i === 1500 ? 'AGENT' : i % 2 ? 'LLM' : 'TOOL'
      const status = i === 1500 ? '{"code":1}' : '{"code":2,"message":"KeyError: x"}'
      spans.push(
        `{"traceId":"${T}","spanId":"${id}","parentSpanId":"${parent}","name":"s${i}","kind":1,"startTimeUnixNano":"${1000 + i}","endTimeUnixNano":"${100000 - i}","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"${kind}"}}],"events":[],"status":${status}}`,
      )
    }
    const trace = parseTrace(
      `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[${spans.join(',')}]}]}]}`,
      'deep.json',
    )
    const found = detect(trace).filter((f) => f.detector === 'unrecognized-error')
    expect(found).toHaveLength(n - 2)
    const depth = (f: { spanId: string }) => Number.parseInt(f.spanId, 16) - 1
    expect(found.filter((f) => f.severity === 'high').map(depth)).toEqual(Array.from({ length: 1499 }, (_, i) => i + 1))
    expect(found.filter((f) => f.severity === 'medium')).toHaveLength(n - 1501)
  })
})

describe.skipIf(!HAVE_TRAIL)('unrecognized errors in the real TRAIL traces', () => {
  it('the TextInspectorTool crash of b5576ffc (labelled Environment Setup Errors by TRAIL) is found', () => {
    const trace = trailTrace('GAIA', 'b5576ffc')
    const found = detect(trace).filter((f) => f.detector === 'unrecognized-error')
    expect(found.length).toBeGreaterThan(0)
    for (const f of found) {
      expect(f.category).toBe('Environment Setup Errors')
      expect(trace.get(f.spanId)!.kind).toBe('tool')
      expect(spanText(trace.get(f.evidenceSpanId ?? f.spanId)!)).toContain(f.evidence)
    }
  })

  it('code the model wrote that failed is blamed on the model call, quoting the error after the echoed code', () => {
    const trace = trailTrace('SWE_Bench', '272cdc64')
    const found = detect(trace).filter((f) => f.detector === 'unrecognized-error')
    expect(found).toEqual([
      expect.objectContaining({
        category: 'Formatting Errors',
        evidence: 'InterpreterError: The variable `os` is not defined.',
      }),
    ])
    expect(trace.get(found[0].spanId)!.kind).toBe('llm')
  })

  it('every error span that is a root cause has a finding where it is blamed (16 had none before)', () => {
    const unexplained: string[] = []
    for (const trace of allTrailTraces()) {
      const findings = detect(trace)
      const below = errorBelow(trace, hasErrorSignal)
      for (const span of trace.spans) {
        if (!hasErrorSignal(span) || (!isLeafKind(span) && below.has(span.id))) continue
        const blamed = new Set([span.id, sourceLeaf(trace, span).id, producerLlm(trace, span)?.id])
        if (!findings.some((f) => blamed.has(f.spanId) || f.evidenceSpanId === span.id))
          unexplained.push(`${trace.source}: ${span.id}`)
      }
    }
    expect(unexplained).toEqual([])
  })
})
