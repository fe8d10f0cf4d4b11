// From propagated spans to the localization result: failing leaves, category counts, the trace verdict.
import type { Trace } from '../trace/trace'
import type { Verdict } from '../verdict/verdict'
import { metricLabel } from './format'
import { describePolicy, normalizePolicy } from './propagate'
import { TRAIL_CATEGORIES, type ErrorCategory } from '../taxonomy'
import type { Diagnosis, DiagnosisSpan, FailingLeaf, PropagationPolicy, TraceVerdict } from './types'

/** Failing leaves named in the trace verdict's sentence; the rest are counted. */
const NAMED_IN_REASON = 2

/**
 * The spans where a failure was localized (own state fail), in depth-first order, each with the verdict
 * that explains it best: a detector finding or the judge's category first, then the lowest aspect.
 *
 * @example
 * failingLeaves(trace, spans, 'existential').map(formatFailingLeaf)
 */
export function failingLeaves(
  trace: Trace,
  spans: readonly DiagnosisSpan[],
  policy?: PropagationPolicy,
): FailingLeaf[] {
  const p = normalizePolicy(policy)
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const out: FailingLeaf[] = []
  spans.forEach((s, index) => {
    if (s.own !== 'fail') return
    const failed = s.verdicts.filter((v) => v.outcome === 'fail')
    const categories = [...new Set(failed.filter((v) => v.category).map((v) => v.category!))]
    const primary = primaryVerdict(s.verdicts)
    const category = categories[0]
    const categoryVerdict = failed.find((v) => v.category === category)
    const ancestorsFail = trace.ancestors(s.spanId).every((a) => byId.get(a.id)?.state === 'fail')
    const propagates =
      ancestorsFail &&
      (p.type !== 'category' || categories.some((c) => (p.categories as readonly string[]).includes(c)))
    out.push({
      spanId: s.spanId,
      kind: s.kind,
      name: s.name,
      path: trace.path(s.spanId),
      position: index + 1,
      of: spans.length,
      ...(category ? { category } : {}),
      categories,
      metric: primary.metric,
      // Detector findings are certain, not scored: no figure to show.
      score: primary.scale === 'likert5' ? primary.score : null,
      raw: primary.scale === 'likert5' ? primary.raw : null,
      reason: (categoryVerdict ?? primary).reason,
      ...((categoryVerdict?.evidence ?? primary.evidence)
        ? { evidence: categoryVerdict?.evidence ?? primary.evidence }
        : {}),
      propagates,
      verdictIds: failed.map((v) => v.id).filter((id): id is string => id !== undefined),
    })
  })
  return out
}

/** Detector findings first (they are certain), then the lowest failing aspect, then the category verdict. */
function primaryVerdict(verdicts: readonly Verdict[]): Verdict {
  const failed = verdicts.filter((v) => v.outcome === 'fail')
  const detector = failed.find((v) => v.metric.startsWith('detector:'))
  if (detector) return detector
  const aspects = verdicts.filter((v) => v.scale === 'likert5' && v.score !== null).sort((a, b) => a.score! - b.score!)
  const lowFail = aspects.find((v) => v.outcome === 'fail')
  // A category alone fails the span: show it with the weakest aspect as the figure.
  return lowFail ?? aspects[0] ?? failed[0]
}

/**
 * Failing (span, category) pairs counted per category, detectors and judge together.
 *
 * @example
 * countCategories(spans) // { 'Formatting Errors': 2, 'Resource Not Found': 1 }
 */
export function countCategories(spans: readonly DiagnosisSpan[]): Diagnosis['categories'] {
  const counts: Partial<Record<ErrorCategory, number>> = {}
  for (const s of spans) {
    const cats = new Set(s.verdicts.filter((v) => v.outcome === 'fail' && v.category).map((v) => v.category!))
    for (const c of cats)
      if ((TRAIL_CATEGORIES as readonly string[]).includes(c))
        counts[c as ErrorCategory] = (counts[c as ErrorCategory] ?? 0) + 1
  }
  return counts
}

/** A leaf in a few words for the verdict sentence; the full line is `formatFailingLeaf`. */
function shortLeaf(leaf: FailingLeaf): string {
  const figure = typeof leaf.raw === 'number' && leaf.score !== null ? ` ${leaf.raw}/5` : ''
  const what = [leaf.category, `${metricLabel(leaf.metric)}${figure}`].filter(Boolean).join(', ')
  return `span ${leaf.position}/${leaf.of} ${leaf.kind}:${leaf.name} (id ${leaf.spanId}) — ${what}`
}

/**
 * The trace's verdict from its roots, and one sentence saying why, naming the first failing leaves.
 *
 * @example
 * traceVerdict(trace, spans, leaves, 'existential', 'judge').reason
 * // '3 failing spans found by … under the existential policy — span 7/15 llm:LiteLLMModel.__call__ (id 4a1f…) — Formatting Errors, instruction following 2/5; …; and 1 more'
 */
export function traceVerdict(
  trace: Trace,
  spans: readonly DiagnosisSpan[],
  leaves: readonly FailingLeaf[],
  policy: PropagationPolicy | undefined,
  mode: 'judge' | 'deterministic',
): TraceVerdict {
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const rootStates = trace.roots.map((r) => byId.get(r.id)?.state ?? 'unjudged')
  const outcome = rootStates.includes('fail') ? 'fail' : rootStates.includes('unjudgeable') ? 'unjudgeable' : 'pass'
  const policyText = `the ${describePolicy(policy)} policy`
  const who = mode === 'judge' ? 'the judge and the detectors' : 'the deterministic detectors (no judge configured)'
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  const named = (list: readonly FailingLeaf[]) => {
    const shown = list.slice(0, NAMED_IN_REASON).map(shortLeaf).join('; ')
    return list.length > NAMED_IN_REASON ? `${shown}; and ${list.length - NAMED_IN_REASON} more` : shown
  }
  if (outcome === 'fail') {
    const reaching = leaves.filter((l) => l.propagates)
    return {
      outcome,
      pass: false,
      reason: `${plural(leaves.length, 'failing span')} found by ${who} under ${policyText} — ${named(reaching.length > 0 ? reaching : leaves)}`,
    }
  }
  if (outcome === 'unjudgeable') {
    const missing = spans.filter((s) => s.own === 'unjudgeable')
    const cause = missing[0]?.verdicts.find((v) => v.outcome === 'unjudgeable')?.reason ?? 'no verdict'
    return {
      outcome,
      pass: false,
      reason: `no failing span, but ${plural(missing.length, 'span')} could not be judged (first: ${missing[0]?.kind}:${missing[0]?.name} id ${missing[0]?.spanId} — ${cause})`,
    }
  }
  if (leaves.length > 0) {
    return {
      outcome,
      pass: true,
      reason: `${plural(leaves.length, 'span')} failed but none reached the root under ${policyText} — ${named(leaves)}`,
    }
  }
  const judged = spans.filter((s) => s.own === 'pass').length
  return {
    outcome,
    pass: true,
    reason: `no failing span found by ${who} (${plural(judged, 'span')} judged, ${plural(trace.size, 'span')} in the trace)`,
  }
}
