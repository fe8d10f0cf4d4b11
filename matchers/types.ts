import type { MetricImage } from '../src/metrics/metric'
import type { ToBeCorrectOptions } from './to-be-correct'
import type { ToBeCorrectForImageOptions } from './to-be-correct-for-image'
import type { ToBeFaithfulToOptions } from './to-be-faithful-to'
import type { ToBeFaithfulToImageOptions } from './to-be-faithful-to-image'
import type { JudgeCallOptions } from './run-output-matcher'
import type { ToHaveQualityOptions } from './to-have-quality'
import type { ToSatisfyRubricOptions } from './to-satisfy-rubric'
import type { ToCallToolOptions } from './to-call-tool'
import type { ToStayWithinBudgetOptions } from './to-stay-within-budget'
import type { ToHaveNoFailingSpansOptions } from './to-have-no-failing-spans'
import type { AgentMatcherOptions } from './run-agent-matcher'
import type { ToCompleteTaskOptions } from './to-complete-task'
import type { TrialsOption } from './with-trials'

/**
 * The matcher signatures as users call them; `R` is what an async (judge) matcher returns
 * (`Promise<void>`), `S` what a synchronous one returns (`void` in Vitest, the runner's own `R` in
 * Jest, so `.resolves` keeps working). Both runner entries merge this into their `Matchers` interface.
 *
 * @example
 * declare module 'vitest' { interface Matchers<T = any> extends AgentVerdictMatchers<Promise<void>> {} }
 */
export interface AgentVerdictMatchers<R = Promise<void>, S = void> {
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

  // --- trace matchers: received is a Trace, a trace file path, an InMemorySpanExporter or its spans ---
  /** No span fails after diagnosis (detectors + one judge call per selected leaf, propagated by the policy). */
  toHaveNoFailingSpans(options?: ToHaveNoFailingSpansOptions & TrialsOption): R
  /** The run uses tools efficiently: agent-level tool abuse and tool coverage both pass. */
  toUseToolsEfficiently(options?: AgentMatcherOptions & TrialsOption): R
  /** The run completes its task (`goal`, default the root agent's task): agent-level completeness. */
  toCompleteTask(goal?: string, options?: ToCompleteTaskOptions & TrialsOption): R
  /** The run follows the plan it stated: agent-level plan efficiency. */
  toFollowPlan(options?: AgentMatcherOptions & TrialsOption): R
  /** Synchronous: the run called the tool (with arguments containing `args`; exactly `times` times when given). */
  toCallTool(name: string | RegExp, options?: ToCallToolOptions): S
  /** Synchronous: the run stays within every given budget (tokens, LLM calls, wall time, cost). */
  toStayWithinBudget(budget: ToStayWithinBudgetOptions): S
}
