// Small pure helpers shared by the terminal, HTML and GitHub renderers.
import type { ReportTest, ReportTotals, ReportTrace } from '../verdict/report'
import { formatScoreVsMin, scoreOnScale } from '../verdict/score'
import { shortSpanId } from '../verdict/text'
import type { Verdict, VerdictOutcome } from '../verdict/verdict'

export type ReportSpan = ReportTrace['spans'][number]

export const OUTCOME_SYMBOL: Record<VerdictOutcome, string> = { pass: '✓', fail: '✗', unjudgeable: '?' }
export const STATE_SYMBOL: Record<ReportTest['state'], string> = { pass: '✓', fail: '✗', skip: '↓', pending: '…' }

/** The score on the metric's own scale (`2/5`, `0/1`, `0.50`), `n/a` without one. */
export function formatScore(v: Verdict): string {
  return scoreOnScale(v).score
}

/** `2/5, min 4` — the score against the threshold, in the unit the failure message uses too. */
export function formatScoreVsThreshold(v: Verdict): string {
  return v.score === null ? 'n/a' : formatScoreVsMin(v)
}

/** `$0.0123`, or `n/a` when no cost is known. */
export function formatCost(costUsd: number | null): string {
  return costUsd === null ? 'n/a' : `$${costUsd.toFixed(4)}`
}

/**
 * `12,345`: an integer with thousands separators. Written out rather than `toLocaleString`, whose first
 * call in a process loads ICU's number formatting (about 20 ms, measured at the end of every run).
 */
export function formatInt(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US')
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',')
  return n < 0 ? `-${digits}` : digits
}

/** Names from the root down to the span; cycles in a malformed trace stop the walk. */
export function spanPath(trace: ReportTrace, spanId: string, index = indexSpans(trace)): string[] {
  const names: string[] = []
  const seen = new Set<string>()
  for (let s = index.get(spanId); s && !seen.has(s.id); s = s.parentId === null ? undefined : index.get(s.parentId)) {
    seen.add(s.id)
    names.unshift(s.name)
  }
  return names
}

export function indexSpans(trace: ReportTrace): Map<string, ReportSpan> {
  return new Map(trace.spans.map((s) => [s.id, s]))
}

/** Long paths keep the root and the three innermost names, which is where a reader looks first. */
export function formatPath(names: readonly string[]): string {
  const shown = names.length > 5 ? [names[0], '…', ...names.slice(-3)] : names
  return shown.join(' › ')
}

/** `tool:search (id 4a1f9c2e…, path root › Step 4 › search)`, the way trace matchers name a span. */
export function describeSpan(span: ReportSpan, path: readonly string[]): string {
  return `${span.kind}:${span.name} (id ${shortSpanId(span.id)}, path ${formatPath(path)})`
}

/** The verdicts that judged this span: listed in `verdictIds`, or span-level with its `spanId`. */
export function verdictsOfSpan(span: ReportSpan, verdicts: readonly Verdict[]): Verdict[] {
  const ids = new Set(span.verdictIds)
  return verdicts.filter((v) => (v.id !== undefined && ids.has(v.id)) || (v.level === 'span' && v.spanId === span.id))
}

/** True when a span-level verdict's span is part of one of the test's traces (shown under that trace). */
export function isInTraces(v: Verdict, traces: readonly ReportTrace[] | undefined): boolean {
  if (!traces || v.level !== 'span') return false
  return traces.some((t) =>
    t.spans.some((s) => s.id === v.spanId || (v.id !== undefined && s.verdictIds.includes(v.id))),
  )
}

/** `Tool Output Misinterpretation (reasoning-integrity 2/5)` or just the metric when no category. */
export function verdictLabel(v: Verdict): string {
  const score = v.outcome === 'unjudgeable' ? 'unjudgeable' : formatScore(v)
  return v.category ? `${v.category} (${v.metric} ${score})` : `${v.metric} ${score}`
}

