import type { MatcherContext, MatcherResult } from '../runner/context'
import { usageMessage } from './messages'
import { runAgentMatcher, type AgentMatcherOptions } from './run-agent-matcher'

/** Options of {@link toCompleteTask}. */
export type ToCompleteTaskOptions = AgentMatcherOptions

/**
 * Passes when the run completes its task (agent-level completeness): against `goal` when given,
 * else against the task the root agent received.
 *
 * @example
 * await expect(trace).toCompleteTask('Tell the customer when order A-1042 arrives.')
 */
export function toCompleteTask(
  this: MatcherContext,
  received: unknown,
  goal?: string,
  options?: ToCompleteTaskOptions,
): Promise<MatcherResult> {
  if (goal !== undefined && (typeof goal !== 'string' || goal.trim() === '')) {
    const problem = `goal must be a non-empty string (what the run should achieve), or left out to use the root agent's task — got ${typeof goal === 'string' ? 'an empty string' : typeof goal}`
    return Promise.reject(new TypeError(usageMessage('toCompleteTask', this.isNot, 'goal', problem)))
  }
  const args =
    goal === undefined
      ? options === undefined
        ? ''
        : 'undefined, options'
      : options === undefined
        ? 'goal'
        : 'goal, options'
  return runAgentMatcher(this, received, {
    name: 'toCompleteTask',
    args,
    metrics: ['agent.completeness'],
    options,
    goal,
  })
}
