import type { MatcherContext, MatcherResult } from '../runner/context'
import { runAgentMatcher, type AgentMatcherOptions } from './run-agent-matcher'

/**
 * Passes when the run uses its tools well: agent-level tool abuse (redundant identical calls, failing
 * calls retried unchanged, no adaptation after errors — the deterministic part first) and tool
 * coverage (the tools the task needed were used) both pass.
 *
 * @example
 * await expect(trace).toUseToolsEfficiently({ threshold: 0.75 })
 */
export function toUseToolsEfficiently(
  this: MatcherContext,
  received: unknown,
  options?: AgentMatcherOptions,
): Promise<MatcherResult> {
  return runAgentMatcher(this, received, {
    name: 'toUseToolsEfficiently',
    metrics: ['agent.tool_abuse', 'agent.tool_coverage'],
    options,
  })
}
