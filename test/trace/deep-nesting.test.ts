// Hostile nesting in every form a trace can carry it: nothing overflows the stack; structure too deep is a
// TraceFormatError with its JSON path, deep JSON inside a string stays text.
import { describe, expect, it } from 'vitest'
import { spanPrompt } from '../../src/diagnosis/span-context'
import { SpanJudgementSchema } from '../../src/diagnosis/span-judgement'
import { compactSteps } from '../../src/diagnosis/steps'
import { SYSTEM } from '../../src/metrics/prompts/span-diagnosis'
import { detect } from '../../src/metrics/detectors/index'
import { canonical } from '../../src/metrics/detectors/repeated-calls'
import { jsonTextTooDeep, MAX_NESTING_DEPTH, parseBoundedJson, valueTooDeep } from '../../src/trace/depth'
import { TraceFormatError } from '../../src/trace/errors'
import { parseTraces, tracesFromValue } from '../../src/trace/parse'
import { newSpan } from '../../src/trace/readers/common'
import { ReadContext } from '../../src/trace/readers/context'
import { readPayload } from '../../src/trace/readers/payload'
import { fromReadableSpans } from '../../src/trace/readers/readable-spans'
import { spanToJSON } from '../../src/trace/span-json'

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const SPAN_PATH = '$.resourceSpans[0].scopeSpans[0].spans[0]'

/** An AnyValue nested `depth` levels deep, built as text (JSON.stringify itself overflows on such values). */
function nestedAnyValue(kind: 'array' | 'kvlist', depth: number): string {
  return kind === 'array'
    ? '{"arrayValue":{"values":['.repeat(depth) + '{"stringValue":"leaf"}' + ']}}'.repeat(depth)
    : '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth) + '{"stringValue":"leaf"}' + '}]}}'.repeat(depth)
}

const kv = (key: string, value: string) =>
  `{"key":${JSON.stringify(key)},"value":{"stringValue":${JSON.stringify(value)}}}`

function span(id: string, attributes: string[], events = '[]'): string {
  return `{"traceId":"${TRACE_ID}","spanId":"${id}","name":"search","kind":1,"startTimeUnixNano":"1000","endTimeUnixNano":"2000","attributes":[${attributes.join(',')}],"events":${events},"status":{}}`
}

function otlp(spans: string[]): string {
  return `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[${spans.join(',')}]}]}]}`
}

function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return err
  }
  throw new Error('expected a throw')
}

describe('OTLP AnyValue nested ≥ 2,000 deep', () => {
  it.each([
    ['arrayValue', 'array'],
    ['kvlistValue', 'kvlist'],
  ] as const)(
    '%s 2,000 and 10,000 deep: a TraceFormatError at the attribute, from the text reader and the object reader',
    (_, kind) => {
      for (const depth of [2_000, 10_000]) {
        const text = otlp([span('b7ad6b7169203331', [`{"key":"deep","value":${nestedAnyValue(kind, depth)}}`])])
        for (const read of [
          () => parseTraces(text, 'deep.json'),
          () => tracesFromValue(JSON.parse(text), 'deep.json'),
        ]) {
          const err = caught(read)
          expect(err).toBeInstanceOf(TraceFormatError)
          expect((err as TraceFormatError).jsonPath).toBe(`${SPAN_PATH}.attributes[0].value`)
          expect((err as TraceFormatError).file).toBe('deep.json')
          expect((err as TraceFormatError).message).toMatch(
            /more than 256 levels deep.*flatten the attribute, or record it as a JSON string/,
          )
        }
      }
    },
  )

  it('names the entry of a deep value among flat ones, in event attributes too', () => {
    const deep = `{"key":"deep","value":${nestedAnyValue('kvlist', 3_000)}}`
    const inSpan = otlp([span('b7ad6b7169203331', [kv('a', 'x'), kv('b', 'y'), deep])])
    expect((caught(() => parseTraces(inSpan)) as TraceFormatError).jsonPath).toBe(`${SPAN_PATH}.attributes[2].value`)
    const inEvent = otlp([
      span(
        'b7ad6b7169203331',
        [],
        `[{"name":"exception","timeUnixNano":"1500","attributes":[${kv('a', 'x')},${deep}]}]`,
      ),
    ])
    expect((caught(() => parseTraces(inEvent)) as TraceFormatError).jsonPath).toBe(
      `${SPAN_PATH}.events[0].attributes[1].value`,
    )
  })

  it('decodes values exactly at the bound and refuses one level more', () => {
    const at = parseTraces(
      otlp([span('b7ad6b7169203331', [`{"key":"deep","value":${nestedAnyValue('array', MAX_NESTING_DEPTH - 1)}}`])]),
    )
    let v = at[0].spans[0].attributes.deep
    let depth = 0
    while (Array.isArray(v)) {
      v = v[0]
      depth++
    }
    expect([depth, v]).toEqual([MAX_NESTING_DEPTH - 1, 'leaf'])
    expect(() =>
      parseTraces(
        otlp([span('b7ad6b7169203331', [`{"key":"deep","value":${nestedAnyValue('array', MAX_NESTING_DEPTH)}}`])]),
      ),
    ).toThrow(TraceFormatError)
  })
})

