import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'
import { shortSpanId } from '../../verdict/text'

/** LLM and TOOL spans are where TRAIL (and a reader of the diagnosis) expects an error to be named. */
export function isLeafKind(span: Span): boolean {
  return span.kind === 'llm' || span.kind === 'tool'
}

/**
 * The LLM span whose output led to `span`: the span itself if it is an LLM call; for a step (or any
 * span with children) its last LLM child; otherwise the nearest LLM sibling before it, looking further
 * up the tree but never past an agent span (another agent's model did not write this call).
 *
 * @example
 * producerLlm(trace, toolSpan)?.name // 'LiteLLMModel.__call__' — the call that wrote the tool arguments
 */
export function producerLlm(trace: Trace, span: Span): Span | undefined {
  if (span.kind === 'llm') return span
  const kids = trace.children(span.id)
  for (let i = kids.length - 1; i >= 0; i--) if (kids[i].kind === 'llm' && kids[i].startNs <= span.endNs) return kids[i]
  for (let cur: Span | undefined = span; cur && cur.kind !== 'agent'; ) {
    const parent = trace.parent(cur.id)
    const siblings = parent ? trace.children(parent.id) : trace.roots
    for (let i = siblings.indexOf(cur) - 1; i >= 0; i--) if (siblings[i].kind === 'llm') return siblings[i]
    cur = parent
  }
  return undefined
}

/**
 * The LLM/TOOL span an error recorded on `span` should be named on: the span itself when it is an LLM or
 * TOOL span; the nearest LLM/TOOL ancestor for other leaves (an HTTP client span under a tool); else the
 * LLM span that produced the step's code or call; else the span itself.
 *
 * @example
 * sourceLeaf(trace, stepSpan).kind // 'llm' — the model call of a step whose code raised
 */
export function sourceLeaf(trace: Trace, span: Span): Span {
  if (isLeafKind(span)) return span
  for (const a of trace.ancestors(span.id)) if (isLeafKind(a)) return a
  return producerLlm(trace, span) ?? span
}

/**
 * For each span, whether some descendant records an error of its own (then the span's error is that
 * error propagating up and is reported once, at the descendant).
 */
export function errorBelow(trace: Trace, isError: (span: Span) => boolean): Set<string> {
  const below = new Set<string>()
  // Reverse depth-first order visits every child before its parent.
  for (let i = trace.spans.length - 1; i >= 0; i--) {
    const span = trace.spans[i]
    if (span.parentId === null || (!isError(span) && !below.has(span.id))) continue
    const parent = trace.parent(span.id)
    if (parent) below.add(parent.id)
  }
  return below
}

/** Short human label of a span for reasons: `TOOL PageDownTool (9996caac…)`. */
export function spanLabel(span: Span): string {
  return `${span.kind.toUpperCase()} ${span.name} (${shortSpanId(span.id)})`
}
