import * as z from 'zod'
import { VerdictAssertionSchema, VerdictSchema } from './verdict'
import { ReportTraceSchema } from './report'

/**
 * The key under which matchers store verdicts on a test's `task.meta` (Vitest) or in the per-worker
 * verdict log (Jest). The one channel between matchers and reporters; JSON-safe by construction.
 */
export const VERDICT_META_KEY = 'agentVerdict'

export const TestVerdictMetaSchema = z.object({
  verdicts: z.array(VerdictSchema),
  traces: z.array(ReportTraceSchema).optional(),
  /** Every matcher assertion of the test, also those that produced no verdict (e.g. a clean trace). */
  assertions: z.array(VerdictAssertionSchema).optional(),
})
export type TestVerdictMeta = z.infer<typeof TestVerdictMetaSchema>
