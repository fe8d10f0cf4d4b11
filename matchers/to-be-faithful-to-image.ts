import type { MetricImage } from '../src/metrics/metric'
import { faithfulnessMetric } from '../src/metrics/faithfulness'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toBeFaithfulToImage}. */
export interface ToBeFaithfulToImageOptions extends JudgeCallOptions {
  /** The question the output answers; defaults to the received `input`. */
  instruction?: string
}

/**
 * Passes when every claim of the output is supported by the image, which the judge sees itself
 * (path, Buffer, Uint8Array, URL or data URL; PNG, JPEG, GIF or WEBP).
 *
 * @example
 * await expect(answer).toBeFaithfulToImage('fixtures/revenue-by-region.png', { instruction: 'Which region leads?' })
 */
export function toBeFaithfulToImage(
  this: MatcherContext,
  received: unknown,
  image: MetricImage,
  options?: ToBeFaithfulToImageOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toBeFaithfulToImage',
    args: 'image',
    metric: faithfulnessMetric,
    options,
    input: (r) => ({ output: r.output, image, instruction: options?.instruction ?? r.input }),
  })
}
