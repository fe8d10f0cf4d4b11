import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { syntheticOtlpTrace } from '../../bench/synthetic-otlp'
import { TraceFormatError } from '../../src/trace/errors'
import { parseTraces, tracesFromValue } from '../../src/trace/parse'
import { ReadContext } from '../../src/trace/readers/context'
import { readOtlp } from '../../src/trace/readers/otlp'
import { readOtlpText } from '../../src/trace/readers/otlp-text'
import { spanToJSON } from '../../src/trace/span-json'
import type { Trace } from '../../src/trace/trace'
import { createRecorder, agentRun } from '../helpers/otel'

const OTLP_DIR = fileURLToPath(new URL('../fixtures/otlp', import.meta.url))

const view = (traces: Trace[]) =>
  traces.map((t) => ({ id: t.traceId, spans: t.spans.map(spanToJSON), warnings: t.warnings }))

/** Streamed and whole-document reads of a text agree span for span, warning for warning. */
function expectSameAsWholeDocument(text: string): void {
  const ctx = new ReadContext()
  expect(readOtlpText(text, ctx), 'the text should take the streaming path').toBeDefined()
  expect(view(parseTraces(text))).toEqual(view(tracesFromValue(JSON.parse(text))))
}

const kv = (key: string, stringValue: string) => ({ key, value: { stringValue } })
const span = (id: number, extra: Record<string, unknown> = {}) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: id.toString(16).padStart(16, '0'),
  ...(id > 1 ? { parentSpanId: '0000000000000001' } : {}),
  name: `span ${id}`,
  startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(id)),
  endTimeUnixNano: String(1_700_000_000_000_000_100n + BigInt(id)),
  ...extra,
})
const request = (spans: unknown[], rsKey = 'resourceSpans', ssKey = 'scopeSpans') => ({
  [rsKey]: [{ resource: { attributes: [kv('service.name', 'svc')] }, [ssKey]: [{ scope: { name: 's' }, spans }] }],
})

