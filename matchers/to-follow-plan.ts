import type { MatcherContext, MatcherResult } from '../runner/context'
import { runAgentMatcher, type AgentMatcherOptions } from './run-agent-matcher'

/**
 * Passes when the run follows the plan it stated (agent-level plan efficiency: steps that deviate
 * from, skip or needlessly repeat the plan lower the score).
 *
 * @example
 * await expect(trace).toFollowPlan()
 */
export function toFollowPlan(
  this: MatcherContext,
  received: unknown,
  options?: AgentMatcherOptions,
): Promise<MatcherResult> {
  return runAgentMatcher(this, received, { name: 'toFollowPlan', metrics: ['agent.plan_efficiency'], options })
}
