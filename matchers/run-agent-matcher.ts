import { z } from 'zod'
import { diagnose } from '../src/diagnosis/diagnose'
import { metricLabel } from '../src/diagnosis/format'
import { DiagnoseOptionsSchema, type AgentMetric } from '../src/diagnosis/types'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from './context'
import { judgeLine, matcherHint, verdictLines } from './messages'
import { attachVerdicts, track } from './runtime'
import { parseOptions } from './parse-options'
import { traceJudge, TraceJudgeOptionSchema } from './trace-judge'
import { resolveTrace } from './trace-received'

/**
 * Options of the agent-level matchers: `judge` (a Judge, or `false` for the deterministic part
 * only, where a metric has one), `threshold` (normalized pass threshold, 0..1; default the
 * metric's own) and `budgetTokens` (per judge call; long runs are chunked within it).
 *
 * @example
 * AgentMatcherOptionsSchema.parse({ threshold: 0.75, budgetTokens: 8000 })
 */
export const AgentMatcherOptionsSchema = DiagnoseOptionsSchema.pick({ threshold: true, budgetTokens: true }).extend({
  judge: TraceJudgeOptionSchema.optional(),
})
export type AgentMatcherOptions = z.input<typeof AgentMatcherOptionsSchema>

/** One agent-level matcher: which metrics decide it (all must pass), and how it is shown. */
export interface AgentMatcherSpec {
  name: string
  args?: string
  metrics: AgentMetric[]
  options: AgentMatcherOptions | undefined
  /** What the run should achieve (completeness); default the root agent's task. */
  goal?: string
}

/**
 * The body shared by the agent-level matchers: resolve the trace, run the top-down pass of
 * `diagnose` for the wanted metrics only (no span judging) through the file's cassette, attach the
 * agent verdicts, and pass when every wanted metric passes. A metric without a verdict (unjudgeable,
 * or no judge for a judge-only metric) fails both ways.
 *
 * @example
 * return runAgentMatcher(this, received, { name: 'toFollowPlan', metrics: ['agent.plan_efficiency'], options })
 */
export function runAgentMatcher(ctx: MatcherContext, received: unknown, spec: AgentMatcherSpec): Promise<MatcherResult> {
  const args = spec.args ?? (spec.options === undefined ? '' : 'options')
  return track(ctx, spec.name, async () => {
    const allowed = '{ judge?: Judge | false, threshold?: 0..1, budgetTokens? }'
    const { judge: judgeOption, threshold, budgetTokens } = parseOptions(AgentMatcherOptionsSchema, spec.options, { name: spec.name, args, isNot: ctx.isNot, allowed })
    const trace = resolveTrace(received, { name: spec.name, args, isNot: ctx.isNot })
    const judge = traceJudge(ctx, judgeOption, { name: spec.name, args, withoutJudge: 'Agent-level metrics are judged; pass { judge } or configure one.' })
    // An empty selection skips the span-level pass: these matchers only need the top-down view.
    const diagnosis = await diagnose(trace, { judge, agent: spec.metrics, goal: spec.goal, budgetTokens, select: { kind: [] } })
    const verdicts = spec.metrics.map((metric) => atThreshold(diagnosis.agent.verdicts.find((v) => v.metric === metric) ?? missing(metric, judge === undefined), threshold))
    attachVerdicts(ctx, verdicts)
    const unjudgeable = verdicts.some((v) => v.outcome === 'unjudgeable')
    const pass = unjudgeable ? ctx.isNot === true : verdicts.every((v) => v.pass)
    const message = () => {
      const body = verdicts.flatMap((v) => verdictLines({ ...v, judge: undefined }, titleOf(v.metric), ctx.isNot))
      const judged = verdicts.find((v) => v.judge)
      return [matcherHint(spec.name, ctx.isNot, args), '', ...body, ...(judged && judgeLine(judged) ? [judgeLine(judged)!] : [])].join('\n')
    }
    return { pass, message, meta: { verdicts } }
  })
}

/** `agent.plan_efficiency` → `Plan efficiency`. */
function titleOf(metric: string): string {
  const label = metricLabel(metric)
  return label.charAt(0).toUpperCase() + label.slice(1)
}

/** The verdict re-decided at the caller's threshold (the judge's score does not change). */
function atThreshold(v: Verdict, threshold: number | undefined): Verdict {
  if (threshold === undefined || v.outcome === 'unjudgeable' || v.score === null) return v
  const pass = v.score >= threshold
  return { ...v, threshold, pass, outcome: pass ? 'pass' : 'fail' }
}

function missing(metric: AgentMetric, deterministic: boolean): Verdict {
  const reason = deterministic
    ? `${metric} needs a judge: with { judge: false } only deterministic checks run, and this metric has none — pass { judge } or set AGENT_VERDICT_JUDGE`
    : `the diagnosis returned no ${metric} verdict`
  return { metric, level: 'agent', scale: 'likert5', raw: null, score: null, threshold: 0.5, pass: false, outcome: 'unjudgeable', reason }
}