/** Removes ANSI colour codes (Vitest and Jest error messages carry them). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
}

/** What a trace's span tree shows, counted once for every renderer. */
export interface TraceCounts {
  spans: number
  /** Spans with a verdict of their own the judge judged `fail` (where the failure was localized). */
  failing: number
  /** Spans whose own verdicts include an unjudgeable one and none failing. */
  unjudgeable: number
  /** Spans marked failed only by propagation from a failing descendant (ancestors of `failing`). */
  propagated: number
  /** Span verdicts the judge passed. */
  passedVerdicts: number
}

/**
 * The one count of a trace's spans used by the terminal, HTML and GitHub renderers.
 *
 * @example
 * traceCounts(trace, test.verdicts).failing // 1, however many ancestors propagation marked
 */
export function traceCounts(trace: ReportTrace, verdicts: readonly Verdict[]): TraceCounts {
  const c: TraceCounts = { spans: trace.spans.length, failing: 0, unjudgeable: 0, propagated: 0, passedVerdicts: 0 }
  for (const span of trace.spans) {
    const own = verdictsOfSpan(span, verdicts)
    c.passedVerdicts += own.filter((v) => v.outcome === 'pass').length
    if (own.some((v) => v.outcome === 'fail')) c.failing++
    else if (own.some((v) => v.outcome === 'unjudgeable')) c.unjudgeable++
    else if (span.failed) c.propagated++
  }
  return c
}

/** `trace 21f0c6c8… · 32 spans · 6 failing · 9 above them by propagation · 2 span verdicts passed`. */
export function traceSummary(trace: ReportTrace, verdicts: readonly Verdict[]): string {
  const c = traceCounts(trace, verdicts)
  const parts = [`trace ${shortSpanId(trace.id)}`, `${c.spans} spans`, `${c.failing} failing`]
  if (c.propagated > 0) parts.push(`${c.propagated} above them by propagation`)
  if (c.unjudgeable > 0) parts.push(`${c.unjudgeable} unjudgeable`)
  if (c.passedVerdicts > 0)
    parts.push(`${c.passedVerdicts} span ${c.passedVerdicts === 1 ? 'verdict' : 'verdicts'} passed`)
  return parts.join(' · ')
}

/**
 * The run's totals as label/value pairs, in the order every renderer shows them. `failed tests` counts the
 * tests the runner failed (also before any verdict, as the runner does); `failed` counts failed
 * assertions (a passing `.not` is none); `judge calls` is every request, with retries and re-asks named.
 *
 * @example
 * totalsParts(report.run.totals).map(([k, v]) => `${k} ${v}`).join(' · ')
 */
export function totalsParts(t: ReportTotals): Array<[string, string]> {
  const extra = [
    t.judgeRetries > 0 ? `${formatInt(t.judgeRetries)} ${t.judgeRetries === 1 ? 'retry' : 'retries'}` : '',
    t.judgeReasks > 0 ? `${formatInt(t.judgeReasks)} ${t.judgeReasks === 1 ? 're-ask' : 're-asks'}` : '',
  ].filter(Boolean)
  return [
    ['tests', formatInt(t.tests)],
    ['failed tests', formatInt(t.failedTests)],
    ['assertions', formatInt(t.assertions)],
    ['failed', formatInt(t.failed)],
    ['verdicts', formatInt(t.verdicts)],
    ['judged fail', formatInt(t.judgedFail)],
    ['unjudgeable', formatInt(t.unjudgeable)],
    ['judge calls', `${formatInt(t.judgeCalls)}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`],
    ['replayed', formatInt(t.cachedCalls)],
    ['tokens', formatInt(t.tokens)],
    ['cost', formatCost(t.costUsd)],
  ]
}

/**
 * The run-wide judge limit's line (peak in flight, waits, 429s) when `agent-verdict/global-setup`
 * runs a coordinator in this process; '' otherwise. Read through a global so reporters need no judge code.
 *
 * @example
 * runLimitSummary() // 'judge limit (run-wide): openai:gpt-4.1 8 — peak 8 in flight, 200 calls, 192 waited, 0 × 429'
 */
export function runLimitSummary(): string {
  const summary = (globalThis as Record<symbol, unknown>)[Symbol.for('agent-verdict.run-limit-summary')]
  return typeof summary === 'function' ? String(summary() ?? '') : ''
}
