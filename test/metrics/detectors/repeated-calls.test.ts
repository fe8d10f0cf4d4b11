// What counts as "the same call" and "the same result" for repeated-calls, on small hand-built runs.
import { describe, expect, it } from 'vitest'
import { detectRepeatedCalls } from '../../../src/metrics/detectors/repeated-calls'
import { newSpan } from '../../../src/trace/readers/common'
import type { Span } from '../../../src/trace/span'
import { Trace } from '../../../src/trace/trace'

let clock = 0n
function span(id: string, parentId: string | null, kind: Span['kind'], fields: Partial<Span> = {}): Span {
  clock += 10n
  return Object.assign(
    newSpan(id, parentId, 't', fields.toolName ?? kind, clock, clock + 5n, 'ok', '', {}, []),
    { kind },
    fields,
  )
}

/** An agent run whose tool spans are the given ones, in that order, each under its own step. */
function run(...tools: Array<Partial<Span>>): Trace {
  const spans = [span('agent', null, 'agent')]
  tools.forEach((t, i) => {
    spans.push(span(`step${i}`, 'agent', 'chain'), span(`tool${i}`, `step${i}`, 'tool', t))
  })
  return new Trace(spans)
}

describe('repeated-calls outcomes', () => {
  it('counts a string output and an object output with the same JSON text as the same result', () => {
    const trace = run(
      { toolName: 'lookup', toolArgs: { q: 'x' }, output: '{"a":1}' },
      { toolName: 'lookup', toolArgs: { q: 'x' }, output: { a: 1 } },
      { toolName: 'lookup', toolArgs: { q: 'x' }, output: '{"a":1}' },
    )
    expect(detectRepeatedCalls(trace).map((f) => f.spanId)).toEqual(['tool2'])
  })

  it('does not count a repeat whose output differs, unless asked to ignore outcomes', () => {
    const trace = run(
      { toolName: 'page_down', toolArgs: {}, output: 'page 1' },
      { toolName: 'page_down', toolArgs: {}, output: 'page 2' },
      { toolName: 'page_down', toolArgs: {}, output: 'page 1' },
    )
    expect(detectRepeatedCalls(trace, { minRepeats: 1 }).map((f) => f.spanId)).toEqual(['tool2'])
    expect(detectRepeatedCalls(trace, { minRepeats: 1, requireSameOutcome: false }).map((f) => f.spanId)).toEqual([
      'tool2',
    ])
    expect(detectRepeatedCalls(trace, { minRepeats: 2 })).toEqual([])
    expect(detectRepeatedCalls(trace, { minRepeats: 2, requireSameOutcome: false }).map((f) => f.spanId)).toEqual([
      'tool2',
    ])
  })

  it('matches arguments after normalization (case, spacing, key order), and only within one tool', () => {
    const trace = run(
      { toolName: 'search', toolArgs: { q: 'Revenue  by Region', n: 3 }, output: 'r' },
      { toolName: 'search', toolArgs: { n: 3, q: 'revenue by region' }, output: 'r' },
      { toolName: 'other', toolArgs: { q: 'revenue by region', n: 3 }, output: 'r' },
      { toolName: 'search', toolArgs: { q: ' REVENUE BY REGION ', n: 3 }, output: 'r' },
    )
    const [finding] = detectRepeatedCalls(trace)
    expect(finding.spanId).toBe('tool3')
    expect(finding.reason).toMatch(/^search was called 3 times with the same arguments/)
  })
})

describe('repeated-calls on model tool calls (runs without TOOL spans)', () => {
  const llm = (id: string, args: string, name = 'search') => ({
    id,
    output: [{ role: 'assistant', content: '', toolCalls: [{ name, arguments: args }] }],
  })
  function llmRun(...calls: Array<{ id: string; output: unknown }>): Trace {
    return new Trace([
      span('agent', null, 'agent'),
      ...calls.map((c) => span(c.id, 'agent', 'llm', { output: c.output })),
    ])
  }

  it('treats arguments that differ only in spacing and case as the same call', () => {
    const trace = llmRun(llm('l0', '{"q": "A  b"}'), llm('l1', '{"q":"a b"}'), llm('l2', '{ "q" : "A B" }'))
    expect(detectRepeatedCalls(trace).map((f) => f.spanId)).toEqual(['l2'])
  })

  it('breaks a run on a different tool name or different arguments', () => {
    expect(
      detectRepeatedCalls(llmRun(llm('l0', '{"q":1}'), llm('l1', '{"q":1}', 'fetch'), llm('l2', '{"q":1}'))),
    ).toEqual([])
    expect(detectRepeatedCalls(llmRun(llm('l0', '{"q":1}'), llm('l1', '{"q":2}'), llm('l2', '{"q":1}')))).toEqual([])
  })
})
