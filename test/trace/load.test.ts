import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { loadTrace, loadTraceFile, loadTraces } from '../../src/trace/load'
import { parseTrace, tracesFromValue } from '../../src/trace/parse'
import { agentRun, createRecorder } from '../helpers/otel'
import { FIXTURE_DIR } from '../helpers/trail'

const EXAMPLES = fileURLToPath(new URL('../../examples/traces', import.meta.url))
const SMALL = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')

describe('loadTrace input kinds', () => {
  it('returns a Trace passed in as is, and checks a requested traceId against it', async () => {
    const trace = await loadTrace(SMALL)
    expect(await loadTrace(trace)).toBe(trace)
    await expect(loadTrace(trace, { traceId: 'ffff' })).rejects.toThrow(/no trace with id ffff: the Trace passed in has id 0ebe673d64647ec44c370638b82d3c78/)
  })

  it('takes the bytes JsonTraceSerializer returns', async () => {
    const rec = createRecorder({ seed: 51 })
    agentRun(rec.tracer)
    const trace = await loadTrace(JsonTraceSerializer.serializeRequest(rec.spans())!)
    expect(trace.size).toBe(4)
    expect(trace.traceId).toBe(rec.spans()[0].spanContext().traceId)
  })

  it('takes an already-parsed document', async () => {
    const doc = JSON.parse(readFileSync(SMALL, 'utf8'))
    const trace = await loadTrace(doc)
    expect(trace.size).toBe(11)
    expect(tracesFromValue(doc)[0].size).toBe(11)
  })

  it('picks a trace by id from a multi-trace file, case-insensitively', async () => {
    const rec = createRecorder({ seed: 52 })
    agentRun(rec.tracer)
    agentRun(rec.tracer, { failure: 404, offsetMs: 10_000 })
    const ids = [...new Set(rec.spans().map((s) => s.spanContext().traceId))]
    const trace = await loadTrace(JSON.parse(rec.otlpJson()), { traceId: ids[1].toUpperCase() })
    expect(trace.traceId).toBe(ids[1])
    await expect(loadTrace(JSON.parse(rec.otlpJson()), { traceId: 'abc' })).rejects.toThrow(`no trace with id abc: found 2 trace(s): ${ids.join(', ')}`)
  })

  it('takes JSON text passed where a path was expected', async () => {
    const trace = await loadTrace(readFileSync(SMALL, 'utf8'))
    expect(trace.traceId).toBe('0ebe673d64647ec44c370638b82d3c78')
    expect(trace.source).toBeUndefined()
  })

  it('ignores a UTF-8 BOM', () => {
    expect(parseTrace(`\uFEFF${readFileSync(SMALL, 'utf8')}`).size).toBe(11)
  })
})

describe('loadTraces', () => {
  it('expands a directory to **/*.{json,jsonl}, sorted by path, skipping other files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-verdict-traces-'))
    mkdirSync(join(dir, 'b'))
    copyFileSync(SMALL, join(dir, 'b', 'run.json'))
    copyFileSync(join(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json'), join(dir, 'a.json'))
    const rec = createRecorder({ seed: 53 })
    agentRun(rec.tracer)
    writeFileSync(join(dir, 'b', 'otel.jsonl'), `${rec.otlpJson()}\n`)
    writeFileSync(join(dir, 'notes.md'), 'not a trace')
    const traces = await loadTraces(dir)
    expect(traces.map((t) => t.source!.slice(dir.length + 1))).toEqual(['a.json', 'b/otel.jsonl', 'b/run.json'])
    expect(traces.map((t) => t.size)).toEqual([13, 4, 11])
  })

  it('accepts globs and explicit files together, without duplicates', async () => {
    const traces = await loadTraces([join(FIXTURE_DIR, '0*.json'), SMALL, join(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json')])
    expect(traces.map((t) => basename(t.source!))).toEqual(['0ebe673d64647ec44c370638b82d3c78.json', 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json'])
  })

  it('loads the README example traces (examples/traces), one with no error spans', async () => {
    const traces = await loadTraces(EXAMPLES)
    expect(traces).toHaveLength(3)
    const errorSpans = traces.map((t) => t.spans.filter((s) => s.status === 'error').length)
    expect(errorSpans.filter((n) => n > 0)).toHaveLength(2)
    expect(errorSpans).toContain(0)
  })

  it('loadTraceFile returns every trace of a file', async () => {
    expect(await loadTraceFile(SMALL)).toHaveLength(1)
  })
})
