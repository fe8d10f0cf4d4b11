// The one place where agent *behaviour* (what the model did, not an error text) maps to TRAIL categories,
// as error-patterns.ts is for error texts. Each rule names the pattern it generalizes; detectors never pick
// a category themselves. Measured precision per rule: docs/decisions/0010-detector-localization.md.
import type { ErrorCategory } from '../../taxonomy'

/** One behaviour rule: the category it reports and the reason a person reads. */
export interface BehaviorRule {
  category: ErrorCategory
  /** Why this behaviour is this error, phrased for the diagnosis. */
  reason: string
}

/**
 * Behaviour rules by id. Each is checked against something the run itself states (its facts survey, its
 * plan, its own announced next action, the answer template in its prompt), so a finding quotes both the
 * requirement and the output that breaks it.
 *
 * @example
 * BEHAVIOR_RULES['announced-delegation-missing'].category // 'Task Orchestration'
 */
export const BEHAVIOR_RULES = {
  /** Final answer before any tool or sub-agent call, although the run's facts survey lists facts to look up. */
  'answer-skips-lookup': {
    category: 'Goal Deviation',
    reason: 'gave the final answer without looking up any of the facts its own survey said must be looked up',
  },
  /** Same moment, seen as a decision: the answer came from the model's memory while lookup tools were available. */
  'answer-without-tools': {
    category: 'Tool Selection Errors',
    reason:
      'answered from the model’s own knowledge: no tool or team member was used for facts the run said must be looked up',
  },
  /** Same answer, and its reasoning claims a retrieval that never ran ("I have verified…", "the USGS report indicates…"). */
  'answer-claims-retrieval': {
    category: 'Tool-related',
    reason: 'the answer claims a lookup or verification that never happened: no tool or team member ran before it',
  },
  /** The thought says "I will ask <sub-agent>", the code never calls it (prints the request, or answers instead). */
  'announced-delegation-missing': {
    category: 'Task Orchestration',
    reason: 'the model announced a delegation to a team member, but its code never calls that team member',
  },
  /** The thought says "I will use <tool>", the code never calls it. */
  'announced-tool-missing': {
    category: 'Tool Selection Errors',
    reason: 'the model announced a tool call, but its code never calls that tool',
  },
  /** The prompt fixes an answer template ("use the following template: FINAL ANSWER: …"); the output breaks it. */
  'answer-template': {
    category: 'Instruction Non-compliance',
    reason: 'the answer does not follow the template the prompt requires',
  },
  /** The model's reasoning opens by saying its previous action did not work as meant ("the regex didn't match", "not in the format I expected"). */
  'self-reported-failure': {
    category: 'Formatting Errors',
    reason:
      'the model itself says its previous action did not work as meant: the output was not shaped as its code assumed',
  },
  /** The observation the model answers prints a string one character per line: its code iterated a string as if it were a list. */
  'output-split-into-characters': {
    category: 'Formatting Errors',
    reason: 'the previous action printed a string one character per line: the code treated a string as a list of lines',
  },
  /** The instructions require a tool the model was offered; the run answered without any tool call. */
  'instructed-tool-unused': {
    category: 'Goal Deviation',
    reason: 'answered without calling the tool its instructions require; no tool ran before the answer',
  },
  /** The instructions require a tool the model was offered; the run called another tool instead, never that one. */
  'instructed-tool-replaced': {
    category: 'Tool Selection Errors',
    reason: 'called another tool instead of the one its instructions require, and never called that one',
  },
  /** The instructions require a JSON answer ("Reply with one JSON object …"); the final answer does not parse as JSON. */
  'answer-not-json': {
    category: 'Formatting Errors',
    reason: 'the instructions require a JSON answer, and the final answer is not JSON',
  },
  /** The last tool call before the final answer failed; the answer does not say so and reads as if it had succeeded. */
  'answer-ignores-tool-error': {
    category: 'Tool Output Misinterpretation',
    reason: 'answered as if the failed tool call had succeeded: the answer does not mention the failure',
  },
} as const satisfies Record<string, BehaviorRule>

export type BehaviorRuleId = keyof typeof BEHAVIOR_RULES
