import * as z from 'zod'
import { TrialsSummarySchema } from './trials'

export const VerdictLevelSchema = z.enum(['output', 'span', 'agent'])
export const VerdictScaleSchema = z.enum(['binary', 'likert5', 'ratio'])
export const VerdictOutcomeSchema = z.enum(['pass', 'fail', 'unjudgeable'])

/**
 * Tokens a judge used for a verdict: the one token-usage shape of the verdict and report contract.
 * (Judges count in `JudgeUsage`, `{ inputTokens, outputTokens }`, converted once by `tokenUsageOf`.)
 *
 * @example
 * TokenUsageSchema.parse({ input: 1200, output: 80 })
 */
export const TokenUsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  /**
   * Why the counts are not known: the judge reported counts that are not counts (`completion_tokens: -1`), or
   * the verdict reached the reporter invalid. The counts then read as 0 and the run's cost as unknown.
   */
  invalid: z.string().optional(),
})
export type TokenUsage = z.infer<typeof TokenUsageSchema>

/** Who judged, at what cost. `cached` is true when the verdict was replayed from a cassette. */
export const JudgeInfoSchema = z.object({
  provider: z.string(),
  model: z.string(),
  promptVersion: z.string(),
  tokens: TokenUsageSchema,
  costUsd: z.number().nonnegative().nullable().optional(),
  latencyMs: z.number().nonnegative(),
  cached: z.boolean(),
  /**
   * Every request behind this verdict, counted apart: `made` reached the judge (each sample, re-ask and
   * retry is one), `replayed` came from the cassette, `retries` and `reasks` are the part of `made` that
   * were retries (HTTP) and re-asks (invalid reply). Absent on verdicts recorded before it existed: one
   * request, made or replayed as `cached` says.
   */
  calls: z
    .object({
      made: z.number().int().nonnegative(),
      replayed: z.number().int().nonnegative(),
      retries: z.number().int().nonnegative(),
      reasks: z.number().int().nonnegative(),
    })
    .optional(),
})
export type JudgeInfo = z.infer<typeof JudgeInfoSchema>

/**
 * The assertion a verdict was produced for: which matcher, whether it was asserted under `.not`, and
 * whether the assertion passed. `id` groups the verdicts of one assertion within a test (a trace
 * assertion yields one verdict per judged span). The judge's own verdict stays in `outcome`: a
 * `.not` assertion on a verdict judged `fail` passes ("judged fail, expected not").
 */
export const VerdictAssertionSchema = z.object({
  id: z.string(),
  matcher: z.string(),
  negated: z.boolean(),
  passed: z.boolean(),
})
export type VerdictAssertion = z.infer<typeof VerdictAssertionSchema>

/**
 * One judgement: of an output (matcher), of a span (diagnosis) or of a whole agent run.
 *
 * `score` is normalized to 0..1 (`raw` keeps the judge's own value, e.g. 4 on a 1–5 scale).
 * `outcome: 'unjudgeable'` means no valid verdict could be obtained (judge refused, malformed output
 * after retries, input over budget); `pass` is then false and `reason` holds the cause.
 */
export const VerdictSchema = z.object({
  id: z.string().optional(),
  metric: z.string(),
  level: VerdictLevelSchema,
  spanId: z.string().optional(),
  scale: VerdictScaleSchema,
  raw: z.union([z.number(), z.string(), z.boolean(), z.null()]),
  score: z.number().min(0).max(1).nullable(),
  threshold: z.number().min(0).max(1),
  pass: z.boolean(),
  outcome: VerdictOutcomeSchema,
  reason: z.string(),
  category: z.string().optional(),
  evidence: z.string().optional(),
  /** What was judged, truncated (the received output or a span excerpt), for reports. */
  subject: z.string().optional(),
  /** The image the judge saw, if any: digest and format; `source` is a file path or URL when known (the HTML report inlines it). */
  image: z.object({ digest: z.string(), format: z.string(), source: z.string().optional() }).optional(),
  /** Self-consistency: the individual sample scores when `samples > 1`. */
  samples: z.array(z.number()).optional(),
  /** Self-consistency: samples that gave no valid verdict (failed call, invalid reply); `samples` lists only the valid ones. */
  samplesFailed: z.number().int().nonnegative().optional(),
  judge: JudgeInfoSchema.optional(),
  /** Repeated agent trials: k, passes, rate, Wilson interval and the deciding rule (see `src/verdict/trials.ts`). */
  trials: TrialsSummarySchema.optional(),
  /** The assertion this verdict was made for (absent for verdicts not made by a matcher, e.g. `diagnose`). */
  assertion: VerdictAssertionSchema.optional(),
})
export type Verdict = z.infer<typeof VerdictSchema>
export type VerdictOutcome = z.infer<typeof VerdictOutcomeSchema>
export type VerdictLevel = z.infer<typeof VerdictLevelSchema>
export type VerdictScale = z.infer<typeof VerdictScaleSchema>
