import * as z from 'zod'
import { diagnose } from '../src/diagnosis/diagnose'
import { DiagnoseOptionsSchema, type Diagnosis, type PropagationPolicy } from '../src/diagnosis/types'
import type { Trace } from '../src/trace/trace'
import type { MatcherContext, MatcherResult, MatcherUtils } from '../runner/context'
import { describeSpan, excerptLine, leafLine, matcherHint, plural, usageMessage } from './messages'
import { reportTraceOf, unjudgeableSpans, verdictsOfDiagnosis } from '../src/diagnosis/report-trace'
import { attachVerdicts } from '../runner/attach-verdicts'
import { track } from '../runner/unawaited-guard'
import { parseOptions } from './parse-options'
import { traceJudge, TraceJudgeOptionSchema } from './trace-judge'
import { resolveTrace } from './trace-received'
import { restrictToMetrics, SpanMetricNameSchema } from './span-metrics'

/**
 * Options of {@link toHaveNoFailingSpans}: the diagnosis options (`select`, `policy`, `threshold`,
 * `budgetTokens`, `judgeDetectorSpans`), `judge` (a Judge, or `false` for the detectors only),
 * `metrics` (which span verdicts may fail a span: `span.instruction_following`,
 * `span.reasoning_integrity`, `span.tool_completeness`, `span.error_category`, `detectors`; default
 * all) and `allowUnjudgeable` (spans the judge could not judge do not fail the assertion).
 *
 * @example
 * ToHaveNoFailingSpansOptionsSchema.parse({ select: { kind: ['llm', 'tool'] }, policy: { type: 'threshold', threshold: 0.3 } })
 */
export const ToHaveNoFailingSpansOptionsSchema = DiagnoseOptionsSchema.pick({
  select: true,
  policy: true,
  threshold: true,
  budgetTokens: true,
  judgeDetectorSpans: true,
}).extend({
  judge: TraceJudgeOptionSchema.optional(),
  metrics: z.array(SpanMetricNameSchema).min(1).optional(),
  allowUnjudgeable: z.boolean().optional(),
})
export type ToHaveNoFailingSpansOptions = z.input<typeof ToHaveNoFailingSpansOptionsSchema>

const NAME = 'toHaveNoFailingSpans'
const ALLOWED =
  '{ judge?: Judge | false, select?, policy?, metrics?, threshold?, budgetTokens?, judgeDetectorSpans?, allowUnjudgeable? }'
/** Failing leaves and unjudgeable spans listed before "… and N more". */
const MAX_LISTED = 25

/**
 * Diagnoses the run span by span and passes when no span fails: deterministic detectors first, then
 * (with a judge) one multi-aspect judge call per selected leaf through the test file's cassette, and
 * failures propagated up the tree by `policy`. The message lists each failing leaf — where, category,
 * metric and score, reason. Spans the judge could not judge fail the assertion (under `.not` too)
 * unless `allowUnjudgeable: true`. With no judge configured it fails naming `AGENT_VERDICT_JUDGE`;
 * `{ judge: false }` runs the detectors only. Every span verdict and the span tree go to the report.
 *
 * @example
 * await expect(trace).toHaveNoFailingSpans({ select: { kind: ['llm', 'tool'] }, policy: 'existential' })
 * await expect('traces/run.json').toHaveNoFailingSpans({ judge: false })
 * await expect(trace).toHaveNoFailingSpans({ metrics: ['span.reasoning_integrity', 'detectors'] })
 */
export function toHaveNoFailingSpans(
  this: MatcherContext,
  received: unknown,
  options?: ToHaveNoFailingSpansOptions,
): Promise<MatcherResult> {
  const args = options === undefined ? '' : 'options'
  return track(this, NAME, async () => {
    const {
      judge: judgeOption,
      allowUnjudgeable,
      metrics,
      ...rest
    } = parseOptions(ToHaveNoFailingSpansOptionsSchema, options, {
      name: NAME,
      args,
      isNot: this.isNot,
      allowed: ALLOWED,
    })
    if (judgeOption === false && metrics && !metrics.includes('detectors')) {
      // Judged metrics without a judge would pass a run nobody looked at.
      throw new TypeError(
        usageMessage(
          NAME,
          this.isNot,
          args,
          `metrics ${metrics.join(', ')} are judged, and { judge: false } asks no judge — add 'detectors' to metrics, or pass { judge }`,
        ),
      )
    }
    const trace = resolveTrace(received, { name: NAME, args, isNot: this.isNot })
    const judge = traceJudge(this, judgeOption, {
      name: NAME,
      args,
      withoutJudge: 'To check the trace with the deterministic detectors only, pass { judge: false }.',
    })
    const full = await diagnose(trace, { ...rest, judge, agent: false })
    const diagnosis = metrics ? restrictToMetrics(trace, full, metrics) : full
    const outcome = diagnosis.verdict.outcome
    const verdicts = verdictsOfDiagnosis(diagnosis)
    // A judge was asked for, yet no span was judged and the detectors found nothing: the selection matched
    // nothing (a typo in `select`, a trace without llm or tool spans). That is no evidence, so no pass, nor a
    // "not" — unless the metrics asked for are the detectors alone.
    const judgedMetricsAsked = !metrics || metrics.some((m) => m !== 'detectors')
    const nothingJudged =
      diagnosis.mode === 'judge' &&
      judgedMetricsAsked &&
      outcome !== 'fail' &&
      !verdicts.some((v) => v.level === 'span' && v.judge !== undefined)
    const unjudgeableFails = (outcome === 'unjudgeable' && allowUnjudgeable !== true) || nothingJudged
    // No verdict for a span is never a pass, nor a "not": `pass: isNot` fails both ways.
    const pass = unjudgeableFails ? this.isNot === true : outcome !== 'fail'
    attachVerdicts(this, verdicts, [reportTraceOf(diagnosis, trace)], {
      matcher: NAME,
      passed: !unjudgeableFails && pass !== (this.isNot === true),
    })
    const message = () =>
      failureMessage(trace, diagnosis, {
        isNot: this.isNot === true,
        args,
        nothingJudged,
        unjudgeableFails,
        allowUnjudgeable: allowUnjudgeable === true,
        metrics,
        utils: this.utils,
      })
    // No actual/expected: the runner would add `Expected: "pass" Received: "fail"`, which the message already says better.
    return { pass, message, meta: { diagnosis: summaryOf(diagnosis) } }
  })
}

