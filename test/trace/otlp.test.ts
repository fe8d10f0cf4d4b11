import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { loadTrace, loadTraceFile } from '../../src/trace/load'
import { parseTrace, parseTraces } from '../../src/trace/parse'
import { fromReadableSpans } from '../../src/trace/readers/readable-spans'
import type { Span } from '../../src/trace/span'
import { spanToJSON } from '../../src/trace/span-json'
import type { Trace } from '../../src/trace/trace'
import { buildOtlpFixtures } from '../fixtures/otlp/generate'
import { agentRun, createRecorder, record, at, withBase64Ids } from '../helpers/otel'

const OTLP_DIR = fileURLToPath(new URL('../fixtures/otlp', import.meta.url))

const ns = ([s, n]: readonly [number, number]) => BigInt(s) * 1_000_000_000n + BigInt(n)
const statusOf = (code: number) => (code === 2 ? 'error' : code === 1 ? 'ok' : 'unset')

/** Asserts a normalized trace carries exactly what the SDK recorded. */
function expectSameAsSdk(trace: Trace, sdkSpans: ReadableSpan[]): void {
  expect(trace.size).toBe(sdkSpans.length)
  for (const s of sdkSpans) {
    const span = trace.get(s.spanContext().spanId)
    expect(span, s.name).toBeDefined()
    expect(span!.traceId).toBe(s.spanContext().traceId)
    expect(span!.parentId).toBe(s.parentSpanContext?.spanId ?? null)
    expect(span!.name).toBe(s.name)
    expect(span!.attributes).toEqual(s.attributes)
    expect(span!.status).toBe(statusOf(s.status.code))
    expect(span!.statusMessage).toBe(s.status.message ?? '')
    expect(span!.startNs).toBe(ns(s.startTime))
    expect(span!.endNs).toBe(ns(s.endTime))
    expect(span!.events).toEqual(
      s.events.map((e) => ({ name: e.name, timeNs: ns(e.time), attributes: e.attributes ?? {} })),
    )
  }
}

function recordedRun(failure?: 429): ReadableSpan[] {
  const rec = createRecorder({ seed: 7 })
  agentRun(rec.tracer, { failure })
  // Every AnyValue kind the SDK can emit: string, int, double, bool and their arrays.
  record(rec.tracer, {
    name: 'typed attributes',
    start: at(9000, 1),
    end: at(9001, 2),
    attributes: {
      s: 'x',
      i: 42,
      big: 2 ** 40,
      d: 0.25,
      b: false,
      arr: ['a', 'b'],
      nums: [1, 2.5],
      flags: [true, false],
    },
  })
  return rec.spans()
}

describe('OTLP JSON round trip with the real OTel SDK', () => {
  it('SDK spans → OTLP JSON text → parseTrace keep tree, names, attributes, events, status and exact ns', () => {
    const spans = recordedRun(429)
    const rec = createRecorder()
    const text = JSON.stringify(JSON.parse(rec.otlpJson(spans)))
    const traces = parseTraces(text)
    expect(traces).toHaveLength(2)
    for (const trace of traces)
      expectSameAsSdk(
        trace,
        spans.filter((s) => s.spanContext().traceId === trace.traceId),
      )
  })

  it('fromReadableSpans(getFinishedSpans()) gives the same spans as the OTLP path', () => {
    const spans = recordedRun(429)
    const direct = fromReadableSpans(spans)
    const viaOtlp = parseTraces(createRecorder().otlpJson(spans)).flatMap((t) => [...t.spans])
    const byId = new Map(viaOtlp.map((s) => [s.id, s]))
    expect(direct).toHaveLength(viaOtlp.length)
    for (const s of direct) expect(spanToJSON(s)).toEqual(spanToJSON(byId.get(s.id)!))
  })

  it('maps GenAI-convention spans: kinds, models, tokens, tool call, messages, error', () => {
    const rec = createRecorder({ seed: 8 })
    agentRun(rec.tracer, { failure: 429 })
    const trace = parseTrace(rec.otlpJson())
    const [agent] = trace.roots
    expect(agent.kind).toBe('agent')
    expect(agent.model).toBe('gpt-4o-mini')
    const [chat1, tool, chat2] = trace.children(agent.id)
    expect([chat1.kind, tool.kind, chat2.kind]).toEqual(['llm', 'tool', 'llm'])
    expect(chat1.model).toBe('gpt-4o-mini-2024-07-18')
    expect(chat1.tokens).toEqual({ prompt: 412, completion: 23, total: 435 })
    expect(chat1.input).toEqual([
      { role: 'system', content: 'You are a support agent. Use tools to answer.' },
      { role: 'user', content: 'Where is my order A-1042?' },
    ])
    expect(chat1.output).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: '{"order_id":"A-1042"}' }],
      },
    ])
    expect(tool.toolName).toBe('lookup_order')
    expect(tool.toolArgs).toEqual({ order_id: 'A-1042' })
    expect(tool.status).toBe('error')
    expect(tool.statusMessage).toMatch(/^RateLimitError: Error code: 429/)
    expect(tool.attributes['http.response.status_code']).toBe(429)
    expect(tool.events[0]).toMatchObject({ name: 'exception', attributes: { 'exception.type': 'RateLimitError' } })
    expect((chat2.input as Array<{ role: string; content: string }>)[2]).toEqual({
      role: 'tool',
      content: expect.stringContaining('429'),
    })
    expect(chat2.output).toEqual([{ role: 'assistant', content: 'Sorry, I could not look up your order right now.' }])
  })

  it('reads protobuf-JSON variants: base64 ids, int64 strings, enum-name status, legacy instrumentationLibrarySpans', () => {
    const spans = recordedRun(429)
    const hex = createRecorder().otlpJson(spans)
    const variant = withBase64Ids(hex)
      .replace(/"intValue":(\d+)/g, '"intValue":"$1"')
      .replace(/"code":2/g, '"code":"STATUS_CODE_ERROR"')
      .replace(/"scopeSpans"/g, '"instrumentationLibrarySpans"')
    expect(variant).not.toContain(spans[0].spanContext().spanId)
    const traces = parseTraces(variant)
    for (const trace of traces)
      expectSameAsSdk(
        trace,
        spans.filter((s) => s.spanContext().traceId === trace.traceId),
      )
  })

  it('accepts numeric …UnixNano (precision is whatever JSON.parse kept)', () => {
    const text = createRecorder()
      .otlpJson(recordedRun())
      .replace(/"(start|end)TimeUnixNano":"(\d+)"/g, '"$1TimeUnixNano":$2')
    const trace = parseTraces(text)[0]
    expect(trace.roots[0].startNs).toBe(BigInt(Number('1742893200000000000')))
  })
})

