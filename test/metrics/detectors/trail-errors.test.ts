// Detectors on every real TRAIL trace: each error pattern the data contains, checked span by span.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors/index'
import type { Finding } from '../../../src/metrics/detectors/finding'
import { parseTrace } from '../../../src/trace/parse'
import type { Span } from '../../../src/trace/span'
import type { Trace } from '../../../src/trace/trace'
import { FIXTURE_DIR } from '../../helpers/trail'
import { allTrailTraces, exceptionType, HAVE_TRAIL, spanText, trailTrace } from './trail'

/** The LLM sibling right before a span under the same parent: the model call that wrote its arguments. */
function llmBefore(trace: Trace, span: Span): Span {
  const siblings = trace.children(span.parentId!)
  const llm = siblings
    .slice(0, siblings.indexOf(span))
    .filter((s) => s.kind === 'llm')
    .pop()
  if (!llm) throw new Error(`no LLM span before ${span.id}`)
  return llm
}

/** The LLM child of a step span. */
function llmChild(trace: Trace, step: Span): Span {
  const llm = trace
    .children(step.id)
    .filter((s) => s.kind === 'llm')
    .pop()
  if (!llm) throw new Error(`no LLM child under ${step.id}`)
  return llm
}

interface Case {
  trace: Trace
  span: Span
  findings: Finding[]
}

/** Every error span of TRAIL matching `pick`, with the findings of its trace. */
function errorSpans(pick: (span: Span, trace: Trace) => boolean): Case[] {
  const out: Case[] = []
  for (const trace of allTrailTraces()) {
    const findings = detect(trace)
    for (const span of trace.spans)
      if (span.status === 'error' && pick(span, trace)) out.push({ trace, span, findings })
  }
  return out
}

function expectFinding(c: Case, spanId: string, category: Finding['category']) {
  const f = c.findings.find(
    (x) => x.spanId === spanId && x.category === category && (x.evidenceSpanId ?? x.spanId) === c.span.id,
  )
  expect(
    f,
    `${category} on ${spanId} for the error of ${c.span.kind} ${c.span.name} ${c.span.id} in ${c.trace.traceId}`,
  ).toBeDefined()
  expect(spanText(c.span)).toContain(f!.evidence)
  expect(f!.evidence.length).toBeGreaterThan(0)
  expect(f!.evidence.length).toBeLessThanOrEqual(300)
  return f!
}

/** A step (CHAIN) whose children recorded no error: the error is the step's own (code it ran). */
const ownStepError = (span: Span, trace: Trace) =>
  span.kind === 'chain' && !trace.children(span.id).some((c) => c.status === 'error')

