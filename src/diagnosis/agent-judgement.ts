import * as z from 'zod'
import type { AgentMetric } from './types'

const AspectSchema = z.object({
  reason: z.string().describe('One short sentence.'),
  score: z.number().int().min(1).max(5).describe('1 (fails entirely) to 5 (no problem).'),
})

/**
 * The agent-level judge's reply: reasoning, then the four aspects.
 *
 * @example
 * AgentJudgementSchema.parse({ reasoning: '…', plan_efficiency: { reason: '…', score: 2 }, tool_coverage: { reason: '…', score: 4 },
 *   tool_abuse: { reason: '…', score: 5 }, completeness: { reason: '…', score: 3 } })
 */
export const AgentJudgementSchema = z.object({
  reasoning: z.string().describe('Your analysis of the run, written before any score.'),
  plan_efficiency: AspectSchema,
  tool_coverage: AspectSchema,
  tool_abuse: AspectSchema,
  completeness: AspectSchema,
})
export type AgentJudgement = z.infer<typeof AgentJudgementSchema>

export type AgentAspectKey = Exclude<keyof AgentJudgement, 'reasoning'>

/** Reply keys by metric, and how chunk scores merge: `min` (a flaw anywhere counts) or `last` (the part with the final answer decides). */
export const AGENT_ASPECTS: ReadonlyArray<{ metric: AgentMetric; key: AgentAspectKey; merge: 'min' | 'last' }> = [
  { metric: 'agent.plan_efficiency', key: 'plan_efficiency', merge: 'min' },
  { metric: 'agent.tool_coverage', key: 'tool_coverage', merge: 'last' },
  { metric: 'agent.tool_abuse', key: 'tool_abuse', merge: 'min' },
  { metric: 'agent.completeness', key: 'completeness', merge: 'last' },
]
