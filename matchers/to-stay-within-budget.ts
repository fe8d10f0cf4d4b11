import type { z } from 'zod'
import { priceOf } from '../src/judges/cost'
import { BudgetSchema, checkBudget, type BudgetCheck } from '../src/metrics/detectors/budget'
import { llmUsage, PriceTableSchema, type PriceTable } from '../src/metrics/detectors/usage'
import type { Trace } from '../src/trace/trace'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { describeSpan, matcherHint } from './messages'
import { parseOptions } from './parse-options'
import { attachVerdicts } from '../runner/attach-verdicts'
import { resolveTrace } from './trace-received'

/**
 * Options of {@link toStayWithinBudget}: at least one of `tokens` (LLM tokens, prompt + completion),
 * `llmCalls`, `latencyMs` (the run's wall time) and `costUsd`; `prices` (USD per 1M input/output
 * tokens by model id as on the spans) adds to or overrides the built-in price table for `costUsd`.
 *
 * @example
 * ToStayWithinBudgetOptionsSchema.parse({ tokens: 200_000, llmCalls: 40, costUsd: 0.5, prices: { 'o3-mini': { input: 1.1, output: 4.4 } } })
 */
export const ToStayWithinBudgetOptionsSchema = BudgetSchema.extend({ prices: PriceTableSchema.optional() })
  .strict()
  .refine(
    (o) => o.tokens !== undefined || o.llmCalls !== undefined || o.latencyMs !== undefined || o.costUsd !== undefined,
    {
      error: 'give at least one budget: tokens, llmCalls, latencyMs or costUsd',
    },
  )
export type ToStayWithinBudgetOptions = z.infer<typeof ToStayWithinBudgetOptionsSchema>

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits })
const VALUE: Record<BudgetCheck['budget'], (n: number) => string> = {
  tokens: (n) => `${fmt(n)} tokens`,
  llmCalls: (n) => `${fmt(n)} LLM calls`,
  latencyMs: (n) => `${fmt(n)} ms`,
  costUsd: (n) => `$${fmt(n, 4)}`,
}

/**
 * Passes when the run stays within every given budget (via `checkBudget`): LLM tokens and calls are
 * counted on LLM spans (a wrapper span around a provider span counts once), latency is the trace's
 * wall time, cost is each LLM call's recorded cost or its tokens × the model's price. When some LLM
 * call's cost cannot be known (model not in the price table, no token counts), a `costUsd` budget
 * fails — under `.not` too — naming the models, rather than pass on a partial sum. Likewise a `latencyMs`
 * budget on a trace whose span times are implausible (ms or µs epochs in ns fields, times before 2000 or
 * after tomorrow, end before start) is unjudgeable and fails under `.not` too, rather than pass on "0 ms".
 *
 * @example
 * expect(trace).toStayWithinBudget({ tokens: 200_000, llmCalls: 40, latencyMs: 120_000 })
 */