describe.skipIf(!HAVE_TRAIL)('detectors on real TRAIL traces', () => {
  it('tool calls with arguments the tool rejects → Formatting Errors on the LLM call that wrote them', () => {
    const cases = errorSpans(
      (s) =>
        s.kind === 'tool' &&
        exceptionType(s) === 'TypeError' &&
        s.statusMessage.includes('unexpected keyword argument'),
    )
    expect(cases.length).toBeGreaterThan(40)
    for (const c of cases) expectFinding(c, llmBefore(c.trace, c.span).id, 'Formatting Errors')
  })

  it('FileConversionException / UnsupportedFormatException in a tool → Environment Setup Errors on the calling LLM', () => {
    const cases = errorSpans(
      (s) => s.kind === 'tool' && /FileConversionException|UnsupportedFormatException/.test(exceptionType(s)),
    )
    expect(cases.length).toBeGreaterThanOrEqual(10)
    for (const c of cases) expectFinding(c, llmBefore(c.trace, c.span).id, 'Environment Setup Errors')
  })

  it('requests HTTPError 404 → Resource Not Found on the tool span itself', () => {
    const cases = errorSpans((s) => exceptionType(s) === 'requests.exceptions.HTTPError')
    expect(cases.length).toBe(2)
    for (const c of cases) {
      expect(c.span.kind).toBe('tool')
      const f = expectFinding(c, c.span.id, 'Resource Not Found')
      expect(f.evidence).toContain('404 Client Error')
    }
  })

  it('litellm RateLimitError / InternalServerError on an LLM call → Rate Limiting / Service Errors on that call, once', () => {
    const rate = errorSpans((s) => s.kind === 'llm' && exceptionType(s) === 'litellm.exceptions.RateLimitError')
    const service = errorSpans((s) => s.kind === 'llm' && exceptionType(s) === 'litellm.exceptions.InternalServerError')
    expect(rate.length).toBe(2)
    expect(service.length).toBe(1)
    for (const c of rate) expectFinding(c, c.span.id, 'Rate Limiting')
    for (const c of service) expectFinding(c, c.span.id, 'Service Errors')
    // The same error also sits on the step, the agent run and the wrapper span: reported once, at the LLM call.
    for (const c of [...rate, ...service]) {
      expect(c.trace.spans.filter((s) => s.status === 'error').length).toBeGreaterThanOrEqual(4)
      expect(c.findings.filter((f) => f.category === 'Rate Limiting' || f.category === 'Service Errors')).toHaveLength(
        1,
      )
      expect(c.findings.find((f) => f.spanId === c.span.id)!.severity).toBe('high')
    }
  })

  it('AgentParsingError and code that does not parse (SyntaxError) → Formatting Errors on the step’s LLM call', () => {
    const cases = errorSpans(
      (s, t) =>
        ownStepError(s, t) &&
        (exceptionType(s).endsWith('AgentParsingError') || s.statusMessage.includes('Code parsing failed')),
    )
    expect(cases.length).toBeGreaterThanOrEqual(12)
    for (const c of cases) expectFinding(c, llmChild(c.trace, c.span).id, 'Formatting Errors')
  })

  it('ModuleNotFoundError in the agent’s code → Environment Setup Errors on the step’s LLM call', () => {
    const cases = errorSpans((s, t) => ownStepError(s, t) && s.statusMessage.includes('ModuleNotFoundError'))
    expect(cases.length).toBeGreaterThanOrEqual(1)
    for (const c of cases) expectFinding(c, llmChild(c.trace, c.span).id, 'Environment Setup Errors')
  })

  it('the interpreter’s operation cap → Resource Exhaustion on the step’s LLM call', () => {
    const cases = errorSpans(
      (s, t) => ownStepError(s, t) && s.statusMessage.includes('Reached the max number of operations'),
    )
    expect(cases.length).toBeGreaterThanOrEqual(1)
    for (const c of cases) expectFinding(c, llmChild(c.trace, c.span).id, 'Resource Exhaustion')
  })

  it('a search that found nothing → Poor Information Retrieval on the LLM call that wrote the query', () => {
    const cases = errorSpans((s) => s.kind === 'tool' && s.statusMessage.includes('No results found'))
    expect(cases.length).toBeGreaterThan(10)
    for (const c of cases) expectFinding(c, llmBefore(c.trace, c.span).id, 'Poor Information Retrieval')
  })

  it('names every finding on an LLM or TOOL span, as TRAIL gold does, and quotes evidence verbatim', () => {
    let count = 0
    for (const trace of allTrailTraces()) {
      for (const f of detect(trace)) {
        count++
        const span = trace.get(f.spanId)!
        expect(['llm', 'tool']).toContain(span.kind)
        expect(spanText(trace.get(f.evidenceSpanId ?? f.spanId)!)).toContain(f.evidence)
      }
    }
    expect(count).toBeGreaterThan(100)
  })

  it('pins one real case end to end: the mp3 the search agent could not convert (GAIA 41bbc898)', () => {
    const trace = trailTrace('GAIA', '41bbc898')
    const findings = detect(trace)
    expect(findings).toEqual([
      expect.objectContaining({
        spanId: '101f42b3dad5a0d1',
        category: 'Environment Setup Errors',
        detector: 'error-status',
        evidenceSpanId: '610df94b266f9115',
        evidence: expect.stringMatching(
          /^FileConversionException: Could not convert 'data\/gaia\/validation\/1f975693.*\.mp3' to Markdown/,
        ),
      }),
      // The same error again on the next model call, whose input is the tool's error message.
      expect.objectContaining({
        spanId: '8133aad4e05365c5',
        category: 'Environment Setup Errors',
        detector: 'error-observed',
        evidence: expect.stringContaining("FileConversionException: Could not convert 'data/gaia/validation/1f975693"),
      }),
    ])
    expect(findings[0].reason).toContain('TOOL TextInspectorTool')
  })
})

describe('detectors on the TRAIL fixtures in the repo (plain clone)', () => {
  const load = (name: string) => {
    const file = join(FIXTURE_DIR, name)
    return parseTrace(readFileSync(file, 'utf8'), file)
  }

  it('AgentParsingError on a step → Formatting Errors on the LLM call whose output did not parse', () => {
    const trace = load('d67a8ae853c0b8ed0e55f7fafe4e2f64.json')
    const step = trace.spans.find(
      (s) => s.kind === 'chain' && exceptionType(s) === 'smolagents.utils.AgentParsingError',
    )!
    const f = detect(trace, { detectors: ['error-status'] })
    expect(f).toEqual([
      expect.objectContaining({
        spanId: llmChild(trace, step).id,
        category: 'Formatting Errors',
        evidenceSpanId: step.id,
      }),
    ])
    expect(spanText(step)).toContain(f[0].evidence)
    expect(f[0].evidence).toMatch(/^AgentParsingError: Error in code parsing:/)
  })

  it('a tool that could not convert the file → Environment Setup Errors on the LLM call that asked for it', () => {
    const trace = load('41bbc898aa7de0f31d2382ff57700a76.json')
    const toolSpan = trace.spans.find((s) => s.kind === 'tool' && s.status === 'error')!
    expect(detect(trace, { detectors: ['error-status'] })).toEqual([
      expect.objectContaining({
        spanId: llmBefore(trace, toolSpan).id,
        category: 'Environment Setup Errors',
        evidenceSpanId: toolSpan.id,
      }),
    ])
  })

  it('a run with orphans, a duplicate span and no errors yields no findings', () => {
    const trace = load('72822db6e120878d916b515c2501246b.json')
    expect(trace.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['orphan', 'duplicate-span']))
    expect(trace.spans.some((s) => s.status === 'error')).toBe(false)
    // No error finding; the model's own "It seems the search patterns didn't match any files." is a
    // behaviour finding (self-reported-failure), and a gold Formatting Error of this trace.
    expect(detect(trace).filter((f) => f.detector !== 'self-reported-failure')).toEqual([])
  })
})
