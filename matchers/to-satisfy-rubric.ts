import type { MetricImage, MetricScale } from '../src/metrics/metric'
import { likertMinToThreshold } from '../src/metrics/quality'
import { rubricMetric } from '../src/metrics/rubric'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toSatisfyRubric}. */
export interface ToSatisfyRubricOptions extends JudgeCallOptions {
  /** The image the rubric refers to; defaults to the received `image`. */
  image?: MetricImage
  /** `binary` (default; every criterion must hold) or `likert5` (1–5, passes from 4). */
  scale?: MetricScale
  /** With `scale: 'likert5'`: lowest passing score on 1–5. `threshold` (0..1) wins when both are given. */
  min?: number
}

/**
 * Passes when the output satisfies a rubric of your own, with or without an image, judged strictly
 * (binary) or on 1–5.
 *
 * @example
 * await expect(reply).toSatisfyRubric('Apologises, names the order number and gives a refund date.')
 * await expect(caption).toSatisfyRubric('Describes the chart type and its trend.', { image: chartPng, scale: 'likert5', min: 3 })
 */
export function toSatisfyRubric(
  this: MatcherContext,
  received: unknown,
  rubric: string,
  options?: ToSatisfyRubricOptions,
): Promise<MatcherResult> {
  const scale = options?.scale ?? 'binary'
  return runOutputMatcher(this, received, {
    name: 'toSatisfyRubric',
    args: 'rubric',
    metric: rubricMetric(scale === 'likert5' ? 'likert5' : 'binary'),
    options,
    threshold: () => {
      if (options?.min === undefined) return undefined
      if (scale !== 'likert5')
        throw new TypeError(
          "toSatisfyRubric: min is a 1–5 score; add scale: 'likert5' (a binary rubric passes only on 1)",
        )
      return likertMinToThreshold(options.min)
    },
    input: (r) => ({ output: r.output, rubric, input: r.input, image: options?.image ?? r.image, scale }),
  })
}
