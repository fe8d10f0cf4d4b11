import { faithfulnessMetric } from '../src/metrics/faithfulness'
import type { MatcherContext, MatcherResult } from '../runner/context'
import { runOutputMatcher, type JudgeCallOptions } from './run-output-matcher'

/** Options of {@link toBeFaithfulTo}. */
export interface ToBeFaithfulToOptions extends JudgeCallOptions {
  /** The question the output answers; defaults to the received `input`. */
  instruction?: string
}

/**
 * Passes when every claim of the output is supported by `context` (retrieved documents, a tool
 * result …); a partly supported output fails.
 *
 * @example
 * await expect(reply).toBeFaithfulTo(retrievedPolicyText)
 */
export function toBeFaithfulTo(
  this: MatcherContext,
  received: unknown,
  context: string,
  options?: ToBeFaithfulToOptions,
): Promise<MatcherResult> {
  return runOutputMatcher(this, received, {
    name: 'toBeFaithfulTo',
    args: 'context',
    metric: faithfulnessMetric,
    options,
    input: (r) => ({ output: r.output, context, instruction: options?.instruction ?? r.input }),
  })
}
