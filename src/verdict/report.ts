import { z } from 'zod'
import { VerdictSchema } from './verdict'

export const REPORT_SCHEMA_VERSION = 1

export const ReportTotalsSchema = z.object({
  verdicts: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  unjudgeable: z.number().int().nonnegative(),
  judgeCalls: z.number().int().nonnegative(),
  cachedCalls: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative().nullable(),
})
export type ReportTotals = z.infer<typeof ReportTotalsSchema>

export const ReportSpanSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  kind: z.string(),
  failed: z.boolean(),
  verdictIds: z.array(z.string()),
})

export const ReportTraceSchema = z.object({
  id: z.string(),
  spans: z.array(ReportSpanSchema),
})
export type ReportTrace = z.infer<typeof ReportTraceSchema>

export const ReportTestSchema = z.object({
  file: z.string(),
  name: z.string(),
  state: z.enum(['pass', 'fail', 'skip', 'pending']),
  durationMs: z.number().nonnegative().optional(),
  error: z.string().optional(),
  verdicts: z.array(VerdictSchema),
  traces: z.array(ReportTraceSchema).optional(),
})
export type ReportTest = z.infer<typeof ReportTestSchema>

/** The `agent-verdict-report.json` artifact: versioned, validated on write, mergeable across shards. */
export const ReportSchema = z.object({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  run: z.object({
    startedAt: z.string(),
    finishedAt: z.string().optional(),
    runner: z.enum(['vitest', 'jest']).optional(),
    judge: z.string().nullable(),
    mode: z.string(),
    totals: ReportTotalsSchema,
  }),
  tests: z.array(ReportTestSchema),
})
export type Report = z.infer<typeof ReportSchema>
