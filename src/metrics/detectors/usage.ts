import * as z from 'zod'
import type { Span } from '../../trace/span'
import type { Trace } from '../../trace/trace'

/**
 * USD per 1M input / output tokens, by model id as it appears on the spans.
 *
 * @example
 * checkBudget(trace, { costUsd: 0.5 }, { prices: PriceTableSchema.parse({ 'o3-mini': { input: 1.1, output: 4.4 } }) })
 */
export const PriceTableSchema = z.record(
  z.string(),
  z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }),
)
export type PriceTable = z.infer<typeof PriceTableSchema>

/** Attributes where instrumentations record a call's cost in USD. */
const COST_KEYS = ['llm.cost.total', 'gen_ai.usage.cost', 'gen_ai.cost.usd']

/** One model call's usage: tokens (undefined when the span has no counts) and cost (undefined when unknown). */
export interface LlmUsage {
  span: Span
  tokens: number | undefined
  costUsd: number | undefined
}

/**
 * Usage of every LLM call of a trace, in start order. An LLM span that wraps other LLM spans with
 * token counts (a framework span around the provider span) is counted once: the wrapper or what it
 * wraps, whichever counts more tokens (never less than the trace shows). An LLM call inside a tool or an
 * agent below an LLM span is a call of its own, not wrapped.
 *
 * @example
 * const total = llmUsage(trace).reduce((n, u) => n + (u.tokens ?? 0), 0)
 */
export function llmUsage(trace: Trace, prices: PriceTable = {}): LlmUsage[] {
  const llms = trace.spans.filter((s) => s.kind === 'llm')
  // Each LLM span with counts, under the LLM spans that wrap it (up to the nearest tool or agent span).
  const wrapped = new Map<string, Span[]>()
  for (const s of llms) {
    if (!s.tokens) continue
    for (const a of trace.ancestors(s.id)) {
      if (a.kind === 'tool' || a.kind === 'agent') break
      if (a.kind !== 'llm') continue
      const inner = wrapped.get(a.id)
      if (inner) inner.push(s)
      else wrapped.set(a.id, [s])
    }
  }
  const left = new Set<string>()
  for (const [id, inner] of wrapped) {
    const own = tokensOf(trace.get(id)!) ?? 0
    const within = inner.reduce((n, s) => n + (tokensOf(s) ?? 0), 0)
    // A wrapper that reports more than the calls it wraps keeps its count: leaving it out under-counted a budget.
    if (own > within) for (const s of inner) left.add(s.id)
    else left.add(id)
  }
  return llms
    .filter((s) => !left.has(s.id))
    .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
    .map((span) => ({ span, tokens: tokensOf(span), costUsd: costOf(span, prices) }))
}

function tokensOf(span: Span): number | undefined {
  const t = span.tokens
  if (!t) return undefined
  return t.total > 0 ? t.total : t.prompt + t.completion
}

function costOf(span: Span, prices: PriceTable): number | undefined {
  for (const key of COST_KEYS) {
    const raw = span.attributes[key]
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN
    if (Number.isFinite(n) && n >= 0) return n
  }
  const price = span.model ? prices[span.model] : undefined
  if (!price || !span.tokens) return undefined
  return (span.tokens.prompt * price.input + span.tokens.completion * price.output) / 1_000_000
}
