import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TraceFormatError } from '../../src/trace/errors'
import { loadTrace, loadTraces } from '../../src/trace/load'
import { parseTrace } from '../../src/trace/parse'
import { agentRun, createRecorder } from '../helpers/otel'
import { FIXTURE_DIR } from '../helpers/trail'

const SMALL = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')

/** The TraceFormatError thrown by fn (fails the test if none is). */
function caught(fn: () => unknown): TraceFormatError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(TraceFormatError)
    return err as TraceFormatError
  }
  throw new Error('expected a TraceFormatError, nothing was thrown')
}

async function caughtAsync(p: Promise<unknown>): Promise<TraceFormatError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(TraceFormatError)
  return err as TraceFormatError
}

function otlpRun(): { text: string; ids: string[] } {
  const rec = createRecorder({ seed: 41 })
  agentRun(rec.tracer)
  return { text: rec.otlpJson(), ids: rec.spans().map((s) => s.spanContext().spanId) }
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'agent-verdict-trace-'))
}

describe('malformed input → TraceFormatError naming file, JSON path and expectation', () => {
  it('truncated JSON: position, line and column, and a hint', () => {
    const text = readFileSync(SMALL, 'utf8')
    const cut = text.slice(0, 5000)
    const err = caught(() => parseTrace(cut, 'run.json'))
    expect(err.file).toBe('run.json')
    expect(err.jsonPath).toBe('$')
    const lines = cut.split('\n')
    expect(err.message).toMatch(/^run\.json at \$: not valid JSON at line \d+ column \d+ \(position 5000\)/)
    expect(err.message).toContain(`line ${lines.length} column ${lines.at(-1)!.length + 1}`)
    expect(err.message).toMatch(/looks truncated/)
  })

  it('a syntax error in the middle names its position', () => {
    const err = caught(() => parseTrace('{"trace_id": "ab",\n  "spans": [}\n', 'bad.json'))
    expect(err.message).toMatch(/^bad\.json at \$: not valid JSON at line 2 column 13 \(position 31\)/)
    expect(err.message).not.toMatch(/truncated/)
  })

  it('a 0-byte file', async () => {
    const file = join(tempDir(), 'empty.json')
    writeFileSync(file, '')
    const err = await caughtAsync(loadTrace(file))
    expect(err.file).toBe(file)
    expect(err.message).toBe(
      `${file} at $: the file is empty (0 bytes): expected an OTLP JSON export or an OpenInference trace; check that the exporter flushed before the process exited`,
    )
  })

  it('non-trace JSON', () => {
    const err = caught(() => parseTrace('{"foo": 1}', 'package.json'))
    expect(err.message).toBe(
      'package.json at $: not a trace: expected OTLP `resourceSpans` or an OpenInference `{trace_id, spans}` envelope, found an object with keys foo; pass a trace export (OTLP JSON/JSONL, TRAIL/OpenInference JSON) or SDK ReadableSpans',
    )
  })

  it('a TRAIL span without id, and one with a numeric span_id', () => {
    const doc = JSON.parse(readFileSync(SMALL, 'utf8'))
    const agentRun = doc.spans[0].child_spans[1].child_spans[1]
    expect(agentRun.span_name).toBe('CodeAgent.run')
    delete agentRun.span_id
    const missing = caught(() => parseTrace(JSON.stringify(doc), 'trail.json'))
    expect(missing.jsonPath).toBe('$.spans[0].child_spans[1].child_spans[1].span_id')
    expect(missing.message).toMatch(
      /^trail\.json at \$\.spans\[0\]\.child_spans\[1\]\.child_spans\[1\]\.span_id: expected a span id string \(16 hex chars\), found nothing \(the key is missing\); every span needs its own `span_id`/,
    )
    agentRun.span_id = 5
    const numeric = caught(() => parseTrace(JSON.stringify(doc), 'trail.json'))
    expect(numeric.message).toContain(
      '$.spans[0].child_spans[1].child_spans[1].span_id: expected a span id string (16 hex chars), found number 5',
    )
  })

  it('an OTLP span without spanId', () => {
    const doc = JSON.parse(otlpRun().text)
    delete doc.resourceSpans[0].scopeSpans[0].spans[1].spanId
    const err = caught(() => parseTrace(JSON.stringify(doc), 'otel.json'))
    expect(err.jsonPath).toBe('$.resourceSpans[0].scopeSpans[0].spans[1].spanId')
    expect(err.message).toMatch(
      /^otel\.json at \$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.spanId: expected a span id \(16 hex chars\), found nothing/,
    )
  })

  it('wrong attribute types in OTLP', () => {
    const doc = JSON.parse(otlpRun().text)
    doc.resourceSpans[0].scopeSpans[0].spans[0].attributes = { 'gen_ai.operation.name': 'chat' }
    const notArray = caught(() => parseTrace(JSON.stringify(doc), 'otel.json'))
    expect(notArray.message).toContain(
      'otel.json at $.resourceSpans[0].scopeSpans[0].spans[0].attributes: expected an array of {key, value} attributes, found an object with keys gen_ai.operation.name',
    )
    doc.resourceSpans[0].scopeSpans[0].spans[0].attributes = [{ key: 'n', value: { intValue: 'twelve' } }]
    const badInt = caught(() => parseTrace(JSON.stringify(doc), 'otel.json'))
    expect(badInt.jsonPath).toBe('$.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue')
    expect(badInt.message).toContain('expected an integer (number or decimal string), found the string "twelve"')
    doc.resourceSpans[0].scopeSpans[0].spans[0].attributes = [{ key: 'n', value: 7 }]
    expect(caught(() => parseTrace(JSON.stringify(doc), 'otel.json')).message).toContain(
      'attributes[0].value: expected an OTLP AnyValue object like {"stringValue": "…"}, found number 7',
    )
  })

  it('wrong types in TRAIL span_attributes / timestamps', () => {
    const doc = JSON.parse(readFileSync(SMALL, 'utf8'))
    doc.spans[0].span_attributes = 'pat.app=GAIA'
    expect(caught(() => parseTrace(JSON.stringify(doc), 't.json')).message).toContain(
      't.json at $.spans[0].span_attributes: expected an object of span attributes, found the string "pat.app=GAIA"',
    )
    const doc2 = JSON.parse(readFileSync(SMALL, 'utf8'))
    doc2.spans[0].child_spans[0].timestamp = 'yesterday'
    expect(caught(() => parseTrace(JSON.stringify(doc2), 't.json')).jsonPath).toBe(
      '$.spans[0].child_spans[0].timestamp',
    )
    const doc3 = JSON.parse(readFileSync(SMALL, 'utf8'))
    doc3.spans[0].duration = '4.8 seconds'
    expect(caught(() => parseTrace(JSON.stringify(doc3), 't.json')).message).toContain(
      '$.spans[0].duration: expected an ISO-8601 duration like "PT4.829649S", found the string "4.8 seconds"',
    )
  })

  it('a cycle in OTLP parent ids (the root made a child of its own child)', () => {
    const { text, ids } = otlpRun()
    const doc = JSON.parse(text)
    const spans = doc.resourceSpans[0].scopeSpans[0].spans as Array<{
      spanId: string
      parentSpanId?: string
      name: string
    }>
    const rootIndex = spans.findIndex((s) => !s.parentSpanId)
    const childIndex = spans.findIndex((s) => s.parentSpanId === spans[rootIndex].spanId)
    const child = spans[childIndex]
    spans[rootIndex].parentSpanId = child.spanId
    const err = caught(() => parseTrace(JSON.stringify(doc), 'cycle.json'))
    expect(err.file).toBe('cycle.json')
    // Either member of the two-span cycle is a correct place to point at.
    expect([rootIndex, childIndex].map((i) => `$.resourceSpans[0].scopeSpans[0].spans[${i}].parentSpanId`)).toContain(
      err.jsonPath,
    )
    expect(err.message).toMatch(
      /^cycle\.json at \$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[\d\]\.parentSpanId: parent ids form a cycle: /,
    )
    expect(err.message).toContain(`${spans[rootIndex].spanId} (invoke_agent support)`)
    expect(err.message).toContain(`${child.spanId} (${child.name})`)
    expect(err.spanIds).toHaveLength(2)
    expect(ids).toEqual(expect.arrayContaining(err.spanIds!))
  })

  it('a span that is its own parent', () => {
    const doc = JSON.parse(otlpRun().text)
    const span = doc.resourceSpans[0].scopeSpans[0].spans[0]
    span.parentSpanId = span.spanId
    const err = caught(() => parseTrace(JSON.stringify(doc), 'self.json'))
    expect(err.jsonPath).toBe('$.resourceSpans[0].scopeSpans[0].spans[0].parentSpanId')
    expect(err.message).toContain(
      `parent ids form a cycle: ${span.spanId} (${span.name}) → ${span.spanId} (${span.name})`,
    )
  })

  it('a cycle in TRAIL parent ids', () => {
    const doc = JSON.parse(readFileSync(SMALL, 'utf8'))
    doc.spans[0].parent_span_id = doc.spans[0].child_spans[1].span_id
    const err = caught(() => parseTrace(JSON.stringify(doc), 't.json'))
    expect(err.jsonPath).toMatch(/^\$\.spans\[0\](\.child_spans\[1\])?\.parent_span_id$/)
    expect(err.message).toContain('parent ids form a cycle')
  })

  it('a broken line in a JSONL file names the line', () => {
    const { text } = otlpRun()
    const err = caught(() => parseTrace(`${text}\n{"resourceSpans": [}\n`, 'export.jsonl'))
    expect(err.line).toBe(2)
    expect(err.message).toMatch(/^export\.jsonl:2 at \$: not valid JSON at line 2 column \d+/)
    const doc = JSON.parse(text)
    doc.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano = 'soon'
    const wrong = caught(() => parseTrace(`${text}\n${JSON.stringify(doc)}\n`, 'export.jsonl'))
    expect(wrong.message).toMatch(
      /^export\.jsonl:2 at \$\.resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.startTimeUnixNano: expected startTimeUnixNano/,
    )
  })

  it('a directory without traces, a missing path, and a directory given to loadTrace', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'README.md'), '# no traces here\n')
    const none = await caughtAsync(loadTraces(dir))
    expect(none.message).toBe(
      `${dir}: no trace files were found at ${dir}; directories are searched for **/*.{json,jsonl} — check the path or the glob`,
    )
    const typo = await caughtAsync(loadTraces([join(dir, 'nope'), join(dir, '*.jsonl')]))
    expect(typo.message).toContain('no trace files were found at')
    const asFile = await caughtAsync(loadTrace(dir))
    expect(asFile.message).toBe(
      `${dir}: is a directory, not a trace file; use loadTraces(dir) to load every *.json / *.jsonl trace in it`,
    )
    const missing = await caughtAsync(loadTrace(join(dir, 'missing.json')))
    expect(missing.message).toMatch(/missing\.json: no such file; check the path/)
  })

  it('an empty OTLP request has no trace to return', () => {
    expect(caught(() => parseTrace('{"resourceSpans": []}', 'empty-request.json')).message).toMatch(
      /^empty-request\.json at \$: no spans found/,
    )
  })
})
