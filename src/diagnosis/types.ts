// The public contract of trace diagnosis: options, propagation policies and the Diagnosis result.
import * as z from 'zod'
import type { Judge } from '../judges/types'
import { FindingSchema } from '../metrics/detectors/finding'
import { DetectorOptionsSchema } from '../metrics/detectors/index'
import { SpanKindSchema } from '../trace/span'
import type { SpanQuery } from '../trace/trace'
import { VerdictSchema } from '../verdict/verdict'
import { TRAIL_CATEGORIES } from '../taxonomy'

/** Default per-call token budget of every judge prompt (system + user + reply schema, estimated). */
export const DEFAULT_BUDGET_TOKENS = 16_000
/** Smallest budget accepted: below it the fixed prompt parts leave no room for the span. */
export const MIN_BUDGET_TOKENS = 4_000
/** Default normalized pass threshold of a span aspect: 0.5 = 3/5 passes, 2/5 fails. */
export const DEFAULT_SPAN_THRESHOLD = 0.5

/** The span-level aspects, in the order the judge answers them. */
export const SPAN_METRICS = [
  'span.instruction_following',
  'span.reasoning_integrity',
  'span.tool_completeness',
] as const
/** The verdict carrying a span's error category (binary: 1 = "none"). */
export const SPAN_CATEGORY_METRIC = 'span.error_category'
/** The agent-level metrics of the top-down pass. */
export const AGENT_METRICS = [
  'agent.plan_efficiency',
  'agent.tool_coverage',
  'agent.tool_abuse',
  'agent.completeness',
] as const

/**
 * One agent-level metric name.
 *
 * @example
 * AgentMetricSchema.parse('agent.tool_abuse')
 */
export const AgentMetricSchema = z.enum(AGENT_METRICS)
export type AgentMetric = z.infer<typeof AgentMetricSchema>

/**
 * How failures travel up the span tree (a leaf's own failure never depends on the policy):
 * - `'existential'` (default): a parent fails if any child fails.
 * - `{ type: 'threshold', threshold: t }`: a parent fails when the share of its judged children
 *   (pass or fail) that fail exceeds `t` (0 ≤ t < 1; `t = 0` behaves like existential).
 * - `{ type: 'category', categories }`: only failures of the listed TRAIL categories propagate;
 *   a failure without a category (a low aspect score alone) does not.
 * A parent with a failing verdict of its own fails whatever its children do.
 *
 * @example
 * PropagationPolicySchema.parse({ type: 'category', categories: ['Rate Limiting', 'Service Errors'] })
 */
export const PropagationPolicySchema = z.union([
  z.literal('existential'),
  z.strictObject({ type: z.literal('existential') }),
  z.strictObject({ type: z.literal('threshold'), threshold: z.number().min(0).lt(1) }),
  z.strictObject({ type: z.literal('category'), categories: z.array(z.enum(TRAIL_CATEGORIES)).min(1) }),
])
export type PropagationPolicy = z.infer<typeof PropagationPolicySchema>

/**
 * Which spans are judged: the `Trace.find` query shape (`kind`, `name`, `attr`). Only leaves of the
 * selection are judged (a selected span with children is left to its children).
 *
 * @example
 * SpanSelectionSchema.parse({ kind: ['llm', 'tool'], name: /Search/ })
 */
export const SpanSelectionSchema = z.custom<SpanQuery>(
  (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
    const q = v as Record<string, unknown>
    const kinds = q.kind === undefined ? [] : Array.isArray(q.kind) ? q.kind : [q.kind]
    if (!kinds.every((k) => SpanKindSchema.safeParse(k).success)) return false
    if (q.name !== undefined && typeof q.name !== 'string' && !(q.name instanceof RegExp)) return false
    return (
      q.attr === undefined ||
      typeof q.attr === 'string' ||
      (typeof q.attr === 'object' && q.attr !== null && 'key' in q.attr)
    )
  },
  {
    error:
      'select must be a span query like { kind: ["llm", "tool"] } (kind: agent|llm|tool|chain|retriever|other, name: string | RegExp, attr)',
  },
)

