import { instructionFollowingMetric } from '../src/metrics/instruction-following'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/**
 * Passes when the output obeys every explicit constraint of `instruction` (binary, strict). The
 * judge never sees a reference answer.
 *
 * @example
 * await expect('W7').toFollowInstructions('Answer with the week label only.')
 */
export function toFollowInstructions(
  this: MatcherContext,
  received: unknown,
  instruction: string,
  options?: JudgeCallOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toFollowInstructions',
    args: 'instruction',
    metric: instructionFollowingMetric,
    options,
    input: (r) => ({ output: r.output, instruction }),
  })
}
