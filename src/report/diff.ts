// Verdict diff of two runs: per test › metric › span, flips, score changes, new and removed assertions, cost.
import type { Report } from '../verdict/report'
import type { TrialsSummary } from '../verdict/trials'
import type { VerdictOutcome } from '../verdict/verdict'

/** One assertion of one side, the unit a diff compares. */
export interface DiffItem {
  /** `test › metric` or `test › metric › span`; a repeated metric in one test gets `#2`, `#3` … */
  key: string
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
 * The assertions of a report: one item per verdict, keyed by `file › test name › metric (› span)`.
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
  for (const test of report.tests) {
    for (const v of test.verdicts) {
      const base = [`${test.file} › ${test.name}`, v.metric, ...(v.spanId ? [v.spanId] : [])].join(' › ')
      const n = (seen.get(base) ?? 0) + 1
      seen.set(base, n)
      items.push({
        key: n === 1 ? base : `${base} #${n}`,
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
  return {
    base: base.label,
    head: head.label,
    flipped: flipped.sort(byKey),
    scoreChanges: scoreChanges.sort(byKey),
    added: head.items.filter((i) => !before.has(i.key)).sort(byKey),
    removed: base.items.filter((i) => !after.has(i.key)).sort(byKey),
    tokens: { base: base.items.reduce((s, i) => s + i.tokens, 0), head: head.items.reduce((s, i) => s + i.tokens, 0) },
    costUsd: { base: sumCost(base.items), head: sumCost(head.items) },
    regressions: flipped.filter((f) => f.label === 'regression').length,
  }
}
