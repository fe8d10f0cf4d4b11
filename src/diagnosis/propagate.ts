// Verdicts up the span tree under a propagation policy.
import type { Trace } from '../trace/trace'
import type { Verdict } from '../verdict/verdict'
import type { DiagnosisSpan, PropagationPolicy, SpanState } from './types'

/** The policy in its object form. */
type NormalizedPolicy = Exclude<PropagationPolicy, 'existential'>

/**
 * The object form of a policy (`'existential'` → `{ type: 'existential' }`).
 *
 * @example
 * normalizePolicy('existential') // { type: 'existential' }
 */
export function normalizePolicy(policy: PropagationPolicy | undefined): NormalizedPolicy {
  return policy === undefined || policy === 'existential' ? { type: 'existential' } : policy
}

/**
 * A policy as people write it on the command line: `existential`, `threshold:0.3`, `category:A,B`.
 *
 * @example
 * describePolicy({ type: 'threshold', threshold: 0.3 }) // 'threshold:0.3'
 */
export function describePolicy(policy: PropagationPolicy | undefined): string {
  const p = normalizePolicy(policy)
  if (p.type === 'threshold') return `threshold:${p.threshold}`
  if (p.type === 'category') return `category:${p.categories.join(',')}`
  return 'existential'
}

/**
 * A span's own state from its verdicts: any fail → fail; else any unjudgeable → unjudgeable; else any
 * pass → pass; none → unjudged.
 *
 * @example
 * ownState([{ outcome: 'pass' }, { outcome: 'unjudgeable' }] as Verdict[]) // 'unjudgeable'
 */
export function ownState(verdicts: readonly Verdict[]): SpanState {
  if (verdicts.some((v) => v.outcome === 'fail')) return 'fail'
  if (verdicts.some((v) => v.outcome === 'unjudgeable')) return 'unjudgeable'
  return verdicts.length > 0 ? 'pass' : 'unjudged'
}

/**
 * Every span's own and propagated state, in depth-first order. Children are settled before parents:
 * a parent fails when it has a failing verdict itself or when its children fail it under the policy
 * (existential: any failing child; threshold: failing share of pass/fail children > t; category: a
 * child passes up a listed category). Otherwise a parent is unjudgeable when it or a child is, pass
 * when anything at or below it was judged, and unjudged when nothing was.
 *
 * @example
 * const spans = propagate(trace, verdictsBySpan, { type: 'threshold', threshold: 0.3 })
 * spans.filter((s) => s.parentId === null).map((s) => s.state) // ['fail']
 */
export function propagate(
  trace: Trace,
  verdictsBySpan: ReadonlyMap<string, readonly Verdict[]>,
  policy?: PropagationPolicy,
): DiagnosisSpan[] {
  const p = normalizePolicy(policy)
  const listed = p.type === 'category' ? new Set<string>(p.categories) : undefined
  const state = new Map<string, SpanState>()
  const cats = new Map<string, string[]>()
  const out = new Map<string, DiagnosisSpan>()
  for (let i = trace.spans.length - 1; i >= 0; i--) {
    const span = trace.spans[i]
    const verdicts = [...(verdictsBySpan.get(span.id) ?? [])]
    const own = ownState(verdicts)
    const children = trace.children(span.id)
    const childStates = children.map((c) => state.get(c.id)!)
    const ownCats =
      own === 'fail' ? unique(verdicts.filter((v) => v.outcome === 'fail' && v.category).map((v) => v.category!)) : []

    let childFails: boolean
    let fromChildren: string[]
    if (p.type === 'category') {
      fromChildren = unique(children.flatMap((c) => cats.get(c.id)!))
      childFails = fromChildren.length > 0
    } else {
      const failing = children.filter((_, k) => childStates[k] === 'fail')
      const judged = childStates.filter((s) => s === 'fail' || s === 'pass').length
      childFails = p.type === 'threshold' ? judged > 0 && failing.length / judged > p.threshold : failing.length > 0
      fromChildren = childFails ? unique(failing.flatMap((c) => cats.get(c.id)!)) : []
    }
    const mine = listed ? ownCats.filter((c) => listed.has(c)) : ownCats
    const propagated = unique([...mine, ...fromChildren])

    let settled: SpanState
    if (own === 'fail' || childFails) settled = 'fail'
    else if (own === 'unjudgeable' || childStates.includes('unjudgeable')) settled = 'unjudgeable'
    else if (own === 'pass' || childStates.some((s) => s === 'pass' || s === 'fail')) settled = 'pass'
    else settled = 'unjudged'

    state.set(span.id, settled)
    cats.set(span.id, propagated)
    out.set(span.id, {
      spanId: span.id,
      // Orphans are roots here: their parent is not in the trace.
      parentId: trace.parent(span.id)?.id ?? null,
      name: span.name,
      kind: span.kind,
      depth: trace.depth(span.id),
      own,
      state: settled,
      propagatedCategories: propagated,
      verdicts,
    })
  }
  return trace.spans.map((s) => out.get(s.id)!)
}

function unique(list: string[]): string[] {
  return [...new Set(list)]
}
