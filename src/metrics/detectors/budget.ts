import * as z from 'zod'
import type { Span } from '../../trace/span'
import { describeTimeProblems, timeProblems } from '../../trace/time-sanity'
import type { Trace } from '../../trace/trace'
import { FindingSchema, MAX_EVIDENCE_CHARS, type Finding } from './finding'
import { llmUsage, type PriceTable } from './usage'

export const BUDGET_DETECTOR = 'budget'

/**
 * Limits for one agent run. `tokens` and `llmCalls` count LLM spans only (agent spans repeat run totals);
 * `latencyMs` is the trace's wall time; `costUsd` prices each LLM call (see {@link checkBudget}).
 *
 * @example
 * const budget = BudgetSchema.parse({ tokens: 200_000, llmCalls: 40, latencyMs: 120_000 })
 */
export const BudgetSchema = z
  .object({
    tokens: z.number().positive().optional(),
    llmCalls: z.number().int().positive().optional(),
    latencyMs: z.number().positive().optional(),
    costUsd: z.number().positive().optional(),
  })
  .strict()
export type Budget = z.infer<typeof BudgetSchema>

/** The four budgets. */
export const BudgetNameSchema = z.enum(['tokens', 'llmCalls', 'latencyMs', 'costUsd'])
export type BudgetName = z.infer<typeof BudgetNameSchema>

/** The span at which a budget ran out, with its 1-based position in depth-first order. */
export const BudgetSpanSchema = z.object({
  spanId: z.string(),
  name: z.string(),
  kind: z.string(),
  position: z.number().int().positive(),
})

/**
 * One budget's outcome: `actual` vs `limit`, and where the running total first went over.
 *
 * @example
 * const over = checkBudget(trace, { tokens: 1000 }).checks.filter((c) => BudgetCheckSchema.parse(c).exceeded)
 */
export const BudgetCheckSchema = z.object({
  budget: BudgetNameSchema,
  limit: z.number(),
  actual: z.number(),
  exceeded: z.boolean(),
  overAt: BudgetSpanSchema.optional(),
  /** Caveats, e.g. LLM calls whose cost is unknown and so not counted. */
  note: z.string().optional(),
  /**
   * Why the budget cannot be measured (implausible or reversed span times for `latencyMs`): the check is
   * then neither within nor over budget, and `withinBudget` is false.
   */
  unjudgeable: z.string().optional(),
  /** One line for people: "tokens 212,340 > limit 200,000, over at span 17/40 llm LiteLLMModel.__call__ (id 4a1f…)". */
  summary: z.string(),
})
export type BudgetCheck = z.infer<typeof BudgetCheckSchema>

/**
 * What {@link checkBudget} returns: every check, and a Resource Exhaustion finding per exceeded budget.
 *
 * @example
 * BudgetResultSchema.parse(checkBudget(trace, { llmCalls: 40 })).withinBudget
 */
export const BudgetResultSchema = z.object({
  withinBudget: z.boolean(),
  checks: z.array(BudgetCheckSchema),
  findings: z.array(FindingSchema),
})
export type BudgetResult = z.infer<typeof BudgetResultSchema>

/** Options of {@link checkBudget}: `prices` (USD per 1M tokens by model id) for calls without a recorded cost. */
export interface CheckBudgetOptions {
  prices?: PriceTable
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })

/**
 * Checks a trace against token / LLM-call / latency / cost budgets. Each given budget yields a check
 * with the limit, the actual figure, whether it was exceeded and the span where the running total
 * (in start order) first went over; each exceeded budget also yields a Resource Exhaustion finding on
 * that span. A latency budget over spans with implausible or reversed times (see `timeProblems`) is
 * `unjudgeable`, the run is not within budget, and the check yields a finding marked `unjudgeable` on the first
 * span with such times. Cost comes from a span's recorded cost (`llm.cost.total`, `gen_ai.usage.cost`) or from
 * `prices`; calls with neither are left out and said so in `note`.
 *
 * @example
 * const result = checkBudget(trace, { tokens: 200_000, llmCalls: 40 })
 * if (!result.withinBudget) console.log(result.checks.filter((c) => c.exceeded).map((c) => c.summary))
 */
