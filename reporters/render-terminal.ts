// The section printed after a run: verdicts per test, failing spans per trace, then totals.
import { styleText } from 'node:util'
import type { Report, ReportTest, ReportTrace } from '../src/verdict/report'
import type { Verdict, VerdictOutcome } from '../src/verdict/verdict'
import {
  OUTCOME_SYMBOL,
  STATE_SYMBOL,
  describeSpan,
  formatCost,
  formatInt,
  formatScoreVsThreshold,
  indexSpans,
  isInTraces,
  oneLine,
  shortId,
  spanPath,
  truncate,
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
export function terminalOptionsFor(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv = process.env): TerminalRenderOptions {
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
  const tests = report.tests.filter((t) => t.verdicts.length > 0 || (t.traces?.length ?? 0) > 0)
  if (tests.length === 0) return line([{ text: 'agent-verdict: no verdicts in this run', style: 'dim' }]) + '\n'

  const out: string[] = []
  const head = [`agent-verdict · ${tests.length} ${tests.length === 1 ? 'test' : 'tests'} with verdicts`]
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
  const out = [line([{ text: STATE_SYMBOL[test.state], style: STATE_STYLE[test.state] }, { text: ` ${test.file} › ${test.name}`, style: 'bold' }])]
  const listed = test.verdicts.filter((v) => !isInTraces(v, test.traces))
  const metricWidth = Math.min(28, Math.max(0, ...listed.map((v) => metricLabel(v).length)))
  const scoreWidth = Math.max(0, ...listed.map((v) => formatScoreVsThreshold(v).length))
  for (const v of listed) {
    const head: Segment[] = [
      { text: '    ' },
      { text: OUTCOME_SYMBOL[v.outcome], style: OUTCOME_STYLE[v.outcome] },
      { text: ` ${metricLabel(v).padEnd(metricWidth)}  ${formatScoreVsThreshold(v).padEnd(scoreWidth)}  ` },
      { text: v.outcome, style: OUTCOME_STYLE[v.outcome] },
      { text: ' '.repeat(11 - v.outcome.length) },
    ]
    out.push(...row(head, '  ', reasonOf(v), '        '))
  }
  for (const trace of test.traces ?? []) out.push(...renderTrace(trace, test.verdicts, line, width))
  const explained = test.verdicts.some((v) => v.outcome !== 'pass')
  if (test.state === 'fail' && test.error && !explained) {
    out.push(line([{ text: `    error: ${oneLine(test.error.split('\n')[0] ?? '')}`, style: 'dim' }]))
  }
  return out
}

function renderTrace(trace: ReportTrace, verdicts: readonly Verdict[], line: Line, width: number): string[] {
  const index = indexSpans(trace)
  const rows: string[] = []
  let passed = 0
  let failing = 0
  for (const span of trace.spans) {
    const own = verdictsOfSpan(span, verdicts)
    passed += own.filter((v) => v.outcome === 'pass').length
    const bad = own.filter((v) => v.outcome !== 'pass')
    if (bad.length > 0) failing++
    if (bad.length === 0) continue
    const worst = bad.find((v) => v.outcome === 'unjudgeable') ?? bad[0]
    const where: Segment[] = [
      { text: '      ' },
      { text: OUTCOME_SYMBOL[worst.outcome], style: OUTCOME_STYLE[worst.outcome] },
      { text: ` ${describeSpan(span, spanPath(trace, span.id, index))}` },
    ]
    const whats = bad.map((v): Segment[] => [{ text: verdictLabel(v), style: OUTCOME_STYLE[v.outcome] }, { text: `: ${reasonOf(v)}` }])
    const oneRow = [...where, { text: ' — ' }, ...whats[0]]
    // One failing verdict that fits: one line. Otherwise the span once, then each verdict below it,
    // so a span failed on several aspects is named once and no reason is cut first.
    if (whats.length === 1 && widthOf(oneRow) <= width) rows.push(line(oneRow))
    else rows.push(line(where), ...whats.map((what) => line([{ text: '          ' }, ...what])))
  }
  const summary = [`trace ${shortId(trace.id)}`, `${trace.spans.length} spans`, `${failing} failing`]
  if (passed > 0) summary.push(`${passed} span ${passed === 1 ? 'verdict' : 'verdicts'} passed`)
  return [line([{ text: `    ${summary.join(' · ')}`, style: 'cyan' }]), ...rows]
}

function metricLabel(v: Verdict): string {
  if (v.level === 'agent') return `${v.metric} [agent]`
  if (v.level === 'span') return `${v.metric} [span ${v.spanId ? shortId(v.spanId) : '?'}]`
  return v.metric
}

function reasonOf(v: Verdict): string {
  return truncate(oneLine(v.reason), MAX_REASON) || '(no reason given)'
}

function totalsSegments(report: Report): Segment[] {
  const t = report.run.totals
  const part = (label: string, value: string, style?: Style): Segment[] => [{ text: `${label} ` }, { text: value, style }, { text: ' · ' }]
  const segments = [
    ...part('verdicts', formatInt(t.verdicts), 'bold'),
    ...part('failed', formatInt(t.failed), t.failed > 0 ? 'red' : undefined),
    ...part('unjudgeable', formatInt(t.unjudgeable), t.unjudgeable > 0 ? 'yellow' : undefined),
    ...part('judge calls', formatInt(t.judgeCalls)),
    ...part('replayed', formatInt(t.cachedCalls)),
    ...part('tokens', formatInt(t.tokens)),
    ...part('cost', formatCost(t.costUsd)),
  ]
  return segments.slice(0, -1)
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

/** Truncates the concatenated text to `width`, then styles each segment (so escapes never count as width). */
function fit(segments: Segment[], width: number, colors: boolean): string {
  let room = width
  let out = ''
  const cut = widthOf(segments) > width
  for (const segment of segments) {
    if (room <= 0) break
    const len = Array.from(segment.text).length
    // The segment where the line hits the width ends with '…' so the cut is visible.
    const text = cut && len >= room ? Array.from(segment.text).slice(0, room - 1).join('') + '…' : segment.text
    room -= len
    // validateStream off: whether to colour was decided from the reporter's own stream, not process.stdout.
    out += colors && segment.style ? styleText(segment.style, text, { validateStream: false }) : text
  }
  return out
}
