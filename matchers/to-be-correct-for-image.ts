import type { MetricImage } from '../src/metrics/metric'
import { correctnessMetric } from '../src/metrics/correctness'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toBeCorrectForImage}. */
export interface ToBeCorrectForImageOptions extends JudgeCallOptions {
  /** The question asked about the image. */
  instruction: string
  /** Expected answer; without it the judge reads the answer off the image itself. */
  reference?: string
}

/**
 * Passes when the output correctly answers `instruction` about the image (binary, strict): against
 * `reference` when given, else against what the image shows.
 *
 * @example
 * await expect(answer).toBeCorrectForImage(invoicePng, { instruction: 'What is the total due?', reference: '$1,296.00' })
 */
export function toBeCorrectForImage(
  this: MatcherContext,
  received: unknown,
  image: MetricImage,
  options: ToBeCorrectForImageOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toBeCorrectForImage',
    args: 'image, { instruction }',
    metric: correctnessMetric,
    options,
    input: (r) => {
      const instruction = options?.instruction ?? r.input
      if (!instruction)
        throw new TypeError(
          'toBeCorrectForImage needs { instruction }: the question the output answers about the image',
        )
      return { output: r.output, input: instruction, reference: options?.reference, image }
    },
  })
}