export function checkBudget(trace: Trace, budget: Budget, options: CheckBudgetOptions = {}): BudgetResult {
  const limits = BudgetSchema.parse(budget)
  const position = new Map(trace.spans.map((s, i) => [s.id, i + 1]))
  const spanRef = (s: Span) => ({ spanId: s.id, name: s.name, kind: s.kind, position: position.get(s.id) ?? 1 })
  const calls = llmUsage(trace, options.prices)
  const checks: BudgetCheck[] = []

  const running = (
    name: BudgetName,
    limit: number,
    amount: (c: (typeof calls)[number]) => number | undefined,
    unit: string,
    digits = 0,
    note?: string,
  ) => {
    let total = 0
    let overAt: Span | undefined
    for (const call of calls) {
      const n = amount(call)
      if (n === undefined) continue
      total += n
      if (!overAt && total > limit) overAt = call.span
    }
    checks.push(makeCheck(name, limit, total, overAt && spanRef(overAt), trace.size, unit, digits, note))
  }

  if (limits.tokens !== undefined) running('tokens', limits.tokens, (c) => c.tokens, 'tokens')
  if (limits.llmCalls !== undefined) running('llmCalls', limits.llmCalls, () => 1, 'LLM calls')
  if (limits.costUsd !== undefined) {
    const unpriced = calls.filter((c) => c.costUsd === undefined)
    const models = [...new Set(unpriced.map((c) => c.span.model ?? '(no model)'))].join(', ')
    const note =
      unpriced.length > 0
        ? `${unpriced.length} of ${calls.length} LLM calls have no recorded cost and no price (${models}); they are not counted — pass prices to count them`
        : undefined
    running('costUsd', limits.costUsd, (c) => c.costUsd, 'USD', 4, note)
  }
  if (limits.latencyMs !== undefined) checks.push(latencyCheck(trace, limits.latencyMs, spanRef))

  const findings: Finding[] = checks
    .filter((c) => c.exceeded && c.overAt)
    .map((c) => ({
      spanId: c.overAt!.spanId,
      category: 'Resource Exhaustion',
      detector: BUDGET_DETECTOR,
      evidence: c.summary.slice(0, MAX_EVIDENCE_CHARS),
      reason: `${c.budget} budget exceeded (${fmtValue(c.budget, c.actual)} > ${fmtValue(c.budget, c.limit)}); the run went over at this span`,
      severity: 'high',
    }))
  // A budget that cannot be measured is a finding too, marked unjudgeable: a caller that reads only findings
  // (detect(), diagnose) must not take an empty list for "within budget".
  for (const c of checks.filter((check) => check.unjudgeable !== undefined)) {
    const first = timeProblems(trace.spans)[0]?.spanId ?? trace.spans[0]?.id
    if (first === undefined) continue
    findings.push({
      spanId: first,
      category: 'Resource Exhaustion',
      detector: BUDGET_DETECTOR,
      evidence: c.summary.slice(0, MAX_EVIDENCE_CHARS),
      reason: `${c.budget} budget cannot be checked, so it is not met: ${c.unjudgeable}`.slice(0, 2_000),
      severity: 'high',
      unjudgeable: true,
    })
  }
  return { withinBudget: checks.every((c) => !c.exceeded && !c.unjudgeable), checks, findings }
}

function fmtValue(name: BudgetName, value: number): string {
  return name === 'costUsd' ? `$${fmt(value, 4)}` : name === 'latencyMs' ? `${fmt(value)} ms` : fmt(value)
}

function makeCheck(
  budget: BudgetName,
  limit: number,
  actual: number,
  overAt: BudgetCheck['overAt'],
  size: number,
  unit: string,
  digits: number,
  note?: string,
): BudgetCheck {
  const exceeded = actual > limit
  const where = overAt
    ? `, over at span ${overAt.position}/${size} ${overAt.kind} ${overAt.name} (id ${overAt.spanId})`
    : ''
  const summary = `${budget} ${fmt(actual, digits)} ${unit} ${exceeded ? '>' : '≤'} limit ${fmt(limit, digits)}${where}`
  const check: BudgetCheck = { budget, limit, actual, exceeded, summary }
  if (exceeded && overAt) check.overAt = overAt
  if (note) check.note = note
  return check
}

/** Wall time from the first span's start to the last span's end; over at the leaf-most span running at the deadline. */
function latencyCheck(
  trace: Trace,
  limitMs: number,
  spanRef: (s: Span) => NonNullable<BudgetCheck['overAt']>,
): BudgetCheck {
  const problems = timeProblems(trace.spans)
  if (problems.length > 0) {
    // A wall time over such times means nothing (a ms epoch read as ns gave "0 ms"): neither pass nor fail.
    const why = `${problems.length} of ${trace.size} spans have implausible times: ${describeTimeProblems(problems)}`
    return {
      budget: 'latencyMs',
      limit: limitMs,
      actual: 0,
      exceeded: false,
      unjudgeable: why,
      summary: `latencyMs unknown (limit ${fmt(limitMs)} ms): ${why}`,
    }
  }
  let start: bigint | undefined
  let end: bigint | undefined
  for (const s of trace.spans) {
    if (start === undefined || s.startNs < start) start = s.startNs
    if (end === undefined || s.endNs > end) end = s.endNs
  }
  const wallMs = start === undefined || end === undefined ? 0 : Number(end - start) / 1e6
  let overAt: Span | undefined
  if (start !== undefined && wallMs > limitMs) {
    const deadline = start + BigInt(Math.round(limitMs * 1e6))
    const running = trace.spans.filter((s) => s.startNs <= deadline && s.endNs > deadline)
    // Prefer the model or tool call that was in flight; then the innermost span; else the next span to start.
    const leaf = running.filter((s) => s.kind === 'llm' || s.kind === 'tool')
    const pool = leaf.length > 0 ? leaf : running
    overAt = pool.reduce<Span | undefined>((best, s) => (!best || s.startNs >= best.startNs ? s : best), undefined)
    overAt ??= trace.spans
      .filter((s) => s.startNs > deadline)
      .reduce<Span | undefined>((best, s) => (!best || s.startNs < best.startNs ? s : best), undefined)
  }
  return makeCheck('latencyMs', limitMs, wallMs, overAt && spanRef(overAt), trace.size, 'ms', 0)
}
