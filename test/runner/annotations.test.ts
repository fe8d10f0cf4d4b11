import { describe, expect, it } from 'vitest'
import {
  annotateVerdicts,
  annotationMode,
  annotationsEnabled,
  verdictAnnotation,
  verdictAnnotations,
} from '../../runner/annotations'
import type { ReportTrace } from '../../src/verdict/report'
import type { Verdict } from '../../src/verdict/verdict'

const base: Verdict = {
  metric: 'faithfulness',
  level: 'output',
  scale: 'binary',
  raw: 1,
  score: 1,
  threshold: 1,
  pass: true,
  outcome: 'pass',
  reason: 'Stated in the context.',
}
const failing: Verdict = {
  ...base,
  raw: 0,
  score: 0,
  pass: false,
  outcome: 'fail',
  reason: 'Cites a 2019 figure\nthe chart lacks.',
}
const unjudgeable: Verdict = {
  ...base,
  raw: null,
  score: null,
  pass: false,
  outcome: 'unjudgeable',
  reason: 'judge reply was not JSON after 3 attempts',
}
const span = (id: string, outcome: Verdict['outcome']): Verdict => ({
  ...base,
  metric: 'span-quality',
  level: 'span',
  spanId: id,
  scale: 'likert5',
  raw: outcome === 'pass' ? 5 : 1,
  score: outcome === 'pass' ? 1 : 0,
  threshold: 0.5,
  pass: outcome === 'pass',
  outcome,
  reason: `${id} reason`,
  ...(outcome === 'fail' ? { category: 'Authentication Errors' } : {}),
})
const traces: ReportTrace[] = [
  { id: 't1', spans: [{ id: 'b2', parentId: 'a1', name: 'visit_page', kind: 'tool', failed: true, verdictIds: [] }] },
]

describe('verdictAnnotation', () => {
  it('maps pass/fail/unjudgeable to Vitest’s notice/error/warning, one line each', () => {
    expect(verdictAnnotation(base)).toEqual({
      type: 'notice',
      message: 'agent-verdict faithfulness: pass — Stated in the context.',
    })
    expect(verdictAnnotation(failing)).toEqual({
      type: 'error',
      message: 'agent-verdict faithfulness: fail — Cites a 2019 figure the chart lacks.',
    })
    expect(
      verdictAnnotation({
        ...base,
        metric: 'quality',
        scale: 'likert5',
        raw: 2,
        score: 0.25,
        threshold: 0.75,
        pass: false,
        outcome: 'fail',
        reason: 'vague',
      }).message,
    ).toBe('agent-verdict quality: fail (2/5, min 4) — vague')
    expect(verdictAnnotation(unjudgeable)).toEqual({
      type: 'warning',
      message: 'agent-verdict faithfulness: unjudgeable — judge reply was not JSON after 3 attempts',
    })
  })

  it('names the span and category of a span verdict', () => {
    expect(verdictAnnotation(span('b2', 'fail'), traces).message).toBe(
      'agent-verdict span-quality · span tool:visit_page (id b2): fail (1/5, min 3) · Authentication Errors — b2 reason',
    )
    expect(verdictAnnotation(span('zz', 'fail')).message).toContain('· span zz:')
  })

  it('keeps a hostile reason on one bounded line (no workflow command can be smuggled onto a new line)', () => {
    const hostile = `ok\n::error file=/etc/passwd,line=1::pwned\r\n${'x'.repeat(5000)}`
    const { message } = verdictAnnotation({ ...failing, reason: hostile })
    expect(message).not.toMatch(/[\r\n]/)
    expect(message.length).toBeLessThan(700)
    expect(message.endsWith('…')).toBe(true)
  })
})

describe('verdictAnnotations', () => {
  it('annotates every output verdict, failing span verdicts one by one and passing span verdicts as one count', () => {
    const list = verdictAnnotations(
      [span('a1', 'pass'), span('b2', 'fail'), span('c3', 'pass'), span('d4', 'unjudgeable'), failing],
      traces,
    )
    expect(list.map((a) => a.type)).toEqual(['error', 'warning', 'error', 'notice'])
    expect(list[3].message).toBe('agent-verdict: 2 span verdicts passed')
    expect(verdictAnnotations([span('a1', 'pass')])).toEqual([
      { type: 'notice', message: 'agent-verdict: 1 span verdict passed' },
    ])
    expect(verdictAnnotations([])).toEqual([])
  })
})

