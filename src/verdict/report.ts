import * as z from 'zod'
import { VerdictAssertionSchema, VerdictSchema } from './verdict'

/** 2: totals count assertions (`.not` passes are not failures), judge requests counted apart; verdicts carry `assertion`. */
export const REPORT_SCHEMA_VERSION = 2
/** Versions `readReport` still reads (their totals are recomputed). */
export const READABLE_REPORT_VERSIONS: readonly number[] = [1, 2]

/**
 * The run's numbers, computed once from the tests (`computeTotals`) and shown as they are everywhere.
 * `tests` / `failedTests` count the report's tests and the failed ones, as the runner counts them.
 * `failed` counts failed ASSERTIONS (a passing `.not` is never one); `judgedFail` counts verdicts the
 * judge judged `fail`, whatever was asserted. `judgeCalls` counts every request that reached a judge
 * (each sample, re-ask and retry); `judgeRetries` / `judgeReasks` are the part of it that were retries
 * and re-asks; `cachedCalls` the requests replayed from cassettes.
 */
export const ReportTotalsSchema = z.object({
  /** Tests in the report, and those the runner failed (also those that failed before any verdict). */
  tests: z.number().int().nonnegative(),
  failedTests: z.number().int().nonnegative(),
  assertions: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  verdicts: z.number().int().nonnegative(),
  judgedFail: z.number().int().nonnegative(),
  unjudgeable: z.number().int().nonnegative(),
  judgeCalls: z.number().int().nonnegative(),
  judgeRetries: z.number().int().nonnegative(),
  judgeReasks: z.number().int().nonnegative(),
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
  /**
   * Positional id in the trace's canonical order (`1.2.3`: parent path + sibling index), the same in every
   * capture of the same run (span ids are random per capture): what `report diff` keys span verdicts by.
   */
  position: z.string().optional(),
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
  /** The test's matcher assertions (`.not` or not, passed or not), including those without verdicts. */
  assertions: z.array(VerdictAssertionSchema).optional(),
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
