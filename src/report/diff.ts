// Verdict diff of two runs: per test › matcher › span › metric, flips, score changes, new and removed assertions, cost.
import type { Report, ReportTest } from '../verdict/report'
import type { TrialsSummary } from '../verdict/trials'
import type { VerdictOutcome } from '../verdict/verdict'

/** One assertion of one side, the unit a diff compares. */
export interface DiffItem {
  /** `test › matcher › metric`, `test › matcher › span › metric`, or `test`; a repeat in one test gets `#2`, `#3` … */
  key: string
  /** The test the item belongs to (its key), when the side knows it. */
  test?: string
  /** `test`: the test's own outcome (pass or fail), which a verdict flip of the same test already tells. */
  scope?: 'test'
  /** Unknown when the side cannot tell (e.g. an old cassette with no threshold for the metric). */
  outcome?: VerdictOutcome
  /** 0..1 from reports; the judge's raw score from cassettes. */
  score: number | null
  reason?: string
  tokens: number
  costUsd: number | null
  trials?: Pick<TrialsSummary, 'k' | 'passes' | 'rate' | 'lower' | 'upper'>
}

/** A side of the diff: where it came from and its assertions. */
export interface DiffSide {
  label: string
  items: DiffItem[]
}

/** regression: pass → fail/unjudgeable; fix: back to pass; changed: fail ↔ unjudgeable; drop/rise: score only; noise: within both trial intervals. */
export type ChangeLabel = 'regression' | 'fix' | 'changed' | 'noise' | 'drop' | 'rise'

export interface DiffChange {
  key: string
  base: DiffItem
  head: DiffItem
  label: ChangeLabel
}

export interface VerdictDiff {
  base: string
  head: string
  flipped: DiffChange[]
  scoreChanges: DiffChange[]
  added: DiffItem[]
  removed: DiffItem[]
  tokens: { base: number; head: number }
  costUsd: { base: number | null; head: number | null }
  /** Flips from pass to fail or unjudgeable that are not noise. */
  regressions: number
}

/**
 * Span labels of one test, by span id: `1.2.3 tool:search` (positional id, kind, name). Span ids are
 * random per capture, so two runs of the same agent only meet on position. Reports written before
 * positions were stored get them from the span list's own order (the trace's depth-first order).
 */
function spanLabels(test: ReportTest): Map<string, string> {
  const labels = new Map<string, string>()
  for (const trace of test.traces ?? []) {
    const ids = new Set(trace.spans.map((s) => s.id))
    const derived = new Map<string, string>()
    const kids = new Map<string, number>()
    for (const span of trace.spans) {
      const parent = span.parentId !== null && ids.has(span.parentId) ? span.parentId : ''
      const n = (kids.get(parent) ?? 0) + 1
      kids.set(parent, n)
      const prefix = parent === '' ? '' : `${derived.get(parent) ?? '?'}.`
      derived.set(span.id, `${prefix}${n}`)
      labels.set(span.id, `${span.position ?? derived.get(span.id)} ${span.kind}:${span.name}`)
    }
  }
  return labels
}

const TEST_OUTCOME = { pass: 'pass', fail: 'fail' } as const

/**
 * The assertions of a report: one item per verdict, keyed by `file › test name › matcher (› span) ›
 * metric`, where a span is named by its positional id, kind and name (never its random id); one item
 * per assertion that gave no verdict (`› matcher`); and one per test that passed or failed
 * (`file › test name`), so a test that now fails before any verdict (a replay miss, a thrown agent)
 * is a regression too.
 * Tokens and cost are those recorded on the verdict whether it was judged or replayed: the cost of
 * judging the suite, so a fully replayed run compares with a live one.
 *
 * @example
 * itemsFromReport(await readReport('agent-verdict-report.json'))
 */