/** Progress of a diagnosis, for a progress line: `judged 37/120 spans…`. */
export const DiagnoseProgressSchema = z.object({
  phase: z.enum(['spans', 'agent']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
})
export type DiagnoseProgress = z.infer<typeof DiagnoseProgressSchema>

/**
 * Options of `diagnose(trace, options)`.
 * - `judge`: without one the diagnosis is deterministic only (detector findings, propagation, the
 *   deterministic part of tool abuse) and says so in `mode` / `skipped`.
 * - `select`: leaves to judge (default `{ kind: ['llm', 'tool'] }`).
 * - `policy`: propagation (default `'existential'`).
 * - `budgetTokens`: per judge call, prompt side (default 16 000); no call exceeds it.
 * - `agent`: run the agent-level pass (default true), or only the listed metrics.
 * - `goal`: what the run should achieve, for completeness (default: the root agent's task).
 * - `threshold`: normalized pass threshold of each span aspect (default 0.5 = 3/5).
 * - `judgeDetectorSpans`: also judge spans a detector already explains (default false).
 * - `contextSteps`: previous steps shown to the span judge (default 4).
 * - `detectors`: options of the deterministic detectors, or `false` to leave them out (default: all).
 *
 * @example
 * const options = DiagnoseOptionsSchema.parse({ policy: { type: 'threshold', threshold: 0.3 }, budgetTokens: 8000 })
 */
export const DiagnoseOptionsSchema = z.strictObject({
  judge: z
    .custom<Judge>((v) => typeof (v as Judge | null)?.evaluate === 'function', {
      error: 'judge must be a Judge (openaiJudge(), bedrockJudge(), judgeFromEnv() …)',
    })
    .optional(),
  select: SpanSelectionSchema.optional(),
  policy: PropagationPolicySchema.optional(),
  budgetTokens: z.number().int().min(MIN_BUDGET_TOKENS).optional(),
  agent: z.union([z.boolean(), z.array(AgentMetricSchema)]).optional(),
  goal: z.string().min(1).optional(),
  threshold: z.number().min(0).max(1).optional(),
  judgeDetectorSpans: z.boolean().optional(),
  contextSteps: z.number().int().nonnegative().optional(),
  detectors: z.union([z.boolean(), DetectorOptionsSchema]).optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
  onProgress: z
    .custom<(progress: DiagnoseProgress) => void>((v) => typeof v === 'function', {
      error: 'onProgress must be a function',
    })
    .optional(),
})
export type DiagnoseOptions = z.input<typeof DiagnoseOptionsSchema>

/**
 * A span's state: `fail`, `pass`, `unjudgeable` (a verdict was wanted but none could be obtained) or
 * `unjudged` (nothing judged it, and nothing below it was judged).
 *
 * @example
 * SpanStateSchema.parse('unjudgeable')
 */
export const SpanStateSchema = z.enum(['fail', 'pass', 'unjudgeable', 'unjudged'])
export type SpanState = z.infer<typeof SpanStateSchema>

/**
 * One span of the diagnosed tree: its own verdicts and state, and the state after propagation.
 * `propagatedCategories` are the failure categories that reached this span from below (or its own).
 *
 * @example
 * diagnosis.spans.filter((s) => s.state === 'fail' && s.own !== 'fail') // parents failed by propagation
 */
export const DiagnosisSpanSchema = z.object({
  spanId: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  kind: SpanKindSchema,
  depth: z.number().int().nonnegative(),
  own: SpanStateSchema,
  state: SpanStateSchema,
  propagatedCategories: z.array(z.string()),
  verdicts: z.array(VerdictSchema),
})
export type DiagnosisSpan = z.infer<typeof DiagnosisSpanSchema>

/**
 * A failing leaf, localized: where it is, what failed, why. `metric`/`score` are those of the verdict
 * that explains the failure best (a category verdict or detector first, else the lowest aspect).
 *
 * @example
 * `${leaf.kind}:${leaf.name} (id ${leaf.spanId}, path ${leaf.path.join(' › ')}) — ${leaf.category} (${leaf.metric}): ${leaf.reason}`
 */
export const FailingLeafSchema = z.object({
  spanId: z.string(),
  kind: SpanKindSchema,
  name: z.string(),
  /** Names from the root down to the span. */
  path: z.array(z.string()),
  /** 1-based position in depth-first order, and the trace's span count: "span 3/17". */
  position: z.number().int().positive(),
  of: z.number().int().positive(),
  category: z.string().optional(),
  /** Every category blamed on the span (detectors and judge). */
  categories: z.array(z.string()),
  metric: z.string(),
  /** Normalized 0..1, null for detector findings. */
  score: z.number().min(0).max(1).nullable(),
  raw: z.union([z.number(), z.string(), z.boolean(), z.null()]),
  reason: z.string(),
  evidence: z.string().optional(),
  /** Whether this failure reached the root under the policy. */
  propagates: z.boolean(),
  verdictIds: z.array(z.string()),
})
export type FailingLeaf = z.infer<typeof FailingLeafSchema>

/**
 * The trace's verdict: `fail` if a root failed after propagation, else `unjudgeable` if a wanted verdict
 * is missing, else `pass`. `reason` is one sentence naming the first failing leaves.
 *
 * @example
 * if (diagnosis.verdict.outcome !== 'pass') throw new Error(diagnosis.verdict.reason)
 */
export const TraceVerdictSchema = z.object({
  outcome: z.enum(['pass', 'fail', 'unjudgeable']),
  pass: z.boolean(),
  reason: z.string(),
})
export type TraceVerdict = z.infer<typeof TraceVerdictSchema>

/**
 * The top-down pass: agent-level verdicts (level 'agent'), and how the run was read.
 *
 * @example
 * diagnosis.agent.verdicts.find((v) => v.metric === 'agent.tool_abuse')?.reason
 */
export const AgentDiagnosisSchema = z.object({
  verdicts: z.array(VerdictSchema),
  /** Compact steps read (plans, tool calls, errors, final answer). */
  steps: z.number().int().nonnegative(),
  /** Judge calls per metric beyond one mean the run was chunked; 0 without a judge. */
  chunks: z.number().int().nonnegative(),
  /** Deterministic tool-abuse evidence: repeated identical calls and failing calls retried unchanged. */
  repeatedCalls: z.number().int().nonnegative(),
  unchangedRetries: z.number().int().nonnegative(),
})
export type AgentDiagnosis = z.infer<typeof AgentDiagnosisSchema>

/**
 * What a diagnosis cost and covered. Tokens and cost are as the judge reported them (cached calls
 * count what was recorded); `maxPromptTokens` is our own estimate of the largest prompt sent.
 *
 * @example
 * console.log(`${s.judgeCalls} judge calls (${s.cachedCalls} cached), max prompt ${s.maxPromptTokens} tokens`)
 */
export const DiagnosisStatsSchema = z.object({
  judgeCalls: z.number().int().nonnegative(),
  cachedCalls: z.number().int().nonnegative(),
  unjudgeable: z.number().int().nonnegative(),
  tokens: z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }),
  /** null when no call had a known price (or no call was made). */
  costUsd: z.number().nonnegative().nullable(),
  maxPromptTokens: z.number().int().nonnegative(),
  budgetTokens: z.number().int().positive(),
  spansSelected: z.number().int().nonnegative(),
  spansJudged: z.number().int().nonnegative(),
  /** Selected spans not judged because a detector already explains them. */
  spansSkipped: z.number().int().nonnegative(),
})
export type DiagnosisStats = z.infer<typeof DiagnosisStatsSchema>

/**
 * The result of `diagnose`: per-span verdicts and states, the failing leaves, category counts, the
 * trace verdict, the agent-level pass and the stats. `mode: 'deterministic'` means no judge ran;
 * `skipped` then lists the judge metrics left out. JSON-safe (no bigint).
 *
 * @example
 * const d = await diagnose(trace, { judge })
 * for (const leaf of d.failingLeaves) console.log(formatFailingLeaf(leaf))
 */
export const DiagnosisSchema = z.object({
  traceId: z.string(),
  mode: z.enum(['judge', 'deterministic']),
  judge: z.string().nullable(),
  policy: PropagationPolicySchema,
  threshold: z.number().min(0).max(1),
  verdict: TraceVerdictSchema,
  spans: z.array(DiagnosisSpanSchema),
  failingLeaves: z.array(FailingLeafSchema),
  categories: z.partialRecord(z.enum(TRAIL_CATEGORIES), z.number().int().positive()),
  findings: z.array(FindingSchema),
  agent: AgentDiagnosisSchema,
  stats: DiagnosisStatsSchema,
  skipped: z.array(z.string()),
})
export type Diagnosis = z.infer<typeof DiagnosisSchema>
