// Trace matchers over repeated agent trials: the matcher checks each trial's trace, a declared rule decides.
import { isTrials } from '../src/trials/run-trials'
import { describeRule, parseTrialRule, summarizeTrials, type TrialRuleOption } from '../src/trials/summarize'
import type { Verdict } from '../src/verdict/verdict'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { matcherHint, usageMessage } from './messages'
import { attachTrialVerdicts, TRIAL_EVIDENCE, type TrialEvidence, verdictAssertion } from '../runner/attach-verdicts'
import { track } from '../runner/unawaited-guard'

/** The option a trace matcher takes when `received` comes from `runTrials`. */
export interface TrialsOption {
  /** The rule deciding the assertion over the trials: `'pass^k'`, `'pass@k'` or `{ passRate, bound? }`. */
  trials?: TrialRuleOption
}

type Matcher<A extends unknown[]> = (this: MatcherContext, received: unknown, ...args: A) => Promise<MatcherResult>

/** The matcher's arguments with {@link TrialsOption} added to the options argument at index `I`. */
export type WithTrialsAt<A extends unknown[], I extends number> = {
  [K in keyof A]: K extends `${I}` ? A[K] & TrialsOption : A[K]
}

// What a trace matcher's result says about unjudgeable: agent matchers carry verdicts, toHaveNoFailingSpans the diagnosis verdict.
function wasUnjudgeable(result: MatcherResult): boolean {
  const meta = result.meta as { verdicts?: Verdict[]; diagnosis?: { verdict?: { outcome?: string } } } | undefined
  return (
    meta?.verdicts?.some((v) => v.outcome === 'unjudgeable') === true ||
    meta?.diagnosis?.verdict?.outcome === 'unjudgeable'
  )
}

// The lines of a trial's message after the matcher hint: what failed, where and why.
function gist(result: MatcherResult): string {
  const lines = result
    .message()
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean)
  return lines.slice(0, 2).join(' ').slice(0, 500)
}

/**
 * Wraps a trace matcher so it also accepts `runTrials` results. Each trial's trace is checked by the
 * matcher as usual (its verdicts and span tree go to the report, judged through the cassette), one
 * after another; then one verdict `trials.<matcher>` with k, passes, interval and rule decides the
 * assertion. `optionsAt` is the index of the options argument after `received`.
 *
 * @example
 * const toHaveNoFailingSpansOrTrials = withTraceTrials('toHaveNoFailingSpans', toHaveNoFailingSpans, 0)
 */
export function withTraceTrials<A extends unknown[], I extends number>(
  name: string,
  matcher: Matcher<A>,
  optionsAt: I,
): Matcher<WithTrialsAt<A, I>> {
  const call = matcher as unknown as (
    this: MatcherContext,
    received: unknown,
    ...args: unknown[]
  ) => Promise<MatcherResult>
  const wrapped = function (this: MatcherContext, received: unknown, ...args: unknown[]): Promise<MatcherResult> {
    const options = args[optionsAt] as (TrialsOption & Record<string, unknown>) | undefined
    const rest =
      options && 'trials' in options
        ? Object.fromEntries(Object.entries(options).filter(([k]) => k !== 'trials'))
        : options
    const innerArgs = [...args]
    if (optionsAt < innerArgs.length) innerArgs[optionsAt] = rest
    if (!isTrials(received)) {
      if (options?.trials !== undefined) {
        return Promise.reject(
          new TypeError(
            usageMessage(
              name,
              this.isNot,
              'options',
              'the trials option needs received values from runTrials(k, agent): `await expect(await runTrials(5, runAgent)).' +
                name +
                '({ trials: "pass^k" })`',
            ),
          ),
        )
      }
      return call.call(this, received, ...args)
    }
    return track(this, name, async () => {
      let rule: ReturnType<typeof parseTrialRule>
      try {
        rule = parseTrialRule(options?.trials)
      } catch (error) {
        throw new TypeError(
          usageMessage(name, this.isNot, 'options', `received ${received.k} trials, so ${(error as Error).message}`),
        )
      }
      // Each trial is judged as a plain assertion; the polarity belongs to the rule, not to each trial. Its
      // verdicts and traces are evidence for the rule, attached below with the rule's one assertion.
      const evidence: TrialEvidence = []
      const plain = Object.create(this, {
        isNot: { value: false },
        [TRIAL_EVIDENCE]: { value: evidence },
      }) as MatcherContext
      const perTrial: Verdict[] = []
      for (const [i, result] of received.results.entries()) {
        const r = await call.call(plain, result, ...innerArgs)
        const outcome = r.pass ? 'pass' : wasUnjudgeable(r) ? 'unjudgeable' : 'fail'
        perTrial.push({
          metric: `trials.${name}`,
          level: 'agent',
          scale: 'binary',
          raw: r.pass ? 1 : 0,
          score: outcome === 'unjudgeable' ? null : r.pass ? 1 : 0,
          threshold: 1,
          pass: r.pass,
          outcome,
          reason: r.pass ? 'passed' : gist(r) || `trial ${i + 1} failed`,
        })
      }
      // Judge tokens and cost are on the trials' own verdicts already; the summary adds none.
      const verdict = summarizeTrials(perTrial, rule)
      const { pass, passed } = verdictAssertion(verdict, this.isNot === true)
      attachTrialVerdicts(this, evidence, verdict, { matcher: name, passed })
      const t = verdict.trials!
      const message = () =>
        [
          matcherHint(name, this.isNot, 'options', this.utils),
          '',
          `${name} over ${t.k} trials: ${verdict.outcome}${this.isNot && verdict.pass ? ' — expected the rule not to be met' : ''}`,
          `Rule: ${describeRule(t.rule, t.k)}`,
          `Passed: ${t.passes}/${t.k} (rate ${+t.rate.toFixed(4)}, ${Math.round(t.confidence * 100)}% Wilson interval ${t.lower.toFixed(4)}–${t.upper.toFixed(4)})`,
          `Trials: ${t.outcomes.map((o, i) => `${i + 1} ${o === 'pass' ? '✓' : o === 'fail' ? '✗' : '?'}`).join('  ')}`,
          ...perTrial.flatMap((v, i) => (v.outcome === 'pass' ? [] : [`Trial ${i + 1}: ${v.outcome} — ${v.reason}`])),
        ].join('\n')
      return { pass, message, meta: { verdict } }
    })
  }
  return wrapped as unknown as Matcher<WithTrialsAt<A, I>>
}
