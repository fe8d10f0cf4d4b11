// Markdown for `$GITHUB_STEP_SUMMARY`: totals table + failing verdicts, kept under GitHub's 1 MiB cap.
import { appendFile, stat } from 'node:fs/promises'
import type { Report, ReportTest } from '../verdict/report'
import { assertionStatus, judgedNote } from '../verdict/assertion'
import { oneLineExcerpt, shortSpanId } from '../verdict/text'
import type { Verdict, VerdictAssertion } from '../verdict/verdict'
import {
  OUTCOME_SYMBOL,
  describeSpan,
  formatInt,
  formatScoreVsThreshold,
  indexSpans,
  spanPath,
  stripAnsi,
  totalsParts,
} from './format'

/** GitHub rejects step summaries over 1 MiB; stay clearly below it. */
export const GITHUB_SUMMARY_LIMIT = 1024 * 1024
const DEFAULT_BUDGET = 1_000_000
const MAX_REASON = 500

export interface GithubSummaryOptions {
  /** Byte budget of the Markdown. Default 1,000,000. */
  maxBytes?: number
  /** Name of the artifact, for the "see …" pointer when rows are cut. */
  artifactName?: string
}

/** Escapes text for a Markdown table cell: no pipes, no newlines, no raw HTML, no markup. */
export function escapeMarkdownCell(text: string): string {
  return oneLineExcerpt(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#~])/g, '\\$1')
}

/**
 * Renders the step summary. The verdicts of failed assertions are listed until the byte budget is
 * reached; the rest is counted with a pointer to the JSON artifact.
 *
 * @example
 * await appendFile(process.env.GITHUB_STEP_SUMMARY!, renderGithubSummary(report))
 */
export function renderGithubSummary(report: Report, options: GithubSummaryOptions = {}): string {
  const budget = options.maxBytes ?? DEFAULT_BUDGET
  const t = report.run.totals
  const withVerdicts = report.tests.filter((x) => x.verdicts.length > 0).length
  const parts = totalsParts(t)
  const head = [
    '## agent-verdict',
    '',
    `| ${parts.map(([k]) => k).join(' | ')} |`,
    `|${parts.map(() => '---:').join('|')}|`,
    `| ${parts.map(([, v]) => escapeMarkdownCell(v)).join(' | ')} |`,
    '',
    `${withVerdicts} ${withVerdicts === 1 ? 'test' : 'tests'} with verdicts · judge ${escapeMarkdownCell(report.run.judge ?? 'none')} · mode ${escapeMarkdownCell(report.run.mode)}`,
    '',
  ].join('\n')
  // Only failed assertions are listed: a verdict judged `fail` under a passing `.not` is no failure.
  const bad: Row[] = report.tests.flatMap((test) => {
    const rows: Row[] = test.verdicts.filter((v) => assertionStatus(v) !== 'pass').map((v) => ({ test, v }))
    // A failed assertion without a verdict to show (`.not` on a trace with no failing span) still gets its row.
    const shown = new Set(rows.flatMap((r) => ('v' in r && r.v.assertion ? [r.v.assertion.id] : [])))
    for (const a of test.assertions ?? [])
      if (
        !a.passed &&
        !shown.has(a.id) &&
        !test.verdicts.some((v) => v.assertion?.id === a.id && assertionStatus(v) !== 'pass')
      )
        rows.push({ test, assertion: a })
    // A test that failed with nothing above to show for it (a replay miss, a thrown agent): its error.
    if (test.state === 'fail' && rows.length === 0) rows.push({ test, error: test.error ?? 'test failed' })
    return rows
  })
  if (bad.length === 0)
    return `${head}All ${formatInt(t.assertions)} ${t.assertions === 1 ? 'assertion' : 'assertions'} passed.\n\n`

  const tableHead =
    '### Failed assertions\n\n| | test | metric | where | score | judged | reason |\n|---|---|---|---|---|---|---|\n'
  const rows: string[] = []
  // Byte counts are kept incrementally: re-measuring the growing body per row is quadratic on big runs.
  let bytes = Buffer.byteLength(head + tableHead) + 1
  for (const item of bad) {
    const row =
      'v' in item
        ? renderRow(item.test, item.v)
        : 'assertion' in item
          ? renderAssertionRow(item.test, item.assertion)
          : renderErrorRow(item.test, item.error)
    const rowBytes = Buffer.byteLength(row)
    if (bytes + rowBytes + Buffer.byteLength(tail(bad.length - rows.length - 1, options.artifactName)) > budget) break
    rows.push(row)
    bytes += rowBytes
  }
  return head + tableHead + rows.join('') + tail(bad.length - rows.length, options.artifactName) + '\n'
}

function tail(remaining: number, artifactName = 'agent-verdict-report.json'): string {
  return remaining > 0
    ? `\n_… and ${formatInt(remaining)} more verdicts of failed assertions — see \`${artifactName}\`._\n`
    : ''
}

type Row =
  | { test: ReportTest; v: Verdict }
  | { test: ReportTest; assertion: VerdictAssertion }
  | { test: ReportTest; error: string }

function renderErrorRow(test: ReportTest, error: string): string {
  const cells = [
    OUTCOME_SYMBOL.fail,
    `${escapeMarkdownCell(test.file)} › ${escapeMarkdownCell(test.name)}`,
    '',
    'test',
    '',
    'failed',
    escapeMarkdownCell(oneLineExcerpt(stripAnsi(error).split('\n')[0] ?? '', MAX_REASON)),
  ]
  return `| ${cells.join(' | ')} |\n`
}

function renderAssertionRow(test: ReportTest, a: VerdictAssertion): string {
  const cells = [
    OUTCOME_SYMBOL.fail,
    `${escapeMarkdownCell(test.file)} › ${escapeMarkdownCell(test.name)}`,
    escapeMarkdownCell(a.matcher),
    'assertion',
    '',
    a.negated ? 'passed, expected not' : 'failed',
    escapeMarkdownCell(oneLineExcerpt(stripAnsi(test.error ?? '').split('\n')[0] ?? '', MAX_REASON)),
  ]
  return `| ${cells.join(' | ')} |\n`
}

function renderRow(test: ReportTest, v: Verdict): string {
  const cells = [
    OUTCOME_SYMBOL[assertionStatus(v)],
    `${escapeMarkdownCell(test.file)} › ${escapeMarkdownCell(test.name)}`,
    escapeMarkdownCell(v.category ? `${v.metric} (${v.category})` : v.metric),
    escapeMarkdownCell(where(test, v)),
    escapeMarkdownCell(v.outcome === 'unjudgeable' ? 'unjudgeable' : formatScoreVsThreshold(v)),
    escapeMarkdownCell(judgedNote(v) ?? v.outcome),
    escapeMarkdownCell(oneLineExcerpt(v.reason, MAX_REASON)),
  ]
  return `| ${cells.join(' | ')} |\n`
}

function where(test: ReportTest, v: Verdict): string {
  if (v.level !== 'span') return v.level
  for (const trace of test.traces ?? []) {
    const index = indexSpans(trace)
    const span = v.spanId === undefined ? undefined : index.get(v.spanId)
    if (span) return describeSpan(span, spanPath(trace, span.id, index))
  }
  return `span ${v.spanId ? shortSpanId(v.spanId) : '?'}`
}

/**
 * Appends the summary to `$GITHUB_STEP_SUMMARY` when it is set, within what is left of the 1 MiB
 * cap after earlier steps' content. Returns the file path, or null when the variable is unset.
 *
 * @example
 * await appendGithubSummary(report) // no-op outside GitHub Actions
 */
export async function appendGithubSummary(
  report: Report,
  env: NodeJS.ProcessEnv = process.env,
  options: GithubSummaryOptions = {},
): Promise<string | null> {
  const path = env.GITHUB_STEP_SUMMARY
  if (!path) return null
  const existing = await stat(path).then(
    (s) => s.size,
    () => 0,
  )
  const room = Math.min(options.maxBytes ?? DEFAULT_BUDGET, GITHUB_SUMMARY_LIMIT - existing - 4096)
  if (room < 1024) return path // the summary is already full; writing more would make GitHub drop it all
  await appendFile(path, renderGithubSummary(report, { ...options, maxBytes: room }), 'utf8')
  return path
}
