import { TraceFormatError } from './errors'
import type { Span, SpanKind } from './span'

/** Something a reader noticed and tolerated (orphans, duplicates, unparseable payloads …). */
export interface TraceWarning {
  code: 'orphan' | 'duplicate-span' | 'missing-io' | 'unparsed-payload' | 'multiple-traces' | 'other'
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
  private readonly byId: Map<string, Span>
  private readonly childrenOf: Map<string, Span[]>
  private readonly depthOf: Map<string, number>

  constructor(spans: readonly Span[], options: { traceId?: string; warnings?: TraceWarning[]; source?: string } = {}) {
    this.warnings = options.warnings ?? []
    this.source = options.source
    this.byId = new Map()
    for (const span of spans) {
      if (this.byId.has(span.id)) {
        this.warnings.push({ code: 'duplicate-span', spanId: span.id, message: `span ${span.id} (${span.name}) appears more than once; kept the first copy` })
        continue
      }
      this.byId.set(span.id, span)
    }
    this.childrenOf = new Map()
    const roots: Span[] = []
    for (const span of this.byId.values()) {
      if (span.parentId !== null && this.byId.has(span.parentId)) {
        let list = this.childrenOf.get(span.parentId)
        if (!list) this.childrenOf.set(span.parentId, (list = []))
        list.push(span)
      } else {
        roots.push(span)
      }
    }
    const byStart = (a: Span, b: Span) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0)
    roots.sort(byStart)
    for (const list of this.childrenOf.values()) list.sort(byStart)
    this.roots = roots

    // Iterative DFS: real traces can be deep, and a recursive walk would risk the stack on synthetic ones.
    const order: Span[] = []
    this.depthOf = new Map()
    const stack: Array<[Span, number]> = []
    for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i], 0])
    while (stack.length > 0) {
      const [span, depth] = stack.pop()!
      order.push(span)
      this.depthOf.set(span.id, depth)
      const kids = this.childrenOf.get(span.id)
      if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1])
    }
    // Spans in a parent-id cycle are nobody's descendants of a root, so the walk never reaches them.
    if (order.length < this.byId.size) throw cycleError(this.byId, this.depthOf)
    this.spans = order
    this.traceId = options.traceId ?? order[0]?.traceId ?? ''
  }

  /** Number of (distinct) spans. */
  get size(): number {
    return this.spans.length
  }

  /** The span with this id, or undefined. */
  get(id: string): Span | undefined {
    return this.byId.get(id)
  }

  /** Direct children of a span, by start time. */
  children(id: string): readonly Span[] {
    return this.childrenOf.get(id) ?? []
  }

  /** The parent span, or undefined for roots and orphans. */
  parent(id: string): Span | undefined {
    const parentId = this.byId.get(id)?.parentId
    return parentId == null ? undefined : this.byId.get(parentId)
  }

  /** Ancestors from the parent up to the root (nearest first). */
  ancestors(id: string): Span[] {
    const out: Span[] = []
    for (let p = this.parent(id); p; p = this.parent(p.id)) out.push(p)
    return out
  }

  /** Depth below its root (root = 0). */
  depth(id: string): number {
    return this.depthOf.get(id) ?? 0
  }

  /** Names from the root down to the span, e.g. `['CodeAgent.run', 'Step 4', 'SearchInformationTool']`. */
  path(id: string): string[] {
    const span = this.byId.get(id)
    if (!span) return []
    return [...this.ancestors(id).reverse().map((s) => s.name), span.name]
  }

  /** True if the span has no children. */
  isLeaf(id: string): boolean {
    return !this.childrenOf.has(id)
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
      if (query.name !== undefined && !(typeof query.name === 'string' ? s.name === query.name : query.name.test(s.name))) return false
      if (attr) {
        if (!(attr.key in s.attributes)) return false
        if ('value' in attr && attr.value !== undefined && String(s.attributes[attr.key]) !== String(attr.value)) return false
      }
      return true
    })
  }
}

/** The cycle that kept spans out of the tree, as a TraceFormatError naming its span ids. */
function cycleError(byId: Map<string, Span>, reached: Map<string, number>): TraceFormatError {
  let start: Span | undefined
  for (const span of byId.values()) if (!reached.has(span.id)) { start = span; break }
  // Walk up from an unreached span: it must run into the cycle (no root is above it).
  const seen = new Map<string, number>()
  const chain: Span[] = []
  for (let s = start; s && !seen.has(s.id); s = byId.get(s.parentId ?? '')) {
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
