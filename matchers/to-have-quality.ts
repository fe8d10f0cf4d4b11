import type { MetricImage } from '../src/metrics/metric'
import { likertMinToThreshold, qualityMetric } from '../src/metrics/quality'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toHaveQuality}. */
export interface ToHaveQualityOptions extends JudgeCallOptions {
  /** Lowest passing score on the 1–5 scale (default 4). `threshold` (0..1) wins when both are given. */
  min?: number
  /** The image the task is about; defaults to the received `image`. */
  image?: MetricImage
  /** The task; defaults to the received `input`. */
  instruction?: string
  reference?: string
}

/**
 * Passes when the judge rates overall quality (visual accuracy, instruction adherence, completeness,
 * coherence) at `min` or above on 1–5 — 4 by default.
 *
 * @example
 * await expect({ output: caption, image: 'photo.png' }).toHaveQuality({ min: 4, instruction: 'Write alt text.' })
 */
export function toHaveQuality(
  this: MatcherContext,
  received: unknown,
  options?: ToHaveQualityOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toHaveQuality',
    metric: qualityMetric,
    options,
    threshold: () => (options?.min === undefined ? undefined : likertMinToThreshold(options.min)),
    input: (r) => ({
      output: r.output,
      instruction: options?.instruction ?? r.input,
      reference: options?.reference,
      image: options?.image ?? r.image,
    }),
  })
}
