import * as z from 'zod'
import { TRAIL_CATEGORIES } from '../taxonomy'
import { DiagnosisSchema } from './types'
import { FindingSchema, type Finding } from '../metrics/detectors/finding'
import { SpanKindSchema, SpanStatusSchema, TokenCountsSchema, type Span } from '../trace/span'
import type { Trace } from '../trace/trace'

/**
 * Version of the `agent-verdict diagnose --json` document; bumped on any incompatible change.
 *
 * @example
 * if (report.schemaVersion !== DIAGNOSE_SCHEMA_VERSION) throw new Error('re-run agent-verdict diagnose')
 */
export const DIAGNOSE_SCHEMA_VERSION = 1

/** Judge-based diagnosis that the deterministic pass does not do, listed as skipped when no judge runs. */
export const JUDGE_METRICS = [
  'span.instruction_following',
  'span.reasoning_integrity',
  'span.tool_completeness',
  'agent.plan_efficiency',
  'agent.tool_coverage',
  'agent.tool_abuse',
  'agent.completeness',
] as const

export const NO_JUDGE_MESSAGE =
  'Judge-based metrics skipped: no judge configured (set AGENT_VERDICT_JUDGE=openai:MODEL | bedrock:MODEL_ID | openai-compatible:URL#MODEL)'

export const DiagnoseSpanSchema = z.object({
  id: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  kind: SpanKindSchema,
  status: SpanStatusSchema,
  /** Start as decimal nanoseconds since the epoch (a string: it does not fit a JSON number exactly). */
  startNs: z.string().regex(/^\d+$/),
  durationNs: z.number().nonnegative(),
  tokens: TokenCountsSchema.optional(),
  model: z.string().optional(),
  toolName: z.string().optional(),
})
export type DiagnoseSpan = z.infer<typeof DiagnoseSpanSchema>

export const DiagnoseWarningSchema = z.object({ code: z.string(), message: z.string(), spanId: z.string().optional() })

export const DiagnoseTraceSchema = z.object({
  traceId: z.string(),
  source: z.string(),
  spans: z.array(DiagnoseSpanSchema),
  findings: z.array(FindingSchema),
  warnings: z.array(DiagnoseWarningSchema),
  /** The judge-based diagnosis, when a judge was configured (optional: schema version 1 still holds). */
  diagnosis: DiagnosisSchema.optional(),
})
export type DiagnoseTrace = z.infer<typeof DiagnoseTraceSchema>

/** A file that could not be read as a trace (the run exits 2). */
export const DiagnoseInputErrorSchema = z.object({ source: z.string(), message: z.string() })

export const DiagnoseSummarySchema = z.object({
  traces: z.number().int().nonnegative(),
  spans: z.number().int().nonnegative(),
  findings: z.number().int().nonnegative(),
  tracesWithFindings: z.number().int().nonnegative(),
  byCategory: z.partialRecord(z.enum(TRAIL_CATEGORIES), z.number().int().positive()),
  warnings: z.number().int().nonnegative(),
  inputErrors: z.number().int().nonnegative(),
})
export type DiagnoseSummary = z.infer<typeof DiagnoseSummarySchema>

/**
 * The `agent-verdict diagnose --format json` / `--json out.json` document.
 *
 * @example
 * const report = DiagnoseReportSchema.parse(JSON.parse(readFileSync('diagnosis.json', 'utf8')))
 * report.traces.map((t) => `${t.traceId}: ${t.findings.length} findings`)
 */
export const DiagnoseReportSchema = z.object({
  schemaVersion: z.literal(DIAGNOSE_SCHEMA_VERSION),
  traces: z.array(DiagnoseTraceSchema),
  inputErrors: z.array(DiagnoseInputErrorSchema),
  summary: DiagnoseSummarySchema,
  judge: z.object({ configured: z.boolean(), skipped: z.array(z.string()), message: z.string() }),
})
export type DiagnoseReport = z.infer<typeof DiagnoseReportSchema>

function spanEntry(span: Span): DiagnoseSpan {
  const entry: DiagnoseSpan = {
    id: span.id,
    parentId: span.parentId,
    name: span.name,
    kind: span.kind,
    status: span.status,
    startNs: span.startNs.toString(),
    durationNs: span.durationNs,
  }
  if (span.tokens) entry.tokens = span.tokens
  if (span.model) entry.model = span.model
  if (span.toolName) entry.toolName = span.toolName
  return entry
}

/** One trace of the report: spans in depth-first order, its findings and the reader's warnings. */
export function traceEntry(trace: Trace, findings: Finding[], source: string): DiagnoseTrace {
  return {
    traceId: trace.traceId,
    source,
    spans: trace.spans.map(spanEntry),
    findings,
    warnings: trace.warnings.map((w) =>
      w.spanId === undefined
        ? { code: w.code, message: w.message }
        : { code: w.code, message: w.message, spanId: w.spanId },
    ),
  }
}

/** A summary with nothing counted yet: {@link countTrace} adds traces to it one at a time. */
export function emptySummary(): DiagnoseSummary {
  return { traces: 0, spans: 0, findings: 0, tracesWithFindings: 0, byCategory: {}, warnings: 0, inputErrors: 0 }
}

/** Adds one trace's counts to `summary` (so a caller streaming traces need not keep them). */
export function countTrace(summary: DiagnoseSummary, trace: DiagnoseTrace): void {
  summary.traces++
  summary.spans += trace.spans.length
  summary.warnings += trace.warnings.length
  if (trace.findings.length > 0) summary.tracesWithFindings++
  for (const f of trace.findings) {
    summary.findings++
    summary.byCategory[f.category] = (summary.byCategory[f.category] ?? 0) + 1
  }
}