describe('deep JSON inside strings (payloads, tool inputs)', () => {
  const deepObject = '{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000)
  const brackets = '['.repeat(3_000) + ']'.repeat(3_000)

  it('a 3,000-deep JSON payload stays the raw string, with an unparsed-payload warning', () => {
    const ctx = new ReadContext()
    const s0 = newSpan('s1', null, 't1', 'llm', 0n, 1n, 'ok', '', {}, [])
    expect(readPayload(deepObject, s0, ctx)).toBe(deepObject)
    expect(ctx.warningsFor('t1').map((w) => w.message)).toEqual([
      'span s1 (llm): a JSON payload nests more than 256 levels deep; kept as the raw string (reported once per trace)',
    ])
    // The same through a whole OTLP file.
    const [trace] = parseTraces(
      otlp([
        span('b7ad6b7169203331', [
          kv('openinference.span.kind', 'LLM'),
          kv('input.value', deepObject),
          kv('input.mime_type', 'application/json'),
          kv('output.value', brackets),
        ]),
      ]),
    )
    const s = trace.spans[0]
    expect(s.input).toBe(deepObject)
    expect(s.output).toBe(brackets)
  })

  it('three identical tool calls with a 3,000-deep bracket string as input: detectors, step list, span prompt and JSON all work', () => {
    const call = (id: string) =>
      span(id, [
        kv('openinference.span.kind', 'TOOL'),
        kv('tool.name', 'search'),
        kv('input.value', brackets),
        kv('tool.parameters', brackets),
        kv('output.value', 'same page'),
      ])
    const [trace] = parseTraces(otlp([call('b7ad6b7169203331'), call('c7ad6b7169203332'), call('d7ad6b7169203333')]))
    const tool = trace.spans[1]
    expect(tool.input).toBe(brackets)
    // The repeated-call detector compares canonical arguments: the deep text is compared as text.
    const findings = detect(trace)
    expect(findings.some((f) => f.category === 'Resource Abuse')).toBe(true)
    const prompt = spanPrompt(trace, tool, {
      system: SYSTEM,
      schema: SpanJudgementSchema,
      budgetTokens: 16_000,
      steps: compactSteps(trace),
      contextSteps: 4,
    })
    expect(JSON.stringify(prompt)).toContain('[[[[')
    expect(() => JSON.stringify(trace.spans.map(spanToJSON))).not.toThrow()
  })

  it('GenAI message and argument attributes with deep JSON are kept as text', () => {
    const deepArr = '['.repeat(3_000) + '"x"' + ']'.repeat(3_000)
    const [trace] = parseTraces(
      otlp([
        span('b7ad6b7169203331', [
          kv('gen_ai.operation.name', 'execute_tool'),
          kv('gen_ai.tool.name', 'search'),
          kv('gen_ai.tool.call.arguments', deepArr),
          kv('gen_ai.tool.call.result', deepObject),
          kv('gen_ai.input.messages', deepArr),
        ]),
      ]),
    )
    expect(() => detect(trace)).not.toThrow()
    expect(() => JSON.stringify(trace.spans.map(spanToJSON))).not.toThrow()
  })

  it('canonical() of an in-memory value 20,000 deep does not overflow, and still tells shallow values apart', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 20_000; i++) deep = { a: [deep] }
    expect(typeof canonical(deep)).toBe('string')
    expect(canonical({ q: ' Weather ' })).toBe(canonical('{"q":"weather"}'))
    expect(canonical({ q: 'a' })).not.toBe(canonical({ q: 'b' }))
  })
})

describe('plain-object attributes (OpenInference files, SDK spans)', () => {
  it('an OpenInference span_attributes value 5,000 deep is a TraceFormatError naming the attribute', () => {
    const deep = '{"x":'.repeat(5_000) + '1' + '}'.repeat(5_000)
    const doc = JSON.parse(
      `{"trace_id":"${TRACE_ID}","spans":[{"span_id":"b7ad6b7169203331","span_name":"s","timestamp":"2025-01-01T00:00:00Z","span_attributes":{"ok":"1","deep":${deep}},"child_spans":[]}]}`,
    )
    const err = caught(() => tracesFromValue(doc, 'oi.json')) as TraceFormatError
    expect(err).toBeInstanceOf(TraceFormatError)
    expect(err.jsonPath).toBe('$.spans[0].span_attributes["deep"]')
    expect(err.file).toBe('oi.json')
  })

  it('an SDK span whose attribute nests 5,000 deep is a TraceFormatError', () => {
    let deep: unknown = 1
    for (let i = 0; i < 5_000; i++) deep = [deep]
    const sdkSpan = {
      name: 'tool',
      spanContext: () => ({ traceId: TRACE_ID, spanId: 'b7ad6b7169203331' }),
      startTime: [1, 0],
      endTime: [2, 0],
      status: { code: 0 },
      attributes: { deep },
      events: [],
    }
    const err = caught(() => fromReadableSpans([sdkSpan as never])) as TraceFormatError
    expect(err).toBeInstanceOf(TraceFormatError)
    expect(err.jsonPath).toBe('$[0].attributes["deep"]')
  })
})

describe('the depth helpers', () => {
  it('count brackets outside strings only, without recursion', () => {
    expect(jsonTextTooDeep('[[1]]', 2)).toBe(false)
    expect(jsonTextTooDeep('[[[1]]]', 2)).toBe(true)
    expect(jsonTextTooDeep(`["${'['.repeat(1_000)}", "\\"[[[["]`, 2)).toBe(false)
    expect(jsonTextTooDeep('['.repeat(1_000_000))).toBe(true)
    expect(parseBoundedJson('['.repeat(300) + ']'.repeat(300))).toBeUndefined()
    expect(parseBoundedJson('{"a":[1]}')).toEqual({ a: [1] })
    expect(parseBoundedJson('{"a":')).toBeUndefined()
    let v: unknown = 1
    for (let i = 0; i < 100_000; i++) v = [v]
    expect(valueTooDeep(v)).toBe(true)
    expect(valueTooDeep([[1]], 2)).toBe(false)
  })
})
