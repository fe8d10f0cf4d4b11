import {
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { TraceFormatError } from '../../src/trace/errors'
import { loadTraceFile } from '../../src/trace/load'
import { loadJsonlFile, MAX_TEXT_BYTES } from '../../src/trace/load-large'
import { JsonlTraceReader, parseTraces } from '../../src/trace/parse'
import { spanToJSON } from '../../src/trace/span-json'
import type { Trace } from '../../src/trace/trace'
import { agentRun, createRecorder } from '../helpers/otel'
import { rejectionOf } from '../helpers/rejection'

const COLLECTOR_JSONL = fileURLToPath(new URL('../fixtures/otlp/collector-export.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'agent-verdict-large-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const view = (traces: Trace[]) =>
  traces.map((t) => ({ id: t.traceId, spans: t.spans.map(spanToJSON), warnings: t.warnings }))

function write(name: string, text: string | Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

describe('trace files too large for one string', () => {
  it('the limit is the longest string V8 makes (files above it take the line-by-line path)', () => {
    expect(MAX_TEXT_BYTES).toBeGreaterThan(500_000_000)
    expect(() => 'x'.repeat(MAX_TEXT_BYTES + 1)).toThrow(RangeError)
  })

  it('loadTraceFile reads a file above the limit line by line (a sparse file: no disk, only the first lines are read)', async () => {
    const rec = createRecorder({ seed: 4 })
    agentRun(rec.tracer)
    const path = join(dir, 'huge.jsonl')
    const fd = openSync(path, 'w')
    writeSync(fd, `${rec.otlpJson()}\n`)
    writeSync(fd, '\n', 1 << 20) // line 2 is a megabyte of NUL bytes (the hole), then the file runs on as a hole
    ftruncateSync(fd, MAX_TEXT_BYTES + 1024)
    closeSync(fd)
    // The whole-text path would fail on the file's size; the line path gets to line 2 and names it.
    await expect(loadTraceFile(path)).rejects.toThrow(/huge\.jsonl:2 .*not valid JSON/)
  })

  it('read line by line give the same traces as the whole text, for the collector fixture and a real SDK export', async () => {
    const text = readFileSync(COLLECTOR_JSONL, 'utf8')
    expect(view(await loadJsonlFile(COLLECTOR_JSONL))).toEqual(view(parseTraces(text, COLLECTOR_JSONL)))
    const rec = createRecorder({ seed: 5 })
    agentRun(rec.tracer, { failure: 503 })
    agentRun(rec.tracer, { offsetMs: 5000 })
    const lines = rec.spans().map((s) => rec.otlpJson([s]))
    // CRLF line ends, a BOM, blank lines: what Windows tools and hand-joined exports produce.
    const jsonl = `\ufeff${lines.join('\r\n\r\n')}\r\n`
    const path = write('sdk.jsonl', jsonl)
    expect(view(await loadJsonlFile(path))).toEqual(view(parseTraces(jsonl, path)))
  })

  it('joins lines that span read chunks (64 KiB) and multi-byte characters split between them', async () => {
    const rec = createRecorder({ seed: 6 })
    agentRun(rec.tracer)
    const doc = JSON.parse(rec.otlpJson())
    const long = 'é✓ '.repeat(40_000) // ~200 KB of multi-byte text in one attribute
    doc.resourceSpans[0].scopeSpans[0].spans[0].attributes.push({ key: 'long', value: { stringValue: long } })
    // A second line of another run (the same run twice would hold each span twice, with different content).
    const other = createRecorder({ seed: 61 })
    agentRun(other.tracer)
    const jsonl = `${JSON.stringify(doc)}\n${other.otlpJson()}\n`
    const path = write('chunks.jsonl', jsonl)
    const traces = await loadJsonlFile(path)
    expect(view(traces)).toEqual(view(parseTraces(jsonl, path)))
    expect(traces.flatMap((t) => t.spans).some((s) => s.attributes.long === long)).toBe(true)
  })

  it('says what to do when one line is larger than a string can hold', async () => {
    const rec = createRecorder({ seed: 7 })
    agentRun(rec.tracer)
    const line = rec.otlpJson()
    const path = write('one-doc.json', `${line}\n`)
    const err = await rejectionOf(loadJsonlFile(path, { maxLineBytes: 100 }), TraceFormatError)
    expect(err.message).toMatch(/one-doc\.json.*the file is one JSON document larger than 100 bytes.*export OTLP JSONL/)
    await expect(
      loadJsonlFile(write('second.jsonl', `{"resourceSpans":[]}\n${line}`), { maxLineBytes: 100 }),
    ).rejects.toThrow(/line 2 is one JSON document larger than 100 bytes/)
  })

  it('says a big pretty-printed document cannot be read, instead of calling it truncated', async () => {
    const rec = createRecorder({ seed: 8 })
    agentRun(rec.tracer)
    const path = write('pretty.json', JSON.stringify(JSON.parse(rec.otlpJson()), null, 2))
    const err = await rejectionOf(loadJsonlFile(path), TraceFormatError)
    expect(err.message).toMatch(/can only be read as JSONL.*line 1 is not one .*split the export/)
    expect(err.message).not.toMatch(/looks truncated/)
  })

  it('names the line of a bad line after the first, and of a parent-id cycle found after reading', async () => {
    const rec = createRecorder({ seed: 9 })
    agentRun(rec.tracer)
    const good = rec.otlpJson()
    await expect(loadJsonlFile(write('bad.jsonl', `${good}\n{"resourceSpans": [ }\n`))).rejects.toThrow(
      /bad\.jsonl:2 .*not valid JSON/,
    )

    const doc = JSON.parse(good)
    const spans = doc.resourceSpans[0].scopeSpans[0].spans
    spans[0].parentSpanId = spans[1].spanId
    spans[1].parentSpanId = spans[0].spanId
    const reader = new JsonlTraceReader('cycle.jsonl')
    reader.add(1, '{"resourceSpans":[]}')
    reader.add(3, JSON.stringify(doc))
    expect(() => reader.traces()).toThrow(/cycle\.jsonl:3[\s\S]*cycle/)
  })
})
