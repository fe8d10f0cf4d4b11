// An output matcher over repeated agent trials: each trial judged (through the cassette), one verdict on the declared rule.
import type { Judge } from '../src/judges/types'
import type { MetricDefinition } from '../src/metrics/metric'
import { runMetric } from '../src/metrics/run-metric'
import type { Trials } from '../src/trials/run-trials'
import { describeRule, parseTrialRule, summarizeTrials } from '../src/trials/summarize'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { matcherHint, usageMessage } from './messages'
import { parseReceived, type NormalizedReceived } from './received'
import { attachVerdicts, verdictAssertion } from '../runner/attach-verdicts'
import { judgeFor } from '../runner/test-judge'

/** What the trials path needs of an output matcher call. */
export interface TrialsMatcherCall<I extends { output: string }, O extends { reasoning: string; score: number }> {
  name: string
  args?: string
  metric: MetricDefinition<I, O>
  judge?: Judge
  threshold?: number
  samples?: number
  trials: unknown
  input(received: NormalizedReceived): I
}

/**
 * Judges every trial with the metric (through the test file's cassette, so a replay makes no call),
 * attaches one verdict carrying k, passes, rate, interval and rule, and passes on the rule.
 *
 * @example
 * return runTrialsMatcher(ctx, trials, { name: 'toBeCorrect', metric: correctnessMetric, trials: 'pass^k', input })
 */
export async function runTrialsMatcher<I extends { output: string }, O extends { reasoning: string; score: number }>(
  ctx: MatcherContext,
  received: Trials<unknown>,
  call: TrialsMatcherCall<I, O>,
): Promise<MatcherResult> {
  let rule: ReturnType<typeof parseTrialRule>
  try {
    rule = parseTrialRule(call.trials)
  } catch (error) {
    throw new TypeError(
      usageMessage(
        call.name,
        ctx.isNot,
        call.args ?? '',
        `received ${received.k} trials, so ${(error as Error).message}`,
      ),
    )
  }
  const inputs = received.results.map((r, i) => {
    const parsed = parseReceived(r)
    if (!parsed.ok)
      throw new TypeError(usageMessage(call.name, ctx.isNot, call.args ?? '', `trial ${i + 1}: ${parsed.error}`))
    return call.input(parsed.value)
  })
  const judge = judgeFor(ctx, call.judge)
  const perTrial: Verdict[] = await Promise.all(
    inputs.map((input) => runMetric(call.metric, input, { judge, threshold: call.threshold, samples: call.samples })),
  )
  const verdict = summarizeTrials(perTrial, rule)
  const { pass, passed } = verdictAssertion(verdict, ctx.isNot === true)
  attachVerdicts(ctx, [verdict], undefined, { matcher: call.name, passed })
  const t = verdict.trials!
  const message = () =>
    [
      matcherHint(call.name, ctx.isNot, call.args ?? '', ctx.utils),
      '',
      `${call.metric.title} over ${t.k} trials: ${verdict.outcome}${ctx.isNot && verdict.pass ? ' — expected the rule not to be met' : ''}`,
      `Rule: ${describeRule(t.rule, t.k)}`,
      `Passed: ${t.passes}/${t.k} (rate ${+t.rate.toFixed(4)}, ${Math.round(t.confidence * 100)}% Wilson interval ${t.lower.toFixed(4)}–${t.upper.toFixed(4)})`,
      `Trials: ${t.outcomes.map((o, i) => `${i + 1} ${o === 'pass' ? '✓' : o === 'fail' ? '✗' : '?'}`).join('  ')}`,
      ...perTrial.flatMap((v, i) => (v.outcome === 'pass' ? [] : [`Trial ${i + 1}: ${v.outcome} — ${v.reason}`])),
    ].join('\n')
  return { pass, message, meta: { verdict } }
}
