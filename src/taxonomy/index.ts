/**
 * The TRAIL error taxonomy (Patronus AI, arXiv 2505.08638), in the official scorer's order.
 * The order matters: the scorer's substring normalisation picks the first label that matches.
 */
export const TRAIL_CATEGORIES = [
  'Language-only',
  'Tool-related',
  'Poor Information Retrieval',
  'Incorrect Memory Usage',
  'Tool Output Misinterpretation',
  'Incorrect Problem Identification',
  'Tool Selection Errors',
  'Formatting Errors',
  'Instruction Non-compliance',
  'Tool Definition Issues',
  'Environment Setup Errors',
  'Rate Limiting',
  'Authentication Errors',
  'Service Errors',
  'Resource Not Found',
  'Resource Exhaustion',
  'Timeout Issues',
  'Context Handling Failures',
  'Resource Abuse',
  'Goal Deviation',
  'Task Orchestration',
] as const

export type ErrorCategory = (typeof TRAIL_CATEGORIES)[number]

/** The 20 leaves offered to judges: the scorer's list minus "Incorrect Memory Usage", which the TRAIL prompt never offers. */
export const JUDGE_CATEGORIES: readonly ErrorCategory[] = TRAIL_CATEGORIES.filter((c) => c !== 'Incorrect Memory Usage')

export type CategoryGroup = 'Reasoning' | 'System Execution' | 'Planning and Coordination'

/** Where each leaf sits in the TRAIL tree: group › subgroup. */
export const CATEGORY_TREE: Record<ErrorCategory, { group: CategoryGroup; subgroup: string; hint: string }> = {
  'Language-only': {
    group: 'Reasoning',
    subgroup: 'Hallucinations',
    hint: 'states facts or content that no input supports, without involving a tool',
  },
  'Tool-related': {
    group: 'Reasoning',
    subgroup: 'Hallucinations',
    hint: 'fabricates a tool output, a tool call that never happened, or a tool capability',
  },
  'Poor Information Retrieval': {
    group: 'Reasoning',
    subgroup: 'Information Processing',
    hint: 'retrieves irrelevant or insufficient information for the step',
  },
  'Incorrect Memory Usage': {
    group: 'Reasoning',
    subgroup: 'Information Processing',
    hint: 'misremembers or misuses earlier steps of its own run',
  },
  'Tool Output Misinterpretation': {
    group: 'Reasoning',
    subgroup: 'Information Processing',
    hint: 'draws a conclusion the tool output does not support',
  },
  'Incorrect Problem Identification': {
    group: 'Reasoning',
    subgroup: 'Decision Making',
    hint: 'misunderstands what the task or sub-task asks',
  },
  'Tool Selection Errors': {
    group: 'Reasoning',
    subgroup: 'Decision Making',
    hint: 'picks the wrong tool, or no tool where one was needed',
  },
  'Formatting Errors': {
    group: 'Reasoning',
    subgroup: 'Output Generation',
    hint: 'output breaks the required format (code blocks, JSON, tool-call syntax)',
  },
  'Instruction Non-compliance': {
    group: 'Reasoning',
    subgroup: 'Output Generation',
    hint: 'ignores an explicit instruction of the system prompt or task',
  },
  'Tool Definition Issues': {
    group: 'System Execution',
    subgroup: 'Configuration',
    hint: 'a tool is defined or described wrongly',
  },
  'Environment Setup Errors': {
    group: 'System Execution',
    subgroup: 'Configuration',
    hint: 'missing module, unsupported file format, missing permission in the environment',
  },
  'Rate Limiting': { group: 'System Execution', subgroup: 'API Issues', hint: 'HTTP 429 / throttling' },
  'Authentication Errors': { group: 'System Execution', subgroup: 'API Issues', hint: 'HTTP 401 / 403' },
  'Service Errors': { group: 'System Execution', subgroup: 'API Issues', hint: 'HTTP 5xx' },
  'Resource Not Found': { group: 'System Execution', subgroup: 'API Issues', hint: 'HTTP 404 / missing file or page' },
  'Resource Exhaustion': {
    group: 'System Execution',
    subgroup: 'Resource Management',
    hint: 'out of memory, disk, context window or quota',
  },
  'Timeout Issues': { group: 'System Execution', subgroup: 'Resource Management', hint: 'a call or step timed out' },
  'Context Handling Failures': {
    group: 'Planning and Coordination',
    subgroup: 'Context Management',
    hint: 'loses or ignores context from earlier steps',
  },
  'Resource Abuse': {
    group: 'Planning and Coordination',
    subgroup: 'Context Management',
    hint: 'repeats the same call needlessly (reported on the last repeat)',
  },
  'Goal Deviation': {
    group: 'Planning and Coordination',
    subgroup: 'Task Management',
    hint: 'drifts from the task or the stated plan',
  },
  'Task Orchestration': {
    group: 'Planning and Coordination',
    subgroup: 'Task Management',
    hint: 'mis-coordinates sub-agents or sub-tasks',
  },
}

/** True if `value` is one of the 21 scorer labels, spelled exactly. */
export function isErrorCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && (TRAIL_CATEGORIES as readonly string[]).includes(value)
}
