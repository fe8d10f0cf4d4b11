import { describe, expect, test } from 'vitest'
import { failingLeaves, traceVerdict } from '../../src/diagnosis/localize'
import { describePolicy, propagate } from '../../src/diagnosis/propagate'
import type { PropagationPolicy } from '../../src/diagnosis/types'
import type { Verdict } from '../../src/verdict/verdict'
import { handmadeTrace } from './helpers'

// root ─ step1 ─ llmA, toolA │ step2 ─ llmB, toolB │ step3 ─ llmC, toolC
const trace = handmadeTrace([
  { id: 'root', kind: 'agent', name: 'CodeAgent.run' },
  { id: 'step1', parent: 'root', kind: 'chain', name: 'Step 1' },
  { id: 'llmA', parent: 'step1', kind: 'llm', name: 'llm' },
  { id: 'toolA', parent: 'step1', kind: 'tool', name: 'search' },
  { id: 'step2', parent: 'root', kind: 'chain', name: 'Step 2' },
  { id: 'llmB', parent: 'step2', kind: 'llm', name: 'llm' },
  { id: 'toolB', parent: 'step2', kind: 'tool', name: 'search' },
  { id: 'step3', parent: 'root', kind: 'chain', name: 'Step 3' },
  { id: 'llmC', parent: 'step3', kind: 'llm', name: 'llm' },
  { id: 'toolC', parent: 'step3', kind: 'tool', name: 'search' },
])

/** A span verdict as the diagnosis stores it (test input for the propagation rules, not a judge result). */
function v(spanId: string, outcome: Verdict['outcome'], category?: string): Verdict {
  const score = outcome === 'pass' ? 1 : outcome === 'fail' ? 0 : null
  return {
    id: `${spanId}:m`,
    metric: 'span.error_category',
    level: 'span',
    spanId,
    scale: 'binary',
    raw: category ?? 'none',
    score,
    threshold: 1,
    pass: outcome === 'pass',
    outcome,
    reason: `${spanId} ${outcome}`,
    ...(category ? { category } : {}),
  }
}

function run(verdicts: Verdict[], policy?: PropagationPolicy) {
  const bySpan = new Map<string, Verdict[]>()
  for (const x of verdicts) bySpan.set(x.spanId!, [...(bySpan.get(x.spanId!) ?? []), x])
  const spans = propagate(trace, bySpan, policy)
  const leaves = failingLeaves(trace, spans, policy)
  const state = Object.fromEntries(spans.map((s) => [s.spanId, s.state]))
  return { spans, leaves, state, verdict: traceVerdict(trace, spans, leaves, policy, 'judge') }
}

// One Formatting Errors leaf under step1; everything else judged and passing.
const oneFailure = [
  v('llmA', 'fail', 'Formatting Errors'),
  v('toolA', 'pass'),
  v('llmB', 'pass'),
  v('toolB', 'pass'),
  v('llmC', 'pass'),
  v('toolC', 'pass'),
]

describe('existential (default)', () => {
  test('a failing leaf fails every ancestor and the trace', () => {
    const r = run(oneFailure)
    expect(r.state).toMatchObject({ llmA: 'fail', step1: 'fail', root: 'fail', step2: 'pass', step3: 'pass' })
    expect(r.verdict.outcome).toBe('fail')
    expect(r.verdict.reason).toMatch(
      /^1 failing span found by the judge and the detectors under the existential policy — span 3\/10 llm:llm \(id llmA\) — Formatting Errors/,
    )
    expect(r.leaves.map((l) => [l.spanId, l.category, l.propagates, l.path.join(' › ')])).toEqual([
      ['llmA', 'Formatting Errors', true, 'CodeAgent.run › Step 1 › llm'],
    ])
    expect(r.spans.find((s) => s.spanId === 'root')?.propagatedCategories).toEqual(['Formatting Errors'])
  })

  test('all passing → pass; nothing judged → pass with nothing judged', () => {
    expect(run(oneFailure.map((x) => v(x.spanId!, 'pass'))).verdict).toMatchObject({ outcome: 'pass', pass: true })
    const none = run([])
    expect(none.state.root).toBe('unjudged')
    expect(none.verdict).toMatchObject({ outcome: 'pass', reason: expect.stringContaining('no failing span') })
  })

  test('an unjudgeable leaf makes the trace unjudgeable (never a pass), unless something fails', () => {
    const unj = oneFailure.map((x) =>
      x.spanId === 'llmA' ? v('llmA', 'pass') : x.spanId === 'toolC' ? v('toolC', 'unjudgeable') : x,
    )
    const r = run(unj)
    expect(r.state).toMatchObject({ toolC: 'unjudgeable', step3: 'unjudgeable', root: 'unjudgeable', step1: 'pass' })
    expect(r.verdict).toMatchObject({ outcome: 'unjudgeable', pass: false })
    expect(r.verdict.reason).toContain('tool:search id toolC')
    expect(run([...oneFailure.filter((x) => x.spanId !== 'toolC'), v('toolC', 'unjudgeable')]).verdict.outcome).toBe(
      'fail',
    )
  })
})

