// One verdict over k judged trials: k, passes, rate, Wilson interval, and the rule that decides the assertion.
import { wilsonInterval } from '../stats/interval'
import type { TrialRule, TrialsSummary } from '../verdict/trials'
import type { JudgeInfo, Verdict } from '../verdict/verdict'

/** A rule as a user writes it: `'pass^k'`, `'pass@k'`, or `{ passRate: 0.8, bound?: 'point' | 'wilson-lower' }`. */
export type TrialRuleOption =
  | 'pass^k'
  | 'pass@k'
  | { passRate: number; bound?: 'point' | 'wilson-lower'; confidence?: number }

/**
 * Validates a rule option; a wrong one throws saying what is accepted.
 *
 * @example
 * parseTrialRule({ passRate: 0.8, bound: 'wilson-lower' }) // { rule: { kind: 'passRate', min: 0.8, bound: 'wilson-lower' }, confidence: 0.95 }
 */
export function parseTrialRule(option: unknown): { rule: TrialRule; confidence: number } {
  const help =
    "trials must be 'pass^k', 'pass@k' or { passRate: p (0..1), bound?: 'point' | 'wilson-lower', confidence?: 0.95 }"
  if (option === 'pass^k' || option === 'pass@k') return { rule: { kind: option }, confidence: 0.95 }
  if (typeof option === 'object' && option !== null && 'passRate' in option) {
    const {
      passRate,
      bound = 'point',
      confidence = 0.95,
    } = option as { passRate: unknown; bound?: unknown; confidence?: unknown }
    if (typeof passRate !== 'number' || !(passRate >= 0 && passRate <= 1))
      throw new TypeError(`${help}; passRate ${String(passRate)} is not in 0..1`)
    if (bound !== 'point' && bound !== 'wilson-lower') throw new TypeError(`${help}; bound ${String(bound)} is neither`)
    if (typeof confidence !== 'number' || !(confidence > 0 && confidence < 1))
      throw new TypeError(`${help}; confidence ${String(confidence)} is not in (0, 1)`)
    return { rule: { kind: 'passRate', min: passRate, bound }, confidence }
  }
  throw new TypeError(`${help}; got ${JSON.stringify(option)}`)
}

const n4 = (n: number) => String(Math.round(n * 10_000) / 10_000)

/** `pass^5 (all 5 must pass)`, `pass@5 (at least one of 5 must pass)`, `pass rate ≥ 0.8 (Wilson lower bound)`. */
export function describeRule(rule: TrialRule, k: number): string {
  if (rule.kind === 'pass^k') return `pass^${k} (all ${k} must pass)`
  if (rule.kind === 'pass@k') return `pass@${k} (at least one of ${k} must pass)`
  return `pass rate ≥ ${n4(rule.min)}${rule.bound === 'wilson-lower' ? ' (lower bound of the Wilson interval)' : ''}`
}

function sumJudges(verdicts: readonly Verdict[]): JudgeInfo | undefined {
  const judged = verdicts.map((v) => v.judge).filter((j): j is JudgeInfo => j !== undefined)
  if (judged.length === 0) return undefined
  const costs = judged.map((j) => j.costUsd)
  return {
    provider: judged[0].provider,
    model: judged[0].model,
    promptVersion: judged[0].promptVersion,
    tokens: {
      input: judged.reduce((s, j) => s + j.tokens.input, 0),
      output: judged.reduce((s, j) => s + j.tokens.output, 0),
    },
    costUsd: costs.every((c) => typeof c === 'number')
      ? Math.round(costs.reduce((s: number, c) => s + (c as number), 0) * 1e8) / 1e8
      : null,
    latencyMs: judged.reduce((s, j) => s + j.latencyMs, 0),
    // Replayed only when every trial was: one live call means this run paid for a judgement.
    cached: judged.every((j) => j.cached),
  }
}

/**
 * Folds the k trial verdicts of one metric into one verdict (scale `ratio`, score = pass rate) that
 * carries `trials`. Any unjudgeable trial makes it unjudgeable: a missing judgement is never counted
 * as a pass or a fail.
 *
 * @example
 * summarizeTrials(perTrialVerdicts, parseTrialRule('pass^k')).pass
 */
export function summarizeTrials(
  verdicts: readonly Verdict[],
  { rule, confidence }: { rule: TrialRule; confidence: number },
): Verdict {
  const k = verdicts.length
  if (k === 0) throw new RangeError('summarizeTrials: no trial verdicts')
  const outcomes = verdicts.map((v) => v.outcome)
  const passes = outcomes.filter((o) => o === 'pass').length
  const ci = wilsonInterval(passes, k, confidence)
  const unjudgeable = outcomes.map((o, i) => (o === 'unjudgeable' ? i : -1)).filter((i) => i >= 0)
  const decided =
    rule.kind === 'pass^k'
      ? passes === k
      : rule.kind === 'pass@k'
        ? passes >= 1
        : (rule.bound === 'wilson-lower' ? ci.lower : ci.rate) >= rule.min
  const summary: TrialsSummary = {
    k,
    passes,
    rate: ci.rate,
    lower: ci.lower,
    upper: ci.upper,
    confidence,
    rule,
    outcomes,
  }
  const head = `${passes}/${k} trials passed (rate ${n4(ci.rate)}, ${Math.round(confidence * 100)}% CI ${n4(ci.lower)}–${n4(ci.upper)}); rule ${describeRule(rule, k)}`
  const notes = verdicts.flatMap((v, i) => (v.outcome === 'pass' ? [] : [`trial ${i + 1} ${v.outcome}: ${v.reason}`]))
  const threshold = rule.kind === 'pass^k' ? 1 : rule.kind === 'pass@k' ? 1 / k : rule.min
  const judge = sumJudges(verdicts)
  return {
    metric: verdicts[0].metric,
    level: verdicts[0].level,
    scale: 'ratio',
    raw: ci.rate,
    score: ci.rate,
    threshold,
    pass: unjudgeable.length === 0 && decided,
    outcome: unjudgeable.length > 0 ? 'unjudgeable' : decided ? 'pass' : 'fail',
    reason: [
      unjudgeable.length > 0
        ? `${head} — not decided: ${unjudgeable.length} trial(s) unjudgeable`
        : `${head} — ${decided ? 'met' : 'not met'}`,
      ...notes,
    ].join('; '),
    ...(verdicts[0].image ? { image: verdicts[0].image } : {}),
    ...(judge ? { judge } : {}),
    trials: summary,
  }
}