describe('OTLP JSONL (collector file exporter)', () => {
  it('merges one trace split over two request lines', async () => {
    const traces = await loadTraceFile(join(OTLP_DIR, 'collector-export.jsonl'))
    expect(traces).toHaveLength(1)
    expect(traces[0].size).toBe(4)
    expect(traces[0].roots).toHaveLength(1)
    expect(traces[0].warnings.filter((w) => w.code === 'orphan')).toEqual([])
  })

  it('returns both traces of a two-line file, or the one asked for', () => {
    const a = createRecorder({ seed: 11 })
    agentRun(a.tracer)
    const b = createRecorder({ seed: 12 })
    agentRun(b.tracer, { failure: 429 })
    const text = `${a.otlpJson()}\n\n${b.otlpJson()}\n`
    const traces = parseTraces(text, 'two.jsonl')
    expect(traces.map((t) => t.size)).toEqual([4, 4])
    expectSameAsSdk(traces[0], a.spans())
    expectSameAsSdk(traces[1], b.spans())
    expect(() => parseTrace(text, 'two.jsonl')).toThrow(
      new RegExp(`two.jsonl: holds 2 traces \\(${traces[0].traceId}, ${traces[1].traceId}\\); pass \\{ traceId \\}`),
    )
    const picked = parseTrace(text, 'two.jsonl', { traceId: traces[1].traceId })
    expect(picked.traceId).toBe(b.spans()[0].spanContext().traceId)
    expect(picked.warnings).toContainEqual(expect.objectContaining({ code: 'multiple-traces' }))
  })
})

describe('committed OTLP fixtures', () => {
  const generated = buildOtlpFixtures()

  it.each(Object.keys(generated))('%s matches what generate.ts produces now', (name) => {
    const committed = parseTraces(readFileSync(join(OTLP_DIR, name), 'utf8'), name)
    const fresh = parseTraces(generated[name], name)
    const flat = (ts: Trace[]) => ts.map((t) => t.spans.map((s: Span) => spanToJSON(s)))
    expect(flat(committed)).toEqual(flat(fresh))
  })

  it('holds one failing tool span per HTTP failure in genai-http-errors.json', async () => {
    const traces = await loadTraceFile(join(OTLP_DIR, 'genai-http-errors.json'))
    const failing = traces.map((t) => t.spans.find((s) => s.status === 'error')!)
    expect(failing.map((s) => s.attributes['http.response.status_code'] ?? s.attributes['error.type'])).toEqual([
      401,
      403,
      404,
      429,
      500,
      503,
      'timeout',
    ])
    await expect(loadTrace(join(OTLP_DIR, 'genai-http-errors.json'))).rejects.toThrow(/holds 7 traces/)
  })

  it('reads OpenInference attributes on OTLP spans (Phoenix/Arize export)', async () => {
    const trace = await loadTrace(join(OTLP_DIR, 'openinference-run.json'))
    const [agent] = trace.roots
    const [llm, tool] = trace.children(agent.id)
    expect([agent.kind, llm.kind, tool.kind]).toEqual(['agent', 'llm', 'tool'])
    expect(agent.input).toEqual({ task: 'What is the capital of France?' })
    expect(llm.tokens).toEqual({ prompt: 120, completion: 12, total: 132 })
    expect(llm.output).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_42', name: 'web_search', arguments: '{"query": "capital of France"}' }],
      },
    ])
    expect(tool.toolName).toBe('web_search')
    expect(tool.toolArgs).toEqual({ query: 'capital of France' })
    expect(tool.output).toBe('Paris is the capital of France.')
  })
})