describe('readOtlpText (span-by-span OTLP reading)', () => {
  it('reads every OTLP fixture exactly as the whole-document reader does', () => {
    const files = readdirSync(OTLP_DIR).filter((f) => f.endsWith('.json'))
    expect(files.length).toBeGreaterThanOrEqual(5)
    for (const f of files) {
      expectSameAsWholeDocument(readFileSync(join(OTLP_DIR, f), 'utf8'))
    }
  })

  it('reads real OTel SDK exports (compact and pretty-printed) and a synthetic run with failures', () => {
    const rec = createRecorder({ seed: 3 })
    agentRun(rec.tracer, { failure: 429 })
    const compact = rec.otlpJson(rec.spans())
    expectSameAsWholeDocument(compact)
    expectSameAsWholeDocument(JSON.stringify(JSON.parse(compact), null, 2))
    expectSameAsWholeDocument(JSON.stringify(JSON.parse(compact), null, '\t').replace(/\n/g, '\r\n'))
    expectSameAsWholeDocument(syntheticOtlpTrace(400))
  })

  it('keeps strings with quotes, backslashes, brackets and unicode escapes intact', () => {
    const tricky = [
      'say "hi" \\ }',
      'ends with a backslash \\',
      '\\"',
      '[{"nested": "json"}]',
      'tab\tand\nnewline',
      'é ✓ \u2028 😀',
      '{',
      '',
    ]
    const text = JSON.stringify(
      request([span(1, { attributes: tricky.map((v, i) => kv(`k${i}`, v)) }), span(2, { name: 'b"}]' })]),
    )
    expectSameAsWholeDocument(text)
    const [trace] = parseTraces(text)
    expect(Object.values(trace.spans[0].attributes)).toEqual(tricky)
    expect(trace.spans[1].name).toBe('b"}]')
  })

  it('takes the snake_case and pre-1.0 envelope keys, several resources and scopes, and empty lists', () => {
    expectSameAsWholeDocument(
      JSON.stringify(request([span(1), span(2)], 'resource_spans', 'instrumentationLibrarySpans')),
    )
    const multi = {
      resourceSpans: [
        { resource: {}, scopeSpans: [{ scope: {}, spans: [span(1)] }, { spans: [] }, { spans: [span(2), span(3)] }] },
        { scopeSpans: [] },
        {},
        {
          resource: { attributes: [] },
          scopeSpans: [{ spans: [span(4)], schemaUrl: 'https://opentelemetry.io/schemas/1.21.0' }],
        },
      ],
      extra: { ignored: [1, 2.5e3, true, null] },
    }
    expectSameAsWholeDocument(JSON.stringify(multi))
    expect(parseTraces(JSON.stringify(multi))[0].size).toBe(4)
    expect(readOtlpText(JSON.stringify({ resourceSpans: [] }), new ReadContext())).toEqual([])
  })

  it('leaves texts it does not take to the whole-document reader, and touches no warnings then', () => {
    const ctx = new ReadContext()
    ctx.warn('t', { code: 'other', message: 'kept' })
    const declined = [
      JSON.stringify({ trace_id: 'x', spans: [] }), // OpenInference: not even scanned
      `${JSON.stringify(request([span(1)]))}\n${JSON.stringify(request([span(2)]))}`, // JSONL
      JSON.stringify(request([span(1)])).replace('"scopeSpans"', '"scopeSpans":[],"scopeSpans"'), // duplicate key
      JSON.stringify(request([span(1)])).replace('"spans"', '"spans":[],"spans"'),
      JSON.stringify(request([span(1)])).replace('"scope"', '"sc\\u006fpe"'), // escaped key
      JSON.stringify(request([span(1)])).replace('"spanId"', '"spanId":01,"x"'), // invalid number inside a span
      JSON.stringify(request([span(1)])).replace('"stringValue":"svc"', '"stringValue":tru'), // invalid literal outside the spans
      JSON.stringify(request([null])), // not a span object
      JSON.stringify({ resourceSpans: null }),
      JSON.stringify(request([span(1)])).slice(0, -3), // truncated
    ]
    for (const text of declined) expect(readOtlpText(text, ctx), text.slice(0, 80)).toBeUndefined()
    // A span the reader rejects is declined after reading the ones before it: their warnings are rolled back.
    const unparsed = span(1, {
      attributes: [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.call.result', '{"a": ')],
    })
    const before = ctx.warningsFor('0af7651916cd43dd8448eb211c80319c').length
    expect(readOtlpText(JSON.stringify(request([unparsed, { spanId: 'x' }])), ctx)).toBeUndefined()
    expect(ctx.warningsFor('0af7651916cd43dd8448eb211c80319c')).toHaveLength(before)
    expect(ctx.warningsFor('t')).toEqual([{ code: 'other', message: 'kept' }])
  })

  it('gives the same errors as the whole-document reader for what it declines', () => {
    const missingId = JSON.stringify(request([span(1), { traceId: '0af7651916cd43dd8448eb211c80319c', name: 'no id' }]))
    expect(() => parseTraces(missingId, 'run.json')).toThrow(TraceFormatError)
    expect(() => parseTraces(missingId, 'run.json')).toThrow(
      /\$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.spanId/,
    )
    const truncated = JSON.stringify(request([span(1)])).slice(0, -3)
    expect(() => parseTraces(truncated, 'run.json')).toThrow(/not valid JSON.*truncated/)
  })

  it('refuses two spellings of a span container, or one in the wrong case, rather than drop their spans unseen', () => {
    const span = (id: string) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: id,
      name: `s${id}`,
      startTimeUnixNano: '1',
      endTimeUnixNano: '2',
      status: { code: 2 },
    })
    const cases: Array<[unknown, RegExp]> = [
      [
        {
          resourceSpans: [
            {
              scopeSpans: [{ spans: [span('00f067aa0ba902b7')] }],
              instrumentationLibrarySpans: [{ spans: [span('00f067aa0ba902b8')] }],
            },
          ],
        },
        /at \$\.resourceSpans\[0\]: has both "scopeSpans" and "instrumentationLibrarySpans"/,
      ],
      [
        {
          resourceSpans: [{ scopeSpans: [{ spans: [span('00f067aa0ba902b7')] }] }],
          resource_spans: [{ scopeSpans: [{ spans: [span('00f067aa0ba902b8')] }] }],
        },
        /has both "resourceSpans" and "resource_spans"/,
      ],
      [
        {
          resourceSpans: [
            { scopeSpans: [{ spans: [span('00f067aa0ba902b7')] }] },
            { ScopeSpans: [{ spans: [span('00f067aa0ba902b8')] }] },
          ],
        },
        /at \$\.resourceSpans\[1\]\.ScopeSpans: has "ScopeSpans", which is not an OTLP key/,
      ],
    ]
    for (const [doc, why] of cases) {
      expect(() => parseTraces(JSON.stringify(doc), 'x.json')).toThrow(why)
      expect(() => tracesFromValue(doc, 'x.json')).toThrow(TraceFormatError)
    }
  })

  it('names the span path of a parent-id cycle found after a streamed read', () => {
    const a = span(1, { parentSpanId: '0000000000000002' })
    const b = span(2, { parentSpanId: '0000000000000001' })
    const text = JSON.stringify(request([span(3, { parentSpanId: undefined }), a, b]))
    expect(readOtlpText(text, new ReadContext())).toHaveLength(3)
    expect(() => parseTraces(text, 'cycle.json')).toThrow(
      /cycle[\s\S]*\$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[[12]\]\.parentSpanId/,
    )
  })

  it('matches readOtlp on the parsed document for the same context state', () => {
    const text = syntheticOtlpTrace(100)
    const a = new ReadContext()
    const b = new ReadContext()
    expect(readOtlpText(text, a)!.map(spanToJSON)).toEqual(readOtlp(JSON.parse(text), b).map(spanToJSON))
    expect(a.warningsFor('00000000000000000000000000000abc')).toEqual(b.warningsFor('00000000000000000000000000000abc'))
  })
})
