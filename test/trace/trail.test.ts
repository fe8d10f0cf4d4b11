import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TraceFormatError } from '../../src/trace/errors'
import { loadTrace, loadTraces } from '../../src/trace/load'
import { parseTraces } from '../../src/trace/parse'
import {
  FIXTURE_DIR,
  HAS_TRAIL,
  rawSpans,
  sharedTrailFiles,
  traceFiles,
  TRAIL_DIR,
  type RawTrailSpan,
} from '../helpers/trail'

/** Checks one TRAIL file against facts computed from its raw JSON, without the reader. */
async function checkTrailFile(file: string): Promise<void> {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { trace_id: string; spans: RawTrailSpan[] }
  const all = rawSpans(raw)
  const distinct = new Map(all.map((s) => [s.span_id, s]))
  const trace = await loadTrace(file)

  expect(trace.traceId).toBe(raw.trace_id)
  expect(trace.size).toBe(distinct.size)
  expect(new Set(trace.spans.map((s) => s.id))).toEqual(new Set(distinct.keys()))
  expect(trace.source).toBe(file)
  for (const span of trace.spans) {
    const r = distinct.get(span.id)!
    expect(span.parentId).toBe(r.parent_span_id)
    expect(span.name).toBe(r.span_name)
    expect(span.status).toBe(r.status_code.toLowerCase())
    expect(span.events).toHaveLength(r.events.length)
    const kind = r.span_attributes['openinference.span.kind']
    expect(span.kind).toBe(kind === undefined ? 'other' : kind.toLowerCase())
  }
  // Orphans are exactly the spans whose parent id is not in the file.
  const orphans = [...distinct.values()].filter((s) => s.parent_span_id !== null && !distinct.has(s.parent_span_id))
  expect(trace.warnings.filter((w) => w.code === 'orphan').map((w) => w.spanId)).toEqual(
    expect.arrayContaining(orphans.map((s) => s.span_id)),
  )
  expect(trace.warnings.filter((w) => w.code === 'duplicate-span')).toHaveLength(all.length - distinct.size)
  expect(trace.warnings.filter((w) => w.code === 'unparsed-payload').length).toBeLessThanOrEqual(1)
}

describe('TRAIL fixtures in the repo', () => {
  const files = traceFiles(FIXTURE_DIR)

  it('has the copied traces', () => {
    expect(files.map((f) => basename(f))).toEqual([
      '0ebe673d64647ec44c370638b82d3c78.json',
      '41bbc898aa7de0f31d2382ff57700a76.json',
      '72822db6e120878d916b515c2501246b.json',
      'd67a8ae853c0b8ed0e55f7fafe4e2f64.json',
    ])
  })

  it.each(files.map((f) => [basename(f), f]))('%s loads with one span per distinct span_id', async (_name, file) => {
    await checkTrailFile(file)
  })

  it('loads the SWE trace with orphans and a duplicate, naming them', async () => {
    const trace = await loadTrace(join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json'))
    expect(trace.size).toBe(13)
    expect(trace.roots).toHaveLength(7)
    const orphans = trace.warnings.filter((w) => w.code === 'orphan')
    expect(orphans).toHaveLength(7)
    expect(orphans.find((w) => w.spanId === 'b56ecaa245931f95')?.message).toMatch(
      /b56ecaa245931f95 \(create_agent\) has parent dd38ea21168a9f1a, which is not in the trace/,
    )
    expect(orphans.filter((w) => w.message.includes('1b34d02d2b7f4ecd'))).toHaveLength(6)
    const dup = trace.warnings.filter((w) => w.code === 'duplicate-span')
    expect(dup).toHaveLength(1)
    expect(dup[0].spanId).toBe('b14646a5fcac02fd')
    expect(dup[0].message).toContain('b14646a5fcac02fd')
  })

  it('refuses a duplicate whose copies differ, in any field: keeping the first hid a failing second copy', async () => {
    const text = readFileSync(join(FIXTURE_DIR, '72822db6e120878d916b515c2501246b.json'), 'utf8')
    // The fixture's duplicate is two identical records (a warning, above). Make the second one differ.
    const at = text.lastIndexOf('"span_id": "b14646a5fcac02fd"')
    expect(at).toBeGreaterThan(text.indexOf('"span_id": "b14646a5fcac02fd"'))
    const name = text.indexOf('"span_name": "LiteLLMModel.__call__"', at)
    const changed = `${text.slice(0, name)}"span_name": "LiteLLMModel.__call__ (retry)"${text.slice(name + '"span_name": "LiteLLMModel.__call__"'.length)}`
    const error = (() => {
      try {
        parseTraces(changed, 'dup.json')
      } catch (e) {
        return e as TraceFormatError
      }
      throw new Error('expected a TraceFormatError')
    })()
    expect(error).toBeInstanceOf(TraceFormatError)
    expect(error.message).toMatch(/span b14646a5fcac02fd appears twice with different content .*remove the extra copy/)
  })

  it('loads the whole fixture directory sorted by path', async () => {
    const traces = await loadTraces(FIXTURE_DIR)
    expect(traces.map((t) => basename(t.source!))).toEqual(files.map((f) => basename(f)))
  })
})

describe.skipIf(!HAS_TRAIL)(`every TRAIL trace in ${TRAIL_DIR}`, () => {
  const files = sharedTrailFiles()

  it('finds the GAIA and SWE Bench traces', () => {
    expect(files.filter((f) => f.includes('/GAIA/')).length).toBeGreaterThan(50)
    expect(files.filter((f) => f.includes('/SWE_Bench/')).length).toBeGreaterThan(10)
  })

  it.each(files.map((f) => [basename(f), f]))('%s loads with one span per distinct span_id', async (_name, file) => {
    await checkTrailFile(file)
  })

  it('loads the whole dataset directory with loadTraces', async () => {
    const traces = await loadTraces([join(TRAIL_DIR, 'GAIA'), join(TRAIL_DIR, 'SWE_Bench')])
    expect(traces).toHaveLength(files.length)
    expect(traces.map((t) => t.source)).toEqual([...traces.map((t) => t.source!)].sort())
  })
})
