import type { MetricImage } from '../src/metrics/metric'
import type { ToBeCorrectOptions } from './to-be-correct'
import type { ToBeCorrectForImageOptions } from './to-be-correct-for-image'
import type { ToBeFaithfulToOptions } from './to-be-faithful-to'
import type { ToBeFaithfulToImageOptions } from './to-be-faithful-to-image'
import type { JudgeCallOptions } from './run-output-matcher'
import type { ToHaveQualityOptions } from './to-have-quality'
import type { ToSatisfyRubricOptions } from './to-satisfy-rubric'

/**
 * The matcher signatures as users call them; `R` is what a call returns (`Promise<void>` for these
 * async matchers in Vitest, the runner's own type in Jest). Both runner entries merge this into
 * their `Matchers` interface.
 *
 * @example
 * declare module 'vitest' { interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {} }
 */
export interface AgentVerdictMatchers<R = Promise<void>> {
  /** The output obeys every explicit constraint of the instruction (binary; never sees a reference). */
  toFollowInstructions(instruction: string, options?: JudgeCallOptions): R
  /** The output is correct: against `reference`, else against `input` and the received image. */
  toBeCorrect(options?: ToBeCorrectOptions): R
  /** Every claim of the output is supported by the context text. */
  toBeFaithfulTo(context: string, options?: ToBeFaithfulToOptions): R
  /** Every claim of the output is supported by the image (the judge sees the image). */
  toBeFaithfulToImage(image: MetricImage, options?: ToBeFaithfulToImageOptions): R
  /** The output correctly answers `instruction` about the image. */
  toBeCorrectForImage(image: MetricImage, options: ToBeCorrectForImageOptions): R
  /** Overall quality on 1–5 is at least `min` (default 4). */
  toHaveQuality(options?: ToHaveQualityOptions): R
  /** The output satisfies a rubric of your own (binary, or 1–5 with `scale: 'likert5'`). */
  toSatisfyRubric(rubric: string, options?: ToSatisfyRubricOptions): R
}
