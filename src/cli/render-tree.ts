import type { Finding } from '../metrics/detectors/finding'
import type { Span } from '../trace/span'
import type { Trace } from '../trace/trace'

/** Traces up to this many spans are printed in full; longer ones fold clean subtrees and runs. */
export const FULL_TREE_MAX_SPANS = 60
/** In a long trace, this many clean siblings in a row are shown before the rest of the run is folded. */
const SHOWN_CLEAN_RUN = 2
/** Indentation stops growing here; deeper lines say their depth (a 50k-deep chain would not fit in a string). */
const MAX_INDENT_LEVELS = 40
/** Evidence is cut to this many characters in the terminal (the JSON output keeps it whole). */
const EVIDENCE_CHARS = 160

export interface RenderOptions {
  /** Print every span even in long traces. */
  full?: boolean
  /** ANSI colours (only for terminals). */
  color?: boolean
}

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

const indent = (depth: number) => (depth <= MAX_INDENT_LEVELS ? '  '.repeat(depth) : `${'  '.repeat(MAX_INDENT_LEVELS)}[depth ${depth}] `)

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
  const bySpan = new Map<string, Finding[]>()
  for (const f of findings) {
    const list = bySpan.get(f.spanId)
    if (list) list.push(f)
    else bySpan.set(f.spanId, [f])
  }
  const size = subtreeSizes(trace)
  const dirty = dirtySpans(trace, bySpan)
  const fold = !options.full && trace.size > FULL_TREE_MAX_SPANS
  const lines: string[] = []

  const spanLine = (span: Span, depth: number, hidden: number) => {
    const marked = bySpan.has(span.id)
    const parts = [`${indent(depth)}${span.kind.padEnd(6)}${span.name}`]
    if (span.toolName && span.toolName !== span.name) parts.push(`[${span.toolName}]`)
    if (span.model) parts.push(dim(`(${span.model})`))
    parts.push(span.status === 'error' ? red('error') : dim(span.status))
    parts.push(formatDuration(span.durationNs))
    if (span.tokens) parts.push(`${span.tokens.total.toLocaleString('en-US')} tok`)
    if (hidden > 0) parts.push(dim(`(+${hidden} ok spans folded)`))
    lines.push(`${marked ? red('✗') : ' '} ${parts.join('  ')}`)
    for (const f of bySpan.get(span.id) ?? []) {
      const pad = `  ${'  '.repeat(Math.min(depth, MAX_INDENT_LEVELS))}    `
      lines.push(`${pad}${red(`✗ ${f.category}`)}: ${f.reason}`)
      const evidence = f.evidence.length > EVIDENCE_CHARS ? `${f.evidence.slice(0, EVIDENCE_CHARS)}…` : f.evidence
      lines.push(`${pad}${dim(`evidence${f.evidenceSpanId ? ` (from span ${f.evidenceSpanId})` : ''}: ${JSON.stringify(evidence)}`)}`)
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
      if (rest.length > 0) frames.push({ more: rest.reduce((n, s) => n + size.get(s.id)!, 0), count: rest.length, depth })
      i = j - 1
    }
    for (let k = frames.length - 1; k >= 0; k--) stack.push(frames[k])
  }
  pushChildren(trace.roots, 0)
  while (stack.length > 0) {
    const frame = stack.pop()!
    if ('more' in frame) {
      lines.push(`  ${indent(frame.depth)}${dim(`… ${frame.more} more ok span${frame.more === 1 ? '' : 's'}${frame.count < frame.more ? ` in ${frame.count} subtrees` : ''}`)}`)
      continue
    }
    const { span, depth } = frame
    const foldBelow = fold && !dirty.has(span.id)
    spanLine(span, depth, foldBelow ? size.get(span.id)! - 1 : 0)
    if (!foldBelow) pushChildren(trace.children(span.id), depth + 1)
  }
  return `${lines.join('\n')}\n`
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
