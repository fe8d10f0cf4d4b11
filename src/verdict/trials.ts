import * as z from 'zod'

/** How a repeated-trials assertion decides: all pass, any passes, or a pass rate (point or Wilson lower bound) of at least `min`. */
export const TrialRuleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pass^k') }),
  z.object({ kind: z.literal('pass@k') }),
  z.object({ kind: z.literal('passRate'), min: z.number().min(0).max(1), bound: z.enum(['point', 'wilson-lower']) }),
])
export type TrialRule = z.infer<typeof TrialRuleSchema>

/**
 * A verdict over k agent trials: how many passed, the rate with its Wilson interval, and the rule that
 * decided the assertion. `outcomes` lists each trial's outcome in trial order.
 */
export const TrialsSummarySchema = z.object({
  k: z.number().int().positive(),
  passes: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1),
  lower: z.number().min(0).max(1),
  upper: z.number().min(0).max(1),
  confidence: z.number().gt(0).lt(1),
  rule: TrialRuleSchema,
  outcomes: z.array(z.enum(['pass', 'fail', 'unjudgeable'])),
})
export type TrialsSummary = z.infer<typeof TrialsSummarySchema>
