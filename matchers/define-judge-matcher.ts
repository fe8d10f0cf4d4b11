// A judge matcher of your own, from a rubric: the same judging, cassette, report and messages as the
// built-in matchers, without touching agent-verdict. Register it with `expect.extend({ toBePolite })`.
import type { MetricImage, MetricScale } from '../src/metrics/metric'
import { likertMinToThreshold } from '../src/metrics/quality'
import { rubricMetric } from '../src/metrics/rubric'
import { atCallSite } from '../runner/call-site'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** What {@link defineJudgeMatcher} needs: a name, the metric id its verdicts carry, and the rubric. */
export interface JudgeMatcherDefinition {
  /** The matcher's name as users call it, e.g. `toBePolite` (messages and cassette entries name it). */
  name: string
  /** Verdict metric id, e.g. `politeness`: the report, suite gates and diffs group verdicts by it. */
  metric: string
  /** Human name for messages, e.g. `Politeness` (default: the metric id). */
  title?: string
  /** What a passing output must do, judged like `toSatisfyRubric`'s rubric (strict: when in doubt, fail). */
  rubric: string
  /** `binary` (default) or `likert5` (1–5, passes from 4 unless `min` or `threshold` says otherwise). */
  scale?: MetricScale
}

/** Options of a matcher made by {@link defineJudgeMatcher}. */
export interface JudgeMatcherOptions extends JudgeCallOptions {
  /** What the output was answering; defaults to the received `input`. */
  input?: string
  /** The image the rubric refers to; defaults to the received `image`. */
  image?: MetricImage
  /** With `scale: 'likert5'`: lowest passing score on 1–5. `threshold` (0..1) wins when both are given. */
  min?: number
}

/** A judge matcher as `expect.extend` takes it; async, so users `await` it. */
export type JudgeMatcher = (
  this: MatcherContext,
  received: unknown,
  options?: JudgeMatcherOptions,
) => Promise<MatcherResult>

const MATCHER_NAME = /^to[A-Z][A-Za-z0-9]*$/
const METRIC_ID = /^[a-z][a-z0-9_.-]*$/

function check(def: JudgeMatcherDefinition): void {
  const given = (v: unknown) => JSON.stringify(v) ?? String(v)
  if (typeof def?.name !== 'string' || !MATCHER_NAME.test(def.name)) {
    throw new TypeError(
      `defineJudgeMatcher: name must be a matcher name like 'toBePolite' (to + a capital letter, letters and digits), got ${given(def?.name)}`,
    )
  }
  if (typeof def.metric !== 'string' || !METRIC_ID.test(def.metric)) {
    throw new TypeError(
      `defineJudgeMatcher(${def.name}): metric must be a lower-case id like 'politeness' (a-z, 0-9, '_', '.', '-'), got ${given(def.metric)}`,
    )
  }
  if (typeof def.rubric !== 'string' || def.rubric.trim() === '') {
    throw new TypeError(
      `defineJudgeMatcher(${def.name}): rubric is empty: describe what a passing output must do, e.g. 'Thanks the customer and never blames them.'`,
    )
  }
  if (def.scale !== undefined && def.scale !== 'binary' && def.scale !== 'likert5') {
    throw new TypeError(`defineJudgeMatcher(${def.name}): scale is 'binary' or 'likert5', got ${given(def.scale)}`)
  }
}

/**
 * Defines a judge matcher from a rubric. The matcher judges the received output (a string, or
 * `{ output, input?, image? }`) through the test file's cassette, puts its verdict (metric `metric`) in the
 * report, and takes the usual `{ judge, threshold, samples, trials }` options. Judged text is fenced in the
 * prompt as for every built-in matcher.
 *
 * @example
 * // to-be-polite.ts
 * export const toBePolite = defineJudgeMatcher({ name: 'toBePolite', metric: 'politeness', rubric: 'Thanks the customer and never blames them.' })
 * // setup file: expect.extend({ toBePolite }); types: interface Matchers<T = any> extends MatchersOf<typeof import('./to-be-polite')> {}
 * await expect(reply).toBePolite()
 */
export function defineJudgeMatcher(def: JudgeMatcherDefinition): JudgeMatcher {
  check(def)
  const scale = def.scale ?? 'binary'
  const metric = { ...rubricMetric(scale), name: def.metric, title: def.title ?? def.metric }
  const { name, rubric } = def
  const matcher = function (
    this: MatcherContext,
    received: unknown,
    options?: JudgeMatcherOptions,
  ): Promise<MatcherResult> {
    return runOutputMatcher(this, received, {
      name,
      metric,
      options,
      threshold: () => {
        if (options?.min === undefined) return undefined
        if (scale !== 'likert5')
          throw new TypeError(
            `${name}: min is a 1–5 score, but this matcher is binary (it passes only on 1); use threshold instead`,
          )
        return likertMinToThreshold(options.min)
      },
      input: (r) => ({
        output: r.output,
        rubric,
        input: options?.input ?? r.input,
        image: options?.image ?? r.image,
        scale,
      }),
    })
  }
  Object.defineProperty(matcher, 'name', { value: name })
  return atCallSite(matcher)
}
