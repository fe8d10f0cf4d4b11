// The agent-verdict matchers as plain functions, side-effect free: `expect.extend(matchers)` registers them.
import { toBeCorrect } from './to-be-correct'
import { toBeCorrectForImage } from './to-be-correct-for-image'
import { toBeFaithfulTo } from './to-be-faithful-to'
import { toBeFaithfulToImage } from './to-be-faithful-to-image'
import { toFollowInstructions } from './to-follow-instructions'
import { toHaveQuality } from './to-have-quality'
import { toSatisfyRubric } from './to-satisfy-rubric'
import { toCallTool } from './to-call-tool'
import { toCompleteTask } from './to-complete-task'
import { toFollowPlan } from './to-follow-plan'
import { toHaveNoFailingSpans } from './to-have-no-failing-spans'
import { toStayWithinBudget } from './to-stay-within-budget'
import { toUseToolsEfficiently } from './to-use-tools-efficiently'
import { outputMatchers } from './output-matchers'
import { syncMatchers, traceMatchers } from './trace-matchers'
import { atCallSite } from '../runner/call-site'

export {
  toBeCorrect,
  toBeCorrectForImage,
  toBeFaithfulTo,
  toBeFaithfulToImage,
  toFollowInstructions,
  toHaveQuality,
  toSatisfyRubric,
}
export { toHaveNoFailingSpans, toUseToolsEfficiently, toCompleteTask, toFollowPlan, toCallTool, toStayWithinBudget }
export type { ToBeCorrectOptions } from './to-be-correct'
export type { ToBeCorrectForImageOptions } from './to-be-correct-for-image'
export type { ToBeFaithfulToOptions } from './to-be-faithful-to'
export type { ToBeFaithfulToImageOptions } from './to-be-faithful-to-image'
export type { ToHaveQualityOptions } from './to-have-quality'
export type { ToSatisfyRubricOptions } from './to-satisfy-rubric'
export type { JudgeCallOptions } from './run-output-matcher'
export type { ToHaveNoFailingSpansOptions } from './to-have-no-failing-spans'
export type { AgentMatcherOptions } from './run-agent-matcher'
export type { ToCompleteTaskOptions } from './to-complete-task'
export type { ToCallToolOptions } from './to-call-tool'
export type { ToStayWithinBudgetOptions } from './to-stay-within-budget'
export type { TrialsOption } from './with-trials'
export {
  defineJudgeMatcher,
  type JudgeMatcher,
  type JudgeMatcherDefinition,
  type JudgeMatcherOptions,
} from './define-judge-matcher'
export type { MatcherContext, MatcherResult } from '../runner/context'
export type { AgentVerdictMatchers, MatchersOf } from './types'

/**
 * The modules that declare the matchers of the table below: their function declarations carry the JSDoc
 * that editor hovers show on `expect(x).toBeCorrect(…)` (AgentVerdictMatchers maps over them).
 */
export type MatcherModules = typeof import('./to-follow-instructions') &
  typeof import('./to-be-correct') &
  typeof import('./to-be-faithful-to') &
  typeof import('./to-be-faithful-to-image') &
  typeof import('./to-be-correct-for-image') &
  typeof import('./to-have-quality') &
  typeof import('./to-satisfy-rubric') &
  typeof import('./to-have-no-failing-spans') &
  typeof import('./to-use-tools-efficiently') &
  typeof import('./to-complete-task') &
  typeof import('./to-follow-plan') &
  typeof import('./to-call-tool') &
  typeof import('./to-stay-within-budget')

/**
 * The async matchers as written, before {@link atCallSite}: `agent-verdict/vitest-setup` wraps its own
 * lazy stand-ins with it instead (matchers/lazy-matchers.ts).
 */
export const asyncMatchers = { ...outputMatchers, ...traceMatchers }

export { syncMatchers }

/**
 * Every matcher (output, multimodal and trace), keyed by name, for `expect.extend`.
 *
 * @example
 * import { expect } from 'vitest'
 * import { matchers } from 'agent-verdict/vitest'
 * expect.extend(matchers)
 */
// The one table of matchers: the runner entries register it and their types are computed from it
// (matchers/types.ts). Each async matcher's errors end in the test line that called it (runner/call-site.ts).
export const matchers = {
  toFollowInstructions: atCallSite(asyncMatchers.toFollowInstructions),
  toBeCorrect: atCallSite(asyncMatchers.toBeCorrect),
  toBeFaithfulTo: atCallSite(asyncMatchers.toBeFaithfulTo),
  toBeFaithfulToImage: atCallSite(asyncMatchers.toBeFaithfulToImage),
  toBeCorrectForImage: atCallSite(asyncMatchers.toBeCorrectForImage),
  toHaveQuality: atCallSite(asyncMatchers.toHaveQuality),
  toSatisfyRubric: atCallSite(asyncMatchers.toSatisfyRubric),
  toHaveNoFailingSpans: atCallSite(asyncMatchers.toHaveNoFailingSpans),
  toUseToolsEfficiently: atCallSite(asyncMatchers.toUseToolsEfficiently),
  toCompleteTask: atCallSite(asyncMatchers.toCompleteTask),
  toFollowPlan: atCallSite(asyncMatchers.toFollowPlan),
  toCallTool: atCallSite(syncMatchers.toCallTool),
  toStayWithinBudget: atCallSite(syncMatchers.toStayWithinBudget),
}
