// The section printed after a run: verdicts per test, failing spans per trace, then totals.
import { styleText } from 'node:util'
import { assertionStatus, judgedNote } from '../verdict/assertion'
import type { Report, ReportTest, ReportTrace } from '../verdict/report'
import { terminalSafe } from '../verdict/safe-text'
import { oneLineExcerpt, shortSpanId } from '../verdict/text'
import type { Verdict, VerdictOutcome } from '../verdict/verdict'
import {
  OUTCOME_SYMBOL,
  STATE_SYMBOL,
  describeSpan,
  formatScoreVsThreshold,
  indexSpans,
  isInTraces,
  spanPath,
  stripAnsi,
  totalsParts,
  traceSummary,
  verdictLabel,
  verdictsOfSpan,
} from './format'

/** How to render: plain text by default; the reporters pass {@link terminalOptionsFor} their stream. */
export interface TerminalRenderOptions {
  /** ANSI colours via `node:util` `styleText`. Default false. */
  colors?: boolean
  /** Truncate every line to this many columns. Default: no limit (reasons are still capped at 300 chars). */
  width?: number
}

type Style = 'red' | 'green' | 'yellow' | 'dim' | 'bold' | 'cyan'
type Segment = { text: string; style?: Style }

const MAX_REASON = 300
const OUTCOME_STYLE: Record<VerdictOutcome, Style> = { pass: 'green', fail: 'red', unjudgeable: 'yellow' }
const STATE_STYLE: Record<ReportTest['state'], Style> = { pass: 'green', fail: 'red', skip: 'dim', pending: 'dim' }

/**
 * Colours only for a TTY with `NO_COLOR` unset; width from the TTY's columns.
 *
 * @example
 * renderTerminal(report, terminalOptionsFor(process.stdout))
 */
export function terminalOptionsFor(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv = process.env,
): TerminalRenderOptions {
  const tty = stream.isTTY === true
  return { colors: tty && !env.NO_COLOR, width: tty && stream.columns ? stream.columns : undefined }
}

/**
 * Renders the agent-verdict section of the terminal output (ends with a newline).
 *
 * @example
 * process.stdout.write(renderTerminal(report, { colors: false, width: 100 }))
 */
export function renderTerminal(report: Report, options: TerminalRenderOptions = {}): string {
  const width = options.width ?? Infinity
  const line: Line = (segments) => fit(segments, width, options.colors === true)
  const row: Row = (head, separator, reason, indent) => {
    const whole = [...head, { text: separator + reason }]
    return widthOf(whole) <= width ? [line(whole)] : [line(trimEnd(head)), line([{ text: indent + reason }])]
  }
  const used = (t: ReportTest) =>
    t.verdicts.length > 0 || (t.traces?.length ?? 0) > 0 || (t.assertions?.length ?? 0) > 0
  // Failed tests without verdicts are listed too (with their error): a replay miss is a failed evaluation.
  const tests = report.tests.filter((t) => used(t) || t.state === 'fail')
  if (tests.length === 0) return line([{ text: 'agent-verdict: no verdicts in this run', style: 'dim' }]) + '\n'

  const out: string[] = []
  const withVerdicts = tests.filter(used).length
  const before = tests.length - withVerdicts
  const head = [`agent-verdict · ${withVerdicts} ${withVerdicts === 1 ? 'test' : 'tests'} with verdicts`]
  if (before > 0) head.push(`${before} failed before any verdict`)
  if (report.run.judge) head.push(`judge ${report.run.judge}`)
  head.push(`mode ${report.run.mode}`)
  out.push(line([{ text: head.join(' · '), style: 'bold' }]), '')
  for (const test of tests) out.push(...renderTest(test, line, row, width), '')
  out.push(line(totalsSegments(report)))
  return out.join('\n') + '\n'
}

type Line = (segments: Segment[]) => string
/** One verdict: on one line when it fits, otherwise the reason moves to an indented line of its own. */
type Row = (head: Segment[], separator: string, reason: string, indent: string) => string[]

function renderTest(test: ReportTest, line: Line, row: Row, width: number): string[] {
  const out = [
    line([
      { text: STATE_SYMBOL[test.state], style: STATE_STYLE[test.state] },
      { text: ` ${test.file} › ${test.name}`, style: 'bold' },
    ]),
  ]
  const listed = test.verdicts.filter((v) => !isInTraces(v, test.traces))
  const metricWidth = Math.min(28, Math.max(0, ...listed.map((v) => metricLabel(v).length)))
  const scoreWidth = Math.max(0, ...listed.map((v) => formatScoreVsThreshold(v).length))
  const outcomeWidth = Math.max(11, ...listed.map((v) => outcomeLabel(v).length))
  for (const v of listed) {
    // The symbol is the assertion's (a passing .not is ✓); the word is the judge's, with what was expected.
    const status = assertionStatus(v)
    const head: Segment[] = [
      { text: '    ' },
      { text: OUTCOME_SYMBOL[status], style: OUTCOME_STYLE[status] },
      { text: ` ${metricLabel(v).padEnd(metricWidth)}  ${formatScoreVsThreshold(v).padEnd(scoreWidth)}  ` },
      { text: outcomeLabel(v), style: OUTCOME_STYLE[status] },
      { text: ' '.repeat(outcomeWidth - outcomeLabel(v).length) },
    ]
    out.push(...row(head, '  ', reasonOf(v), '        '))
  }
  for (const trace of test.traces ?? []) out.push(...renderTrace(trace, test.verdicts, line, width))
  const explained = test.verdicts.some((v) => assertionStatus(v) !== 'pass')
  if (test.state === 'fail' && test.error && !explained) {
    out.push(line([{ text: `    error: ${oneLineExcerpt(stripAnsi(test.error).split('\n')[0] ?? '')}`, style: 'dim' }]))
  }
  return out
}