describe('threshold', () => {
  test('t = 0.3: step1 (1/2 failing) fails, and the root (1/3 failing children) fails', () => {
    const r = run(oneFailure, { type: 'threshold', threshold: 0.3 })
    expect(r.state).toMatchObject({ step1: 'fail', root: 'fail' })
    expect(r.verdict.outcome).toBe('fail')
  })

  test('t = 0.4: step1 fails but the root (1/3 ≤ 0.4) passes; the leaf is still reported, not propagating', () => {
    const r = run(oneFailure, { type: 'threshold', threshold: 0.4 })
    expect(r.state).toMatchObject({ llmA: 'fail', step1: 'fail', root: 'pass' })
    expect(r.verdict).toMatchObject({ outcome: 'pass', pass: true })
    expect(r.verdict.reason).toMatch(
      /^1 span failed but none reached the root under the threshold:0\.4 policy — span 3\/10 llm:llm \(id llmA\)/,
    )
    expect(r.leaves[0]).toMatchObject({ spanId: 'llmA', propagates: false })
  })

  test('t = 0.5: a half-failing step does not exceed the share, so nothing propagates', () => {
    const r = run(oneFailure, { type: 'threshold', threshold: 0.5 })
    expect(r.state).toMatchObject({ llmA: 'fail', step1: 'pass', root: 'pass' })
  })

  test('unjudged children are not in the share: a lone judged failing child fails its parent', () => {
    const r = run([v('llmC', 'fail', 'Goal Deviation')], { type: 'threshold', threshold: 0.9 })
    expect(r.state).toMatchObject({ toolC: 'unjudged', step3: 'fail', step1: 'unjudged', root: 'fail' })
  })
})

describe('category', () => {
  test('only listed categories propagate', () => {
    const unlisted = run(oneFailure, { type: 'category', categories: ['Rate Limiting', 'Service Errors'] })
    expect(unlisted.state).toMatchObject({ llmA: 'fail', step1: 'pass', root: 'pass' })
    expect(unlisted.verdict.outcome).toBe('pass')
    expect(unlisted.leaves[0].propagates).toBe(false)

    const listed = run(oneFailure, { type: 'category', categories: ['Formatting Errors'] })
    expect(listed.state).toMatchObject({ step1: 'fail', root: 'fail' })
    expect(listed.verdict.reason).toContain('under the category:Formatting Errors policy')
  })

  test('a failure without a category (a low aspect score alone) does not propagate', () => {
    const aspectOnly = oneFailure.map((x) => (x.spanId === 'llmA' ? v('llmA', 'fail') : x))
    expect(run(aspectOnly, { type: 'category', categories: ['Formatting Errors'] }).verdict.outcome).toBe('pass')
    expect(run(aspectOnly).verdict.outcome).toBe('fail')
  })

  test('with two failing leaves, only the listed one is named as reaching the root', () => {
    const two = [...oneFailure.filter((x) => x.spanId !== 'toolB'), v('toolB', 'fail', 'Rate Limiting')]
    const r = run(two, { type: 'category', categories: ['Rate Limiting'] })
    expect(r.state).toMatchObject({ step1: 'pass', step2: 'fail', root: 'fail' })
    expect(r.leaves.map((l) => [l.spanId, l.propagates])).toEqual([
      ['llmA', false],
      ['toolB', true],
    ])
    expect(r.verdict.reason).toContain('(id toolB) — Rate Limiting')
    expect(r.verdict.reason).not.toContain('(id llmA)')
  })
})

test('a parent with a failing verdict of its own fails whatever its children do', () => {
  const r = run(
    [...oneFailure.filter((x) => x.spanId !== 'llmA'), v('llmA', 'pass'), v('step2', 'fail', 'Timeout Issues')],
    { type: 'category', categories: ['Rate Limiting'] },
  )
  expect(r.state.step2).toBe('fail')
  expect(r.leaves.map((l) => l.spanId)).toEqual(['step2'])
})

test('describePolicy prints the CLI spelling', () => {
  expect(
    [
      'existential',
      { type: 'threshold', threshold: 0.3 },
      { type: 'category', categories: ['Rate Limiting', 'Service Errors'] },
    ].map((p) => describePolicy(p as PropagationPolicy)),
  ).toEqual(['existential', 'threshold:0.3', 'category:Rate Limiting,Service Errors'])
})
