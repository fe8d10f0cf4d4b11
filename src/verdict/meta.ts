import * as z from 'zod'
import { VerdictAssertionSchema, VerdictSchema } from './verdict'
import { ReportTraceSchema } from './report'

export { VERDICT_META_KEY } from './meta-key'

export const TestVerdictMetaSchema = z.object({
  verdicts: z.array(VerdictSchema),
  traces: z.array(ReportTraceSchema).optional(),
  /** Every matcher assertion of the test, also those that produced no verdict (e.g. a clean trace). */
  assertions: z.array(VerdictAssertionSchema).optional(),
})
export type TestVerdictMeta = z.infer<typeof TestVerdictMetaSchema>
