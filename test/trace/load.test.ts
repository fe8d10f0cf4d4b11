import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { syntheticOtlpTrace } from '../../bench/synthetic-otlp'
import { TraceFormatError } from '../../src/trace/errors'
import { eachTrace, loadTrace, loadTraceFile, loadTraces } from '../../src/trace/load'
import { parseTrace, tracesFromValue } from '../../src/trace/parse'
import { agentRun, createRecorder } from '../helpers/otel'
import { FIXTURE_DIR } from '../helpers/trail'

const REPO = fileURLToPath(new URL('../..', import.meta.url))
const EXAMPLES = fileURLToPath(new URL('../../examples/traces', import.meta.url))
const SMALL = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')

describe('loadTrace input kinds', () => {
  it('returns a Trace passed in as is, and checks a requested traceId against it', async () => {
    const trace = await loadTrace(SMALL)
    expect(await loadTrace(trace)).toBe(trace)
    await expect(loadTrace(trace, { traceId: 'ffff' })).rejects.toThrow(
      /no trace with id ffff: the Trace passed in has id 0ebe673d64647ec44c370638b82d3c78/,
    )
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
    await expect(loadTrace(JSON.parse(rec.otlpJson()), { traceId: 'abc' })).rejects.toThrow(
      `no trace with id abc: found 2 trace(s): ${ids.join(', ')}`,
    )
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
    const traces = await loadTraces([
      join(FIXTURE_DIR, '0*.json'),
      SMALL,
      join(FIXTURE_DIR, 'd67a8ae853c0b8ed0e55f7fafe4e2f64.json'),
    ])
    expect(traces.map((t) => basename(t.source!))).toEqual([
      '0ebe673d64647ec44c370638b82d3c78.json',
      'd67a8ae853c0b8ed0e55f7fafe4e2f64.json',
    ])
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

describe('eachTrace', () => {
  it('yields what loadTraces returns, in the same order, reading each file only when the loop gets there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-verdict-each-'))
    copyFileSync(SMALL, join(dir, 'b.json'))
    const rec = createRecorder({ seed: 54 })
    agentRun(rec.tracer)
    agentRun(rec.tracer, { failure: 404, offsetMs: 10_000 })
    writeFileSync(join(dir, 'a.jsonl'), `${rec.otlpJson()}\n`)
    writeFileSync(join(dir, 'c.json'), '{"not": "a trace"}')
    const seen: Array<[string, number]> = []
    let error: unknown
    try {
      for await (const t of eachTrace(dir)) seen.push([basename(t.source!), t.size])
    } catch (e) {
      error = e
    }
    // Both traces of a.jsonl and the one of b.json come out before c.json is read and fails.
    expect(seen).toEqual([
      ['a.jsonl', 4],
      ['a.jsonl', 4],
      ['b.json', 11],
    ])
    expect(error).toBeInstanceOf(TraceFormatError)
    expect((error as Error).message).toContain('c.json')
    await expect(loadTraces(dir)).rejects.toThrow(/c\.json/)
    const first = await eachTrace([dir, join(dir, 'b.json')]).next()
    expect(first.value?.source).toBe(join(dir, 'a.jsonl'))
    await expect(eachTrace(join(dir, 'nope')).next()).rejects.toThrow(/no trace files were found at .*nope/)
  })

  it('holds one file at a time: 5 traces of 10k spans fit a 72 MB heap that loadTraces runs out of', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-verdict-each-large-'))
    const text = syntheticOtlpTrace(10_000)
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `run-${i}.json`), text)
    const script = join(dir, 'count.mts')
    const load = pathToFileURL(fileURLToPath(new URL('../../src/trace/load.ts', import.meta.url))).href
    writeFileSync(
      script,
      `import { eachTrace, loadTraces } from '${load}'
let spans = 0
if (process.argv[2] === 'each') for await (const t of eachTrace(${JSON.stringify(dir)})) spans += t.size
else for (const t of await loadTraces(${JSON.stringify(dir)})) spans += t.size
console.log(spans)
`,
    )
    // Each trace takes ~17 MB once read; a for-await loop holds about two at a time.
    const run = (mode: string) =>
      spawnSync(process.execPath, ['--max-old-space-size=72', '--import', 'tsx', script, mode], {
        encoding: 'utf8',
        cwd: REPO,
      })
    const each = run('each')
    expect(each.stderr).toBe('')
    expect(each.stdout.trim()).toBe('50000')
    const all = run('all')
    expect(all.status).not.toBe(0)
    expect(all.stderr).toContain('heap out of memory')
  })
})
