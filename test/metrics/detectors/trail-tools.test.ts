// Tool outputs that are error pages, and repeated identical tool calls, on real TRAIL traces.
import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors/index'
import { detectRepeatedCalls } from '../../../src/metrics/detectors/repeated-calls'
import { detectToolOutputErrors } from '../../../src/metrics/detectors/tool-output'
import { allTrailTraces, HAVE_TRAIL, spanText, trailTrace } from './trail'

describe.skipIf(!HAVE_TRAIL)('tool outputs that report an error (real TRAIL pages)', () => {
  it('flags exactly the fetched pages titled "Error 403" (Authentication) and the dropped connection (Service)', () => {
    const expected = new Map<string, string>()
    let okToolSpans = 0
    for (const trace of allTrailTraces()) {
      for (const span of trace.spans) {
        if (span.kind !== 'tool' || span.status === 'error' || typeof span.output !== 'string') continue
        okToolSpans++
        // Independent oracle: the browser tool prints "Title: <page title>" on its second line.
        const title = span.output.split('\n')[1] ?? ''
        if (title === 'Title: Error 403') expected.set(span.id, 'Authentication Errors')
        else if (title === 'Title: Error' && span.output.includes('Connection aborted'))
          expected.set(span.id, 'Service Errors')
      }
    }
    const found = new Map<string, string>()
    for (const trace of allTrailTraces()) {
      for (const f of detectToolOutputErrors(trace)) {
        found.set(f.spanId, f.category)
        expect(spanText(trace.get(f.spanId)!)).toContain(f.evidence)
      }
    }
    expect(okToolSpans).toBeGreaterThan(100)
    expect(expected.size).toBe(5)
    // Precision: pages that merely say "not found" (find-on-page misses) are not flagged.
    expect(found).toEqual(expected)
  })

  it('quotes the error line of the page as evidence', () => {
    const trace = trailTrace('GAIA', 'dcb89b6b')
    const f = detectToolOutputErrors(trace)
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({
      spanId: 'e1c0205074e68c12',
      category: 'Authentication Errors',
      evidence: 'Title: Error 403',
      detector: 'tool-output',
    })
  })
})

describe.skipIf(!HAVE_TRAIL)('repeated identical tool calls (real TRAIL runs)', () => {
  it('reports page_down called again and again with the same bad arguments, once, on the last repeat', () => {
    const trace = trailTrace('GAIA', '59365b27')
    const pageDowns = trace.spans.filter((s) => s.kind === 'tool' && s.toolName === 'page_down')
    expect(pageDowns.length).toBe(10)
    const findings = detectRepeatedCalls(trace)
    expect(findings).toHaveLength(1)
    expect(findings[0]).toMatchObject({
      spanId: pageDowns[pageDowns.length - 1].id,
      category: 'Resource Abuse',
      detector: 'repeated-calls',
    })
    expect(findings[0].reason).toMatch(/page_down was called 10 times with the same arguments.*failing the same way/)
    expect(spanText(pageDowns[9])).toContain(findings[0].evidence)
  })

  it('needs two repeats by default; minRepeats: 1 flags a call made twice', () => {
    // In this run page_down was called twice with {'page_down': ''} and failed the same way both times.
    const trace = trailTrace('GAIA', 'a99faf78')
    const twice = trace.spans.filter((s) => s.kind === 'tool' && JSON.stringify(s.toolArgs) === '{"page_down":""}')
    expect(twice).toHaveLength(2)
    expect(detectRepeatedCalls(trace).some((f) => f.spanId === twice[1].id)).toBe(false)
    expect(detectRepeatedCalls(trace, { minRepeats: 1 }).some((f) => f.spanId === twice[1].id)).toBe(true)
  })

  it('does not count a repeat whose result changed (find-on-page on a page that scrolled)', () => {
    // find_on_page_ctrl_f("predicted") twice in this run, with different results each time.
    const trace = trailTrace('GAIA', 'c60ad860')
    const finds = trace.spans.filter(
      (s) => s.toolName === 'find_on_page_ctrl_f' && JSON.stringify(s.toolArgs) === '{"search_string":"predicted"}',
    )
    expect(finds).toHaveLength(2)
    expect(finds[0].output).not.toEqual(finds[1].output)
    const strict = detectRepeatedCalls(trace, { minRepeats: 1 })
    const loose = detectRepeatedCalls(trace, { minRepeats: 1, requireSameOutcome: false })
    expect(strict.some((f) => f.spanId === finds[1].id)).toBe(false)
    expect(loose.some((f) => f.spanId === finds[1].id)).toBe(true)
  })

  it('keeps repeats within one agent: detect() reports Resource Abuse only on TOOL spans of the repeating agent', () => {
    for (const trace of allTrailTraces()) {
      for (const f of detect(trace).filter((x) => x.category === 'Resource Abuse')) {
        const span = trace.get(f.spanId)!
        expect(span.kind).toBe('tool')
        const agent = trace.ancestors(span.id).find((a) => a.kind === 'agent')!
        const sameCalls = trace.spans.filter(
          (s) => s.kind === 'tool' && s.toolName === span.toolName && trace.ancestors(s.id).includes(agent),
        )
        expect(sameCalls.length).toBeGreaterThanOrEqual(3)
      }
    }
  })
})