export function toStayWithinBudget(
  this: MatcherContext,
  received: unknown,
  budget: ToStayWithinBudgetOptions,
): MatcherResult {
  // Vitest leaves `isNot` undefined on positive assertions: read it as `=== true`.
  const isNot = this.isNot === true
  const hint = { name: 'toStayWithinBudget', args: 'budget', isNot }
  const utils = this.utils
  const allowed = '{ tokens?, llmCalls?, latencyMs?, costUsd?: positive numbers, prices? }'
  const { prices: override, ...limits } = parseOptions(ToStayWithinBudgetOptionsSchema, budget, {
    ...hint,
    allowed,
    what: 'budget',
  })
  const trace = resolveTrace(received, hint)
  const prices = priceTable(trace, override)
  const unpriced = limits.costUsd === undefined ? [] : llmUsage(trace, prices).filter((u) => u.costUsd === undefined)
  const result = checkBudget(trace, limits, { prices })

  if (unpriced.length > 0) {
    const models = [...new Set(unpriced.map((u) => u.span.model ?? '(no model name)'))]
    const cause = `cannot compute the cost: ${unpriced.length} of ${llmUsage(trace).length} LLM calls have no recorded cost and no known price (${models.join(', ')}) — pass prices: { ${JSON.stringify(models[0])}: { input, output } } (USD per 1M tokens), or drop costUsd`
    attachVerdicts(this, [verdictOf(false, `costUsd: ${cause}`, result.checks)], undefined, {
      matcher: hint.name,
      passed: false,
    })
    // The other budgets are still worth seeing; the cost line would show a partial sum.
    const others = result.checks.filter((c) => c.budget !== 'costUsd').map((c) => `  ${checkLine(trace, c)}`)
    const message = () =>
      [
        matcherHint(hint.name, isNot, hint.args, utils),
        '',
        `Budget costUsd: unknown — this fails${isNot ? ' under .not too' : ''}`,
        `Cause: ${cause}`,
        ...others,
      ].join('\n')
    return { pass: isNot, message, actual: actualOf(result.checks), expected: limits }
  }

  const unmeasured = result.checks.find((c) => c.unjudgeable)
  if (unmeasured) {
    const cause = `cannot measure ${unmeasured.budget}: ${unmeasured.unjudgeable}`
    attachVerdicts(this, [unjudgeableVerdict(`${cause}`)], undefined, { matcher: hint.name, passed: false })
    const others = result.checks.filter((c) => c !== unmeasured).map((c) => `  ${checkLine(trace, c)}`)
    const message = () =>
      [
        matcherHint(hint.name, isNot, hint.args, utils),
        '',
        `Budget ${unmeasured.budget}: unknown — this fails${isNot ? ' under .not too' : ''}`,
        `Cause: ${cause}. Fix the exporter's clock or units (OTLP times are nanoseconds since the epoch), or drop ${unmeasured.budget}`,
        ...others,
      ].join('\n')
    return { pass: isNot, message, actual: actualOf(result.checks), expected: limits }
  }

  const pass = result.withinBudget
  const exceeded = result.checks.filter((c) => c.exceeded)
  const summary = pass
    ? `stayed within ${result.checks.length === 1 ? 'the budget' : `all ${result.checks.length} budgets`}`
    : `exceeded ${exceeded.length} of ${result.checks.length} ${result.checks.length === 1 ? 'budget' : 'budgets'} (${exceeded.map((c) => c.budget).join(', ')})`
  const assertionPassed = pass !== isNot
  // The verdict says what the run did (within budget or not); the assertion says whether that was expected.
  attachVerdicts(
    this,
    [
      verdictOf(
        pass,
        `${isNot ? 'expected a budget to be exceeded; the run ' : 'the run '}${summary}: ${result.checks.map((c) => c.summary).join('; ')}`,
        result.checks,
      ),
    ],
    undefined,
    {
      matcher: hint.name,
      passed: assertionPassed,
    },
  )
  const head = isNot ? `Expected the run to exceed a budget, but it ${summary}:` : `The run ${summary}:`
  // Exceeded budgets first: they are why the assertion failed.
  const ordered = [...exceeded, ...result.checks.filter((c) => !c.exceeded)].map((c) => `  ${checkLine(trace, c)}`)
  const message = () => [matcherHint(hint.name, isNot, hint.args, utils), '', head, ...ordered].join('\n')
  return { pass, message, actual: actualOf(result.checks), expected: limits }
}

/** The built-in price of every model on the trace's LLM spans, then the caller's prices on top. */
function priceTable(trace: Trace, override: PriceTable | undefined): PriceTable {
  const table: PriceTable = {}
  for (const span of trace.spans) {
    if (span.kind !== 'llm' || !span.model || span.model in table) continue
    const price = priceOf(span.model)
    if (price) table[span.model] = price
  }
  return { ...table, ...override }
}

/** `✗ tokens: 26,311 tokens > limit 20,000 tokens — crossed at llm:… (id …, path …), span 7/13`. */
function checkLine(trace: Trace, c: BudgetCheck): string {
  const show = VALUE[c.budget]
  const head = `${c.exceeded ? '✗' : '✓'} ${c.budget}: ${show(c.actual)} ${c.exceeded ? '>' : '≤'} limit ${show(c.limit)}`
  const span = c.overAt && trace.get(c.overAt.spanId)
  const where = span ? ` — crossed at ${describeSpan(trace, span)}, span ${c.overAt!.position}/${trace.size}` : ''
  return `${head}${where}${c.note ? ` (${c.note})` : ''}`
}

function actualOf(checks: BudgetCheck[]): Record<string, number> {
  return Object.fromEntries(checks.map((c) => [c.budget, c.actual]))
}

function unjudgeableVerdict(reason: string): Verdict {
  return {
    metric: 'budget',
    level: 'agent',
    scale: 'binary',
    raw: null,
    score: null,
    threshold: 1,
    pass: false,
    outcome: 'unjudgeable',
    reason,
  }
}

function verdictOf(pass: boolean, reason: string, checks: BudgetCheck[]): Verdict {
  return {
    metric: 'budget',
    level: 'agent',
    scale: 'binary',
    raw: checks.filter((c) => c.exceeded).length,
    score: pass ? 1 : 0,
    threshold: 1,
    pass,
    outcome: pass ? 'pass' : 'fail',
    reason,
  }
}
