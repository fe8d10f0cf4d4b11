import { TraceFormatError } from './errors'
import type { Span, SpanKind } from './span'
import { spanToJSON } from './span-json'

/** Something a reader noticed and tolerated (orphans, duplicates, unparseable payloads …). */
export interface TraceWarning {
  code:
    | 'orphan'
    | 'duplicate-span'
    | 'missing-io'
    | 'unparsed-payload'
    | 'multiple-traces'
    | 'token-counts'
    | 'implausible-time'
    | 'unfinished-span'
    | 'other'
  message: string
  spanId?: string
}

/** Query for {@link Trace.find}: every given field must match. */
export interface SpanQuery {
  kind?: SpanKind | SpanKind[]
  /** Exact name, or a RegExp tested against the name. */
  name?: string | RegExp
  /** Attribute key that must be present; with `value`, equal to it (compared as strings). */
  attr?: string | { key: string; value?: unknown }
}

/**
 * An agent run: flat spans plus the tree over them.
 *
 * Spans whose parent is not in the trace are roots (and a reader reports them as orphans).
 * `spans` is in depth-first order, children by start time.
 *
 * @example
 * const trace = await loadTrace('traces/run.json')
 * for (const llm of trace.spansByKind('llm')) console.log(llm.name, trace.path(llm.id))
 */
export class Trace {
  readonly traceId: string
  /** Spans in depth-first order (roots by start time, children by start time). */
  readonly spans: readonly Span[]
  readonly roots: readonly Span[]
  readonly warnings: TraceWarning[]
  /** File the trace came from, when loaded from disk. */
  readonly source?: string
  /** One map for id → span, children and depth: a single lookup per span keeps 100k-span traces linear. */
  private readonly nodes: Map<string, TraceNode>

  constructor(spans: readonly Span[], options: { traceId?: string; warnings?: TraceWarning[]; source?: string } = {}) {
    this.warnings = options.warnings ?? []
    this.source = options.source
    const nodes = new Map<string, TraceNode>()
    const unique: TraceNode[] = []
    // Index loops: for small traces this runs as baseline code, where for…of pays an iterator step per element.
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i]
      const kept = nodes.get(span.id)
      if (kept) {
        // Two records of one span that differ (a failing copy after a clean one, another tool under the same
        // id): keeping either would decide the diagnosis silently, so the trace is refused.
        if (JSON.stringify(spanToJSON(kept.span)) !== JSON.stringify(spanToJSON(span)))
          throw new TraceFormatError(
            `span ${span.id} appears twice with different content (${kept.span.kind}:${kept.span.name}, then ${span.kind}:${span.name}${span.status !== kept.span.status ? `, status ${kept.span.status} then ${span.status}` : ''}); a trace holds one record per span — remove the extra copy from the export`,
            { file: options.source, spanIds: [span.id] },
          )
        this.warnings.push({
          code: 'duplicate-span',
          spanId: span.id,
          message: `span ${span.id} (${span.name}) appears more than once; kept the first copy`,
        })
        continue
      }
      const node: TraceNode = { span, children: undefined, kids: undefined, depth: -1 }
      nodes.set(span.id, node)
      unique.push(node)
    }
    this.nodes = nodes
    const roots: TraceNode[] = []
    for (let i = 0; i < unique.length; i++) {
      const node = unique[i]
      const parent = node.span.parentId === null ? undefined : nodes.get(node.span.parentId)
      if (parent) (parent.kids ??= []).push(node)
      else roots.push(node)
    }
    sortByStart(roots)
    for (let i = 0; i < unique.length; i++) {
      const kids = unique[i].kids
      if (kids) sortByStart(kids)
    }
    this.roots = roots.map((r) => r.span)

    // Iterative DFS: real traces can be deep, and a recursive walk would risk the stack on synthetic ones.
    const order: Span[] = []
    const stack: TraceNode[] = []
    for (let i = roots.length - 1; i >= 0; i--) {
      roots[i].depth = 0
      stack.push(roots[i])
    }
    while (stack.length > 0) {
      const node = stack.pop()!
      order.push(node.span)
      const kids = node.kids
      if (!kids) continue
      for (let i = kids.length - 1; i >= 0; i--) {
        const kid = kids[i]
        kid.depth = node.depth + 1
        stack.push(kid)
      }
    }
    // Spans in a parent-id cycle are nobody's descendants of a root, so the walk never reaches them.
    if (order.length < unique.length) throw cycleError(nodes)
    this.spans = order
    this.traceId = options.traceId ?? order[0]?.traceId ?? ''
  }

  /** Number of (distinct) spans. */
  get size(): number {
    return this.spans.length
  }

  /** The span with this id, or undefined. */
  get(id: string): Span | undefined {
    return this.nodes.get(id)?.span
  }

  /** Direct children of a span, by start time. */
  children(id: string): readonly Span[] {
    const node = this.nodes.get(id)
    if (!node?.kids) return []
    // Built on first use: most spans' children are never asked for, and a 100k-span trace would hold 2 arrays per parent.
    return (node.children ??= node.kids.map((k) => k.span))
  }

  /** The parent span, or undefined for roots and orphans. */
  parent(id: string): Span | undefined {
    const parentId = this.nodes.get(id)?.span.parentId
    return parentId == null ? undefined : this.nodes.get(parentId)?.span
  }

  /** Ancestors from the parent up to the root (nearest first). */
  ancestors(id: string): Span[] {
    const out: Span[] = []
    for (let p = this.parent(id); p; p = this.parent(p.id)) out.push(p)
    return out
  }

  /** Depth below its root (root = 0). */
  depth(id: string): number {
    return Math.max(0, this.nodes.get(id)?.depth ?? 0)
  }

  /** Names from the root down to the span, e.g. `['CodeAgent.run', 'Step 4', 'SearchInformationTool']`. */
  path(id: string): string[] {
    const span = this.get(id)
    if (!span) return []
    return [
      ...this.ancestors(id)
        .reverse()
        .map((s) => s.name),
      span.name,
    ]
  }

  /** True if the span has no children. */
  isLeaf(id: string): boolean {
    return this.nodes.get(id)?.kids === undefined
  }

  /** Spans of one kind, in depth-first order. */
  spansByKind(kind: SpanKind): Span[] {
    return this.spans.filter((s) => s.kind === kind)
  }

  /** Spans matching every given field of the query, in depth-first order. */
  find(query: SpanQuery): Span[] {
    const kinds = query.kind === undefined ? undefined : Array.isArray(query.kind) ? query.kind : [query.kind]
    const attr = typeof query.attr === 'string' ? { key: query.attr } : query.attr
    return this.spans.filter((s) => {
      if (kinds && !kinds.includes(s.kind)) return false
      if (
        query.name !== undefined &&
        !(typeof query.name === 'string' ? s.name === query.name : matchesOnce(query.name, s.name))
      )
        return false
      if (attr) {
        if (!(attr.key in s.attributes)) return false
        if ('value' in attr && attr.value !== undefined && String(s.attributes[attr.key]) !== String(attr.value))
          return false
      }
      return true
    })
  }
}

