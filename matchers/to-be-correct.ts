import { correctnessMetric } from '../src/metrics/correctness'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toBeCorrect}. */
export interface ToBeCorrectOptions extends JudgeCallOptions {
  /** Expected answer; without it the output is judged against `input` (and the received image). */
  reference?: string
  /** The question; defaults to the received `input`. */
  input?: string
}

/**
 * Passes when the output is correct: against `reference` when given, else against the question and
 * the received image (binary, strict).
 *
 * @example
 * await expect(answer).toBeCorrect({ reference: 'North America, at $14.10.', input: question })
 */
export function toBeCorrect(
  this: MatcherContext,
  received: unknown,
  options?: ToBeCorrectOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toBeCorrect',
    metric: correctnessMetric,
    options,
    input: (r) => ({
      output: r.output,
      input: options?.input ?? r.input,
      reference: options?.reference,
      image: r.image,
    }),
  })
}
