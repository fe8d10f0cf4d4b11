import type { Finding } from '../metrics/detectors/finding'
import type { Span } from '../trace/span'
import type { Trace } from '../trace/trace'
import { terminalSafe } from '../verdict/safe-text'
// Tree lines and findings cite the first 8 characters of a long id with no `…` (the legend explains the cut).
import { shortSpanId } from '../verdict/text'
import { columns, shorten, wrapLine } from './fit-text'

/** Traces up to this many spans are printed in full; longer ones fold clean subtrees and runs. */
export const FULL_TREE_MAX_SPANS = 60
/** In a long trace, this many clean siblings in a row are shown before the rest of the run is folded. */
const SHOWN_CLEAN_RUN = 2
/** Indentation stops growing here; deeper lines say their depth (a 50k-deep chain would not fit in a string). */
const MAX_INDENT_LEVELS = 40
/** Evidence is cut to this many characters in the terminal (the JSON output keeps it whole). */
const EVIDENCE_CHARS = 160
/** Evidence wraps to at most this many lines; reasons wrap whole. */
const EVIDENCE_LINES = 2
/** A span name is never shortened below this many columns. */
const MIN_NAME = 12

export interface RenderOptions {
  /** Print every span even in long traces. */
  full?: boolean
  /** ANSI colours (only for terminals). */
  color?: boolean
  /** Columns to fit: span lines shorten the name, reasons and evidence wrap. Default: no limit. */
  width?: number
}

/**
 * The legend printed under the trees: where ✗ is placed and how ids tie a finding to the span its evidence came from.
 *
 * @example
 * process.stdout.write(TREE_LEGEND + '\n')
 */
export const TREE_LEGEND =
  'legend: ✗ in the margin marks the span a finding is blamed on — the call that made the mistake or acted on a failure — ' +
  'which may differ from the span where the error was recorded; "from span ID" and "(ID…)" name that span, and every span a finding cites shows "id ID" on its tree line.'

/**
 * `1m48.8s`, `4.83s`, `350ms`, `12µs`: durations short enough for a tree line.
 *
 * @example
 * formatDuration(4_829_649_000) // '4.83s'
 */
