import type { z } from 'zod'
import { diagnose } from '../src/diagnosis/diagnose'
import { metricLabel } from '../src/diagnosis/format'
import { DiagnoseOptionsSchema, type AgentMetric } from '../src/diagnosis/types'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { judgeLine, matcherHint, usageMessage, verdictLines } from './messages'
import { attachVerdicts } from '../runner/attach-verdicts'
import { track } from '../runner/unawaited-guard'
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

/** Agent metrics with a deterministic part, which `{ judge: false }` can still check. */
const DETERMINISTIC: readonly AgentMetric[] = ['agent.tool_abuse']

/**
 * The body shared by the agent-level matchers: resolve the trace, run the top-down pass of
 * `diagnose` for the wanted metrics only (no span judging) through the file's cassette, attach the
 * agent verdicts, and pass when every wanted metric passes. An unjudgeable metric fails both ways.
 * With `{ judge: false }` only metrics with a deterministic part are checked (the others are named
 * as skipped); a matcher with none of those rejects the option.
 *
 * @example
 * return runAgentMatcher(this, received, { name: 'toFollowPlan', metrics: ['agent.plan_efficiency'], options })
 */
export function runAgentMatcher(
  ctx: MatcherContext,
  received: unknown,
  spec: AgentMatcherSpec,
): Promise<MatcherResult> {
  const args = spec.args ?? (spec.options === undefined ? '' : 'options')
  return track(ctx, spec.name, async () => {
    const allowed = '{ judge?: Judge | false, threshold?: 0..1, budgetTokens? }'
    const {
      judge: judgeOption,
      threshold,
      budgetTokens,
    } = parseOptions(AgentMatcherOptionsSchema, spec.options, { name: spec.name, args, isNot: ctx.isNot, allowed })
    const checked = judgeOption === false ? spec.metrics.filter((m) => DETERMINISTIC.includes(m)) : spec.metrics
    if (checked.length === 0) {
      const problem = `${spec.metrics.map((m) => metricLabel(m)).join(' and ')} ${spec.metrics.length === 1 ? 'is' : 'are'} judged and ${spec.metrics.length === 1 ? 'has' : 'have'} no deterministic check, so { judge: false } leaves nothing to check — pass { judge } or set AGENT_VERDICT_JUDGE`
      throw new TypeError(usageMessage(spec.name, ctx.isNot, args, problem))
    }
    const skipped = spec.metrics.filter((m) => !checked.includes(m))
    const trace = resolveTrace(received, { name: spec.name, args, isNot: ctx.isNot })
    const judge = traceJudge(ctx, judgeOption, {
      name: spec.name,
      args,
      withoutJudge: 'Agent-level metrics are judged: pass { judge } in code or configure one.',
    })
    // An empty selection skips the span-level pass: these matchers only need the top-down view.
    const diagnosis = await diagnose(trace, {
      judge,
      agent: checked,
      goal: spec.goal,
      budgetTokens,
      select: { kind: [] },
    })
    const verdicts = checked.map((metric) =>
      atThreshold(diagnosis.agent.verdicts.find((v) => v.metric === metric) ?? missing(metric), threshold),
    )
    const unjudgeable = verdicts.some((v) => v.outcome === 'unjudgeable')
    // No verdict is never a pass, nor a "not": `pass: isNot` fails both ways.
    const pass = unjudgeable ? ctx.isNot === true : verdicts.every((v) => v.pass)
    attachVerdicts(ctx, verdicts, undefined, {
      matcher: spec.name,
      passed: !unjudgeable && pass !== (ctx.isNot === true),
    })
    const message = () => {
      // What failed leads; under .not every metric passed, so the order stays.
      const ordered = [...verdicts.filter((v) => !v.pass), ...verdicts.filter((v) => v.pass)]
      const body = ordered.flatMap((v) => verdictLines(forDisplay(v), titleOf(v.metric), ctx.isNot === true))
      const notes = skipped.map((m) => `${titleOf(m)}: skipped — judged only, and { judge: false } was given`)
      const judged = verdicts.find((v) => v.judge)
      return [
        matcherHint(spec.name, ctx.isNot, args, ctx.utils),
        '',
        ...body,
        ...notes,
        ...(judged && judgeLine(judged) ? [judgeLine(judged)!] : []),
      ].join('\n')
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

/** A ratio verdict shows its normalized score (its raw value is a count); the judge goes on the last line once. */
function forDisplay(v: Verdict): Verdict {
  const shown = { ...v, judge: undefined }
  return v.scale === 'ratio' && v.score !== null ? { ...shown, raw: Number(v.score.toFixed(2)) } : shown
}

function missing(metric: AgentMetric): Verdict {
  return {
    metric,
    level: 'agent',
    scale: 'likert5',
    raw: null,
    score: null,
    threshold: 0.5,
    pass: false,
    outcome: 'unjudgeable',
    reason: `the diagnosis returned no ${metric} verdict`,
  }
}