describe('verdictAnnotations on a large trace', () => {
  it("reads the traces' spans once for all of a matcher's span verdicts, not once per verdict", () => {
    // A 100,000-span trace's 1,333 failing spans took 138 s to annotate when each label searched every span.
    const spans = Array.from({ length: 500 }, (_, i) => ({
      id: `s${i}`,
      parentId: null,
      name: `step ${i}`,
      kind: 'tool',
      failed: true,
      verdictIds: [],
    }))
    let reads = 0
    const big: ReportTrace = {
      id: 'big',
      get spans() {
        reads++
        return spans
      },
    }
    const verdicts = spans.map((s) => span(s.id, 'fail'))
    const annotations = verdictAnnotations(verdicts, [big])
    expect(annotations).toHaveLength(500)
    expect(annotations[499].message).toContain('span tool:step 499 (id s499)')
    expect(reads).toBe(1)
  })
})

describe('annotateVerdicts', () => {
  it('calls context.annotate with message and type: failing and unjudgeable verdicts by default, every one with all', async () => {
    const calls: Array<[string, string | undefined]> = []
    const task = { context: { annotate: async (message: string, type?: string) => void calls.push([message, type]) } }
    annotateVerdicts(task, [base, failing], undefined, {})
    expect(calls.map(([, t]) => t)).toEqual(['error'])
    calls.length = 0
    annotateVerdicts(task, [base, failing], undefined, { AGENT_VERDICT_ANNOTATIONS: 'all' })
    expect(calls.map(([, t]) => t)).toEqual(['notice', 'error'])
    calls.length = 0
    annotateVerdicts(task, [base], undefined, {}) // only a passing verdict: no annotation, no wait for one
    expect(calls).toEqual([])
  })

  it('AGENT_VERDICT_ANNOTATIONS: failures (default), all (on, 1, true), off (0, false); anything else says what to use', () => {
    let called = 0
    const task = { context: { annotate: async () => void called++ } }
    for (const off of ['0', 'false', 'OFF '])
      annotateVerdicts(task, [failing], undefined, { AGENT_VERDICT_ANNOTATIONS: off })
    expect(called).toBe(0)
    for (const all of ['1', 'true', 'on', 'All']) expect(annotationMode({ AGENT_VERDICT_ANNOTATIONS: all })).toBe('all')
    expect(annotationMode({})).toBe('failures')
    expect(annotationMode({ AGENT_VERDICT_ANNOTATIONS: ' failures ' })).toBe('failures')
    expect(annotationsEnabled({})).toBe(true)
    expect(annotationsEnabled({ AGENT_VERDICT_ANNOTATIONS: 'off' })).toBe(false)
    expect(() => annotationMode({ AGENT_VERDICT_ANNOTATIONS: 'passes' })).toThrow(
      'AGENT_VERDICT_ANNOTATIONS="passes" is invalid: use failures (the default: failing and unjudgeable verdicts), all (passing ones too) or off',
    )
  })

  it('does nothing without an annotate API (Jest, a matcher outside a test) and stops quietly once the test is over', () => {
    expect(() => annotateVerdicts(undefined, [base])).not.toThrow()
    expect(() => annotateVerdicts({}, [base])).not.toThrow()
    let called = 0
    const ended = {
      context: {
        annotate: () => {
          called++
          throw new Error('Cannot annotate tests outside of the test run.')
        },
      },
    }
    expect(() =>
      annotateVerdicts(ended, [base, failing], undefined, { AGENT_VERDICT_ANNOTATIONS: 'all' }),
    ).not.toThrow()
    expect(called).toBe(1)
  })

  it('swallows a rejected annotation so it never becomes an unhandled rejection', async () => {
    const task = { context: { annotate: () => Promise.reject(new Error('runner does not support annotations')) } }
    annotateVerdicts(task, [failing])
    await new Promise((r) => setTimeout(r, 10)) // an unhandled rejection would fail this run
  })
})