function renderTrace(trace: ReportTrace, verdicts: readonly Verdict[], line: Line, width: number): string[] {
  const index = indexSpans(trace)
  const rows: string[] = []
  for (const span of trace.spans) {
    // The spans the judge did not pass, each marked with its assertion's status (a .not that expected it is ✓).
    const bad = verdictsOfSpan(span, verdicts).filter((v) => v.outcome !== 'pass')
    if (bad.length === 0) continue
    const worst =
      bad.find((v) => assertionStatus(v) === 'unjudgeable') ?? bad.find((v) => assertionStatus(v) === 'fail') ?? bad[0]
    const status = assertionStatus(worst)
    const where: Segment[] = [
      { text: '      ' },
      { text: OUTCOME_SYMBOL[status], style: OUTCOME_STYLE[status] },
      { text: ` ${describeSpan(span, spanPath(trace, span.id, index))}` },
    ]
    const whats = bad.map((v): Segment[] => [
      { text: verdictLabel(v), style: OUTCOME_STYLE[assertionStatus(v)] },
      { text: `${judgedNote(v) ? ` [${judgedNote(v)}]` : ''}: ${reasonOf(v)}` },
    ])
    const oneRow = [...where, { text: ' — ' }, ...whats[0]]
    // One failing verdict that fits: one line. Otherwise the span once, then each verdict below it,
    // so a span failed on several aspects is named once and no reason is cut first.
    if (whats.length === 1 && widthOf(oneRow) <= width) rows.push(line(oneRow))
    else rows.push(line(where), ...whats.map((what) => line([{ text: '          ' }, ...what])))
  }
  return [line([{ text: `    ${traceSummary(trace, verdicts)}`, style: 'cyan' }]), ...rows]
}

/** The judge's outcome, and under `.not` what was expected: `fail, expected not`. */
function outcomeLabel(v: Verdict): string {
  return v.assertion?.negated && v.outcome !== 'unjudgeable' ? `${v.outcome}, expected not` : v.outcome
}

function metricLabel(v: Verdict): string {
  if (v.level === 'agent') return `${v.metric} [agent]`
  if (v.level === 'span') return `${v.metric} [span ${v.spanId ? shortSpanId(v.spanId) : '?'}]`
  return v.metric
}

function reasonOf(v: Verdict): string {
  return oneLineExcerpt(v.reason, MAX_REASON) || '(no reason given)'
}

function totalsSegments(report: Report): Segment[] {
  const t = report.run.totals
  const style: Record<string, Style | undefined> = {
    failed: t.failed > 0 ? 'red' : undefined,
    unjudgeable: t.unjudgeable > 0 ? 'yellow' : undefined,
    assertions: 'bold',
  }
  return totalsParts(t).flatMap(([label, value], i): Segment[] => [
    ...(i > 0 ? [{ text: ' · ' }] : []),
    { text: `${label} ` },
    { text: value, style: style[label] },
  ])
}

function widthOf(segments: readonly Segment[]): number {
  return segments.reduce((n, s) => n + Array.from(s.text).length, 0)
}

/** Drops the padding at the end of a head that wraps (it only aligned the reason column). */
function trimEnd(segments: Segment[]): Segment[] {
  const out = [...segments]
  while (out.length > 0 && out[out.length - 1].text.trim() === '') out.pop()
  return out
}

/**
 * Truncates the concatenated text to `width`, then styles each segment (so escapes never count as width).
 * Every segment's text is made terminal-safe here, the one place all output passes: a judged span name
 * or reason can then neither move the cursor nor print a fake "✓ pass" (each control is one visible column).
 */
function fit(segments: Segment[], width: number, colors: boolean): string {
  let room = width
  let out = ''
  const cut = widthOf(segments) > width
  for (const segment of segments) {
    if (room <= 0) break
    const len = Array.from(segment.text).length
    // The segment where the line hits the width ends with '…' so the cut is visible.
    const safe = terminalSafe(segment.text)
    const text =
      cut && len >= room
        ? Array.from(safe)
            .slice(0, room - 1)
            .join('') + '…'
        : safe
    room -= len
    // validateStream off: whether to colour was decided from the reporter's own stream, not process.stdout.
    out += colors && segment.style ? styleText(segment.style, text, { validateStream: false }) : text
  }
  return out
}
