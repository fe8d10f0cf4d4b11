import { resolveJudge } from '../judges/config'
import { judgeInRunner } from '../judges/runner-judge'
import type { Judge } from '../judges/types'
import type { Verdict } from '../verdict/verdict'
import { correctnessMetric, type CorrectnessInput } from './correctness'
import { faithfulnessMetric, type FaithfulnessInput } from './faithfulness'
import { instructionFollowingMetric, type InstructionFollowingInput } from './instruction-following'
import { qualityMetric, type QualityInput } from './quality'
import { rubricMetric, type RubricInput } from './rubric'
import { runMetric, type RunMetricOptions } from './run-metric'

/**
 * Options of the `evaluate*` functions: like {@link RunMetricOptions}, with the judge optional (default:
 * `AGENT_VERDICT_JUDGE`). Called inside a Vitest or Jest test, the judge goes through the test file's verdict
 * cassette (recorded locally, replayed in CI), as the matchers' does; elsewhere it is called directly.
 */
export interface EvaluateOptions extends Omit<RunMetricOptions, 'judge'> {
  judge?: Judge
}

// Inside a Vitest or Jest test, the judge goes through the test file's cassette as the matchers' does: recorded
// locally, replayed in CI (decision 0043). Elsewhere (a script, a CLI) it is called as given.
const withJudge = async (options: EvaluateOptions, label: string): Promise<RunMetricOptions> => ({
  ...options,
  judge: await judgeInRunner(resolveJudge(options.judge), label),
})

/**
 * Instruction Following (binary), as a value rather than an assertion. A `reference` in the input is ignored.
 *
 * @example
 * const v = await evaluateInstructionFollowing({ output: 'W7', instruction: 'Answer with the week label only.' })
 * v.pass // true
 */
export async function evaluateInstructionFollowing(
  input: InstructionFollowingInput,
  options: EvaluateOptions = {},
): Promise<Verdict> {
  return runMetric(instructionFollowingMetric, input, await withJudge(options, 'evaluateInstructionFollowing'))
}

/**
 * Correctness (binary): against `reference` when given, else against `input` and the image.
 *
 * @example
 * const v = await evaluateCorrectness({ output: 'North America, $14.10', reference: 'North America, at $14.10.' })
 */
export async function evaluateCorrectness(input: CorrectnessInput, options: EvaluateOptions = {}): Promise<Verdict> {
  return runMetric(correctnessMetric, input, await withJudge(options, 'evaluateCorrectness'))
}

/**
 * Faithfulness (binary): every claim grounded in `context` and/or `image`.
 *
 * @example
 * const v = await evaluateFaithfulness({ output: 'EMEA leads', image: 'revenue-by-region.png' })
 * v.reason // 'the chart shows North America highest at $14.10 …'
 */
export async function evaluateFaithfulness(input: FaithfulnessInput, options: EvaluateOptions = {}): Promise<Verdict> {
  return runMetric(faithfulnessMetric, input, await withJudge(options, 'evaluateFaithfulness'))
}

/**
 * Overall Quality (1–5 → score (raw−1)/4; passes from 4 unless `threshold` says otherwise).
 *
 * @example
 * const v = await evaluateQuality({ output, instruction: 'Describe the trend.', image: 'weekly-active-users.png' })
 * v.raw // 4
 */
export async function evaluateQuality(input: QualityInput, options: EvaluateOptions = {}): Promise<Verdict> {
  return runMetric(qualityMetric, input, await withJudge(options, 'evaluateQuality'))
}

/**
 * A custom rubric, binary (default) or 1–5 (`scale: 'likert5'`), with or without an image.
 *
 * @example
 * const v = await evaluateRubric({ output: reply, rubric: 'Apologises and gives the refund date.' })
 */
export async function evaluateRubric(input: RubricInput, options: EvaluateOptions = {}): Promise<Verdict> {
  // An invalid scale is passed through so the input validation names it.
  const scale = input.scale ?? 'binary'
  return runMetric(
    rubricMetric(scale === 'likert5' ? 'likert5' : 'binary'),
    { ...input, scale },
    await withJudge(options, 'evaluateRubric'),
  )
}