export function itemsFromReport(report: Report): DiffItem[] {
  const items: DiffItem[] = []
  // Counted over the whole report, not per test: two tests of one file can share a full name (`describe('a') >
  // test('b')` and `test('a > b')`, a static `test.each` title), and one key for both merged them — a regression
  // of the first was compared with the second's verdict and hidden.
  const seen = new Map<string, number>()
  const numbered = (base: string) => {
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return n === 1 ? base : `${base} #${n}`
  }
  for (const test of report.tests) {
    const testKey = numbered(`${test.file} › ${test.name}`)
    const outcome = TEST_OUTCOME[test.state as keyof typeof TEST_OUTCOME]
    if (outcome)
      items.push({
        key: testKey,
        test: testKey,
        scope: 'test',
        outcome,
        score: null,
        ...(test.error ? { reason: test.error } : {}),
        tokens: 0,
        costUsd: 0,
      })
    const labels = spanLabels(test)
    const withVerdicts = new Set<string>()
    for (const v of test.verdicts) {
      if (v.assertion) withVerdicts.add(v.assertion.id)
      const span = v.spanId === undefined ? [] : [labels.get(v.spanId) ?? v.spanId]
      const matcher = v.assertion ? [v.assertion.matcher] : []
      items.push({
        key: numbered([testKey, ...matcher, ...span, v.metric].join(' › ')),
        test: testKey,
        outcome: v.outcome,
        score: v.trials ? v.trials.rate : v.score,
        reason: v.reason,
        tokens: v.judge ? v.judge.tokens.input + v.judge.tokens.output : 0,
        costUsd: v.judge?.costUsd ?? null,
        ...(v.trials
          ? {
              trials: {
                k: v.trials.k,
                passes: v.trials.passes,
                rate: v.trials.rate,
                lower: v.trials.lower,
                upper: v.trials.upper,
              },
            }
          : {}),
      })
    }
    // Assertions with no verdict (a budget, a tool-call check, a matcher that threw before judging).
    for (const a of test.assertions ?? []) {
      if (withVerdicts.has(a.id)) continue
      items.push({
        key: numbered(`${testKey} › ${a.negated ? 'not.' : ''}${a.matcher}`),
        test: testKey,
        outcome: a.passed ? 'pass' : 'fail',
        score: null,
        tokens: 0,
        costUsd: 0,
      })
    }
  }
  return items
}

// Both sides ran trials and each side's rate lies inside the other's interval: the change is within what chance gives.
function isNoise(base: DiffItem, head: DiffItem): boolean {
  const a = base.trials
  const b = head.trials
  if (!a || !b) return false
  return a.rate >= b.lower && a.rate <= b.upper && b.rate >= a.lower && b.rate <= a.upper
}

function sumCost(items: readonly DiffItem[]): number | null {
  const known = items.filter((i) => i.costUsd !== null)
  if (known.length === 0) return items.some((i) => i.tokens > 0) ? null : 0
  return Math.round(known.reduce((s, i) => s + (i.costUsd ?? 0), 0) * 1e8) / 1e8
}

/** New or removed items, without a test's own item when items inside that test already show it. */
function alone(items: DiffItem[]): DiffItem[] {
  const inside = new Set(items.filter((i) => i.scope !== 'test').map((i) => i.test))
  return items.filter((i) => i.scope !== 'test' || !inside.has(i.test))
}

/**
 * Compares two sides key by key. A change of outcome is a flip (pass → fail/unjudgeable is a
 * regression, the reverse a fix); a change of score with the same outcome is a drop or a rise; with
 * trials on both sides, a change inside both intervals is labelled noise instead.
 *
 * @example
 * const d = diffVerdicts({ label: 'main', items: itemsFromReport(base) }, { label: 'PR', items: itemsFromReport(head) })
 * d.regressions // 0
 */
export function diffVerdicts(base: DiffSide, head: DiffSide): VerdictDiff {
  const before = new Map(base.items.map((i) => [i.key, i]))
  const after = new Map(head.items.map((i) => [i.key, i]))
  const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key)
  const flipped: DiffChange[] = []
  const scoreChanges: DiffChange[] = []
  for (const h of head.items) {
    const b = before.get(h.key)
    if (!b) continue
    const noise = isNoise(b, h)
    if (b.outcome !== undefined && h.outcome !== undefined && b.outcome !== h.outcome) {
      const label: ChangeLabel = noise
        ? 'noise'
        : b.outcome === 'pass'
          ? 'regression'
          : h.outcome === 'pass'
            ? 'fix'
            : 'changed'
      flipped.push({ key: h.key, base: b, head: h, label })
    } else if (b.score !== null && h.score !== null && Math.abs(b.score - h.score) > 1e-9) {
      scoreChanges.push({ key: h.key, base: b, head: h, label: noise ? 'noise' : h.score < b.score ? 'drop' : 'rise' })
    }
  }
  // A test that failed because a verdict flipped is one regression, named by the verdict (and its span); the
  // test's own flip counts only when nothing inside it tells why (it failed before any verdict).
  const explained = new Set(flipped.filter((f) => f.head.scope !== 'test').map((f) => `${f.head.test} ${f.label}`))
  const shown = flipped.filter((f) => f.head.scope !== 'test' || !explained.has(`${f.head.test} ${f.label}`))
  return {
    base: base.label,
    head: head.label,
    flipped: shown.sort(byKey),
    scoreChanges: scoreChanges.sort(byKey),
    added: alone(head.items.filter((i) => !before.has(i.key))).sort(byKey),
    removed: alone(base.items.filter((i) => !after.has(i.key))).sort(byKey),
    tokens: { base: base.items.reduce((s, i) => s + i.tokens, 0), head: head.items.reduce((s, i) => s + i.tokens, 0) },
    costUsd: { base: sumCost(base.items), head: sumCost(head.items) },
    regressions: shown.filter((f) => f.label === 'regression').length,
  }
}