export function formatDuration(ns: number): string {
  if (ns >= 60e9) {
    const m = Math.floor(ns / 60e9)
    return `${m}m${((ns - m * 60e9) / 1e9).toFixed(1)}s`
  }
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)}s`
  if (ns >= 1e6) return `${Math.round(ns / 1e6)}ms`
  return `${Math.round(ns / 1e3)}µs`
}

const indentWith = (cap: number) => (depth: number) =>
  depth <= cap ? '  '.repeat(depth) : `${'  '.repeat(cap)}[depth ${depth}] `

const paint = (on: boolean, code: string) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s)

/**
 * The span tree of one trace as text, one line per span (indentation, kind, name, status, duration,
 * tokens), each finding marked ✗ on its span with the category and reason on the next lines.
 * Long traces fold subtrees without findings or errors and long runs of clean siblings.
 *
 * @example
 * process.stdout.write(renderTraceTree(trace, detect(trace)))
 */
export function renderTraceTree(trace: Trace, findings: readonly Finding[], options: RenderOptions = {}): string {
  const red = paint(options.color === true, '31')
  const dim = paint(options.color === true, '2')
  const width = options.width ?? Infinity
  // Indentation stops where a line would have no room left for the span itself (20 levels at 80 columns).
  const cap = Number.isFinite(width)
    ? Math.max(4, Math.min(MAX_INDENT_LEVELS, Math.floor((width - 40) / 2)))
    : MAX_INDENT_LEVELS
  const indent = indentWith(cap)
  const bySpan = new Map<string, Finding[]>()
  for (const f of findings) {
    const list = bySpan.get(f.spanId)
    if (list) list.push(f)
    else bySpan.set(f.spanId, [f])
  }
  const cited = citedSpans(trace, findings)
  const size = subtreeSizes(trace)
  const dirty = dirtySpans(trace, bySpan)
  const fold = !options.full && trace.size > FULL_TREE_MAX_SPANS
  const lines: string[] = []

  const spanLine = (span: Span, depth: number, hidden: number) => {
    const marked = bySpan.has(span.id)
    // Plain text first (names are judged data: made terminal-safe), measured, then shortened and painted.
    const head = `${marked ? '✗' : ' '} ${indent(depth)}${span.kind.padEnd(6)}`
    // [text, paint, drop order when the line does not fit (lower goes first; undefined: kept)].
    const rest: Array<[string, ((s: string) => string) | undefined, number | undefined]> = []
    if (span.toolName && span.toolName !== span.name) rest.push([`[${terminalSafe(span.toolName)}]`, undefined, 2])
    if (span.model) rest.push([`(${terminalSafe(span.model)})`, dim, 1])
    rest.push(span.status === 'error' ? ['error', red, undefined] : [span.status, dim, 3])
    rest.push([formatDuration(span.durationNs), undefined, 4])
    if (span.tokens) rest.push([`${span.tokens.total.toLocaleString('en-US')} tok`, undefined, 0])
    if (cited.has(span.id)) rest.push([`id ${shortSpanId(span.id, '')}`, undefined, undefined])
    if (hidden > 0) rest.push([`(+${hidden} ok spans folded)`, dim, undefined])
    const name = terminalSafe(span.name)
    const tailWidth = () => rest.reduce((n, [t]) => n + 2 + columns(t), 0)
    // Shorten the name first (down to MIN_NAME), then drop details by priority; the id a finding cites stays.
    for (let drop = 0; columns(head) + Math.min(columns(name), MIN_NAME) + tailWidth() > width && drop <= 4; drop++) {
      const i = rest.findIndex(([, , order]) => order === drop)
      if (i >= 0) rest.splice(i, 1)
    }
    const room = width - columns(head) - tailWidth()
    const shownName = columns(name) <= room ? name : shorten(name, Math.max(MIN_NAME, room))
    let line = `${marked ? red('✗') : ' '}${head.slice(1)}${shownName}${rest.map(([t, p]) => `  ${p ? p(t) : t}`).join('')}`
    // Very deep trees on narrow terminals: nothing left to drop, so the line itself is cut.
    if (columns(head) + columns(shownName) + tailWidth() > width)
      line = shorten(`${head}${shownName}${rest.map(([t]) => `  ${t}`).join('')}`, width)
    lines.push(line)
    for (const f of bySpan.get(span.id) ?? []) {
      const pad = `  ${'  '.repeat(Math.min(depth, cap))}    `
      const category = `✗ ${terminalSafe(f.category)}`
      const reason = wrapLine(`${pad}${category}: ${terminalSafe(f.reason)}`, width, `${pad}  `)
      reason[0] = reason[0].startsWith(`${pad}${category}`)
        ? `${pad}${red(category)}${reason[0].slice(pad.length + category.length)}`
        : reason[0]
      lines.push(...reason)
      const raw = terminalSafe(f.evidence)
      const evidence = raw.length > EVIDENCE_CHARS ? `${raw.slice(0, EVIDENCE_CHARS)}…` : raw
      const from = f.evidenceSpanId ? ` (from span ${shortSpanId(f.evidenceSpanId, '')})` : ''
      lines.push(
        ...wrapLine(`${pad}evidence${from}: ${JSON.stringify(evidence)}`, width, `${pad}  `, EVIDENCE_LINES).map((l) =>
          dim(l),
        ),
      )
    }
  }

  // Iterative walk: frames are either a span to print or a "… N more" line for a folded run.
  type Frame = { span: Span; depth: number } | { more: number; count: number; depth: number }
  const stack: Frame[] = []
  const pushChildren = (kids: readonly Span[], depth: number) => {
    const frames: Frame[] = []
    for (let i = 0; i < kids.length; i++) {
      if (!fold || dirty.has(kids[i].id)) {
        frames.push({ span: kids[i], depth })
        continue
      }
      let j = i
      while (j < kids.length && !dirty.has(kids[j].id)) j++
      const run = kids.slice(i, j)
      for (const s of run.slice(0, SHOWN_CLEAN_RUN)) frames.push({ span: s, depth })
      const rest = run.slice(SHOWN_CLEAN_RUN)
      if (rest.length > 0)
        frames.push({ more: rest.reduce((n, s) => n + size.get(s.id)!, 0), count: rest.length, depth })
      i = j - 1
    }
    for (let k = frames.length - 1; k >= 0; k--) stack.push(frames[k])
  }
  pushChildren(trace.roots, 0)
  while (stack.length > 0) {
    const frame = stack.pop()!
    if ('more' in frame) {
      lines.push(
        `  ${indent(frame.depth)}${dim(`… ${frame.more} more ok span${frame.more === 1 ? '' : 's'}${frame.count < frame.more ? ` in ${frame.count} subtrees` : ''}`)}`,
      )
      continue
    }
    const { span, depth } = frame
    const foldBelow = fold && !dirty.has(span.id)
    spanLine(span, depth, foldBelow ? size.get(span.id)! - 1 : 0)
    if (!foldBelow) pushChildren(trace.children(span.id), depth + 1)
  }
  return `${lines.join('\n')}\n`
}

/** Spans a finding names: where it is blamed, where its evidence is from, and any `(4a1f9c2e…)` its reason quotes. */
function citedSpans(trace: Trace, findings: readonly Finding[]): Set<string> {
  const cited = new Set<string>()
  const byPrefix = new Map<string, string>()
  for (const s of trace.spans) byPrefix.set(shortSpanId(s.id, ''), s.id)
  for (const f of findings) {
    cited.add(f.spanId)
    if (f.evidenceSpanId) cited.add(f.evidenceSpanId)
    for (const m of f.reason.matchAll(/\b([0-9a-f]{8})…/g)) {
      const id = byPrefix.get(m[1])
      if (id) cited.add(id)
    }
  }
  return cited
}

/** Spans with a finding or an error status, and all their ancestors: the parts of a long tree kept open. */
function dirtySpans(trace: Trace, bySpan: Map<string, Finding[]>): Set<string> {
  const dirty = new Set<string>()
  for (let i = trace.spans.length - 1; i >= 0; i--) {
    const s = trace.spans[i]
    if (dirty.has(s.id) || bySpan.has(s.id) || s.status === 'error') {
      dirty.add(s.id)
      if (s.parentId !== null && trace.get(s.parentId)) dirty.add(s.parentId)
    }
  }
  return dirty
}

/** Number of spans in each subtree (the span itself included). */
function subtreeSizes(trace: Trace): Map<string, number> {
  const size = new Map<string, number>()
  for (let i = trace.spans.length - 1; i >= 0; i--) {
    const s = trace.spans[i]
    let n = 1
    for (const c of trace.children(s.id)) n += size.get(c.id) ?? 1
    size.set(s.id, n)
  }
  return size
}