function failureMessage(
  trace: Trace,
  d: Diagnosis,
  opts: {
    isNot: boolean
    args: string
    nothingJudged: boolean
    unjudgeableFails: boolean
    allowUnjudgeable: boolean
    metrics?: string[]
    utils?: MatcherUtils
  },
): string {
  const lines = [matcherHint(NAME, opts.isNot, opts.args, opts.utils), '']
  const policy = `${policyLabel(d.policy)}${opts.metrics ? `; metrics ${opts.metrics.join(', ')}` : ''}`
  const judged = d.spans.filter((s) => s.own !== 'unjudged').length
  const scope =
    d.mode === 'judge'
      ? `${judged} judged ${judged === 1 ? 'span' : 'spans'}`
      : `${trace.size} spans checked by the deterministic detectors`
  const propagated = d.failingLeaves.filter((l) => l.propagates)
  const contained = d.failingLeaves.filter((l) => !l.propagates)

  if (opts.nothingJudged) {
    const kinds = [...new Set(trace.spans.map((s) => s.kind))].sort().join(', ')
    lines.push(
      `Nothing judged: the selection matched no span to judge among the trace's ${trace.size} ${trace.size === 1 ? 'span' : 'spans'} (kinds: ${kinds || 'none'}), and the detectors found nothing — so this fails${opts.isNot ? ' under .not too' : ''}.`,
      'Widen `select` (by default the llm and tool spans are judged), or pass { judge: false } to check the trace with the deterministic detectors alone.',
    )
    return lines.join('\n')
  }
  if (opts.unjudgeableFails) {
    lines.push(
      `Unjudgeable: the trace has no verdict for every span it wanted one for, so this fails${opts.isNot ? ' under .not too' : ''} — pass { allowUnjudgeable: true } to accept that.`,
    )
  } else if (opts.isNot) {
    lines.push(`Expected some span to fail, but no span failed the trace (${scope}, policy ${policy}).`)
  } else {
    lines.push(`${d.failingLeaves.length} of ${scope} failed (policy ${policy}):`)
  }
  lines.push(...listed(propagated.map((l) => `  ✗ ${leafLine(trace, l)}`)))
  if (contained.length > 0) {
    lines.push(
      `${contained.length} failing ${contained.length === 1 ? 'leaf' : 'leaves'} did not fail the trace under policy ${policy}:`,
    )
    lines.push(...listed(contained.map((l) => `  · ${leafLine(trace, l)}`)))
  }
  const unjudgeable = unjudgeableSpans(d)
  if (unjudgeable.length > 0) {
    lines.push(
      `${plural(unjudgeable.length, 'span')} unjudgeable${opts.allowUnjudgeable ? ' (allowed by allowUnjudgeable)' : ''}:`,
    )
    lines.push(
      ...listed(
        unjudgeable.map(
          (u) =>
            `  ? ${describeSpan(trace, { id: u.spanId, kind: u.kind, name: u.name })} — ${excerptLine(u.cause, 300)}`,
        ),
      ),
    )
  }
  lines.push(statsLine(d))
  return lines.join('\n')
}

function listed(lines: string[]): string[] {
  return lines.length <= MAX_LISTED
    ? lines
    : [...lines.slice(0, MAX_LISTED), `    … and ${lines.length - MAX_LISTED} more (all are in the report)`]
}

function policyLabel(policy: PropagationPolicy): string {
  if (policy === 'existential' || policy.type === 'existential') return 'existential'
  if (policy.type === 'threshold') return `threshold ${policy.threshold}`
  return `category: ${policy.categories.join(', ')}`
}

function statsLine(d: Diagnosis): string {
  if (d.mode === 'deterministic') return 'Mode: deterministic — detectors only, no judge was asked (judge: false)'
  const s = d.stats
  const replayed = s.cachedCalls > 0 ? ` (${s.cachedCalls} replayed from cassette)` : ''
  return `Judge: ${d.judge ?? 'unknown'} · ${plural(s.judgeCalls, 'call')}${replayed} · max prompt ${s.maxPromptTokens.toLocaleString('en-US')} of ${s.budgetTokens.toLocaleString('en-US')} tokens`
}

/** What travels in the result's `meta`: small and JSON-safe, for custom reporters. */
function summaryOf(d: Diagnosis) {
  return { traceId: d.traceId, mode: d.mode, verdict: d.verdict, failingLeaves: d.failingLeaves.length, stats: d.stats }
}