/**
 * Start order of two spans: their start stamps, and on a tie the monotonic start an in-process SDK span
 * carries (its stamps are whole milliseconds; exporters list spans by end, not start).
 */
export function compareStart(a: Span, b: Span): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1
  const ma = a.monotonicStartNs
  const mb = b.monotonicStartNs
  if (ma === undefined || mb === undefined || ma === mb) return 0
  return ma < mb ? -1 : 1
}

const byStart = (a: TraceNode, b: TraceNode) => compareStart(a.span, b.span)

/** Sorts by start time, stable; exporters almost always write siblings in order, so check before sorting. */
function sortByStart(list: TraceNode[]): void {
  for (let i = 1; i < list.length; i++) {
    if (byStart(list[i - 1], list[i]) > 0) {
      list.sort(byStart)
      return
    }
  }
}

/** Where a span sits in the tree; children are sorted once, at construction. */
interface TraceNode {
  span: Span
  /** Child nodes by start time, for the walk … */
  kids: TraceNode[] | undefined
  /** … and their spans, what `children()` returns, built on first use. */
  children: Span[] | undefined
  /** -1 until the depth-first walk reaches the span. */
  depth: number
}

/** The cycle that kept spans out of the tree, as a TraceFormatError naming its span ids. */
function cycleError(nodes: Map<string, TraceNode>): TraceFormatError {
  let start: Span | undefined
  for (const node of nodes.values()) {
    if (node.depth < 0) {
      start = node.span
      break
    }
  }
  // Walk up from an unreached span: it must run into the cycle (no root is above it).
  const seen = new Map<string, number>()
  const chain: Span[] = []
  for (let s = start; s && !seen.has(s.id); s = nodes.get(s.parentId ?? '')?.span) {
    seen.set(s.id, chain.length)
    chain.push(s)
  }
  const last = chain[chain.length - 1]
  const cycle = chain.slice(seen.get(last.parentId ?? '') ?? 0)
  const names = [...cycle, cycle[0]].map((s) => `${s.id} (${s.name})`).join(' → ')
  return new TraceFormatError(
    `parent ids form a cycle: ${names}; a span cannot be its own ancestor — check how the exporter sets parent span ids`,
    { spanIds: cycle.map((s) => s.id) },
  )
}

/**
 * `pattern.test(text)` as if the pattern were fresh: the g and y flags' `lastIndex` would make a reused RegExp skip
 * matches (`not.toCallTool(/delete_/g)` passed after `toCallTool(/delete_/g)` on the same trace).
 *
 * @example
 * matchesOnce(/delete_/g, 'delete_account') // true, every time
 */
export function matchesOnce(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0
  const hit = pattern.test(text)
  pattern.lastIndex = 0
  return hit
}
