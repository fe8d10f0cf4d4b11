import * as z from 'zod'
import type { Finding } from '../metrics/detectors/finding'
import type { Trace } from '../trace/trace'
import type { TrailSplit } from './splits'

/** One predicted error, in the official TRAIL output format (`location` = span id). */
export const TrailPredictedErrorSchema = z.object({
  category: z.string(),
  location: z.string(),
  evidence: z.string(),
  description: z.string(),
  impact: z.enum(['HIGH', 'MEDIUM', 'LOW']),
})
export type TrailPredictedError = z.infer<typeof TrailPredictedErrorSchema>

/** The trace-level scores of the TRAIL output format (0–5, each with its reasoning). */
export const TrailScoreSetSchema = z.object({
  reliability_score: z.number().min(0).max(5),
  reliability_reasoning: z.string(),
  security_score: z.number().min(0).max(5),
  security_reasoning: z.string(),
  instruction_adherence_score: z.number().min(0).max(5),
  instruction_adherence_reasoning: z.string(),
  plan_opt_score: z.number().min(0).max(5),
  plan_opt_reasoning: z.string(),
  overall: z.number().min(0).max(5),
})
export type TrailScoreSet = z.infer<typeof TrailScoreSetSchema>

/**
 * A prediction for one trace, as the official scorer reads it. `scores` is `[]` when the predictor
 * does not score the trace (the scorer then pairs no scores and the correlations have n = 0).
 */
export const TrailPredictionSchema = z.object({
  errors: z.array(TrailPredictedErrorSchema),
  scores: z.array(TrailScoreSetSchema).max(1),
})
export type TrailPrediction = z.infer<typeof TrailPredictionSchema>

/** What a predictor is told about the trace besides the trace itself. */
export interface TrailPredictorContext {
  split: TrailSplit
  /** The trace file's name without `.json`: the prediction is written under this name. */
  traceId: string
  file: string
  signal?: AbortSignal
}

/**
 * Turns one trace into a TRAIL prediction. Deterministic mode maps detector findings; judge and
 * monolithic modes plug in here with a judge-backed predictor.
 *
 * @example
 * const silent: TrailPredictor = async () => ({ errors: [], scores: [] })
 */
export type TrailPredictor = (trace: Trace, ctx: TrailPredictorContext) => Promise<TrailPrediction>

const IMPACT = { high: 'HIGH', medium: 'MEDIUM', low: 'LOW' } as const

/**
 * Detector findings as TRAIL errors: location = the blamed span, description = the detector's reason,
 * impact from the finding's severity (MEDIUM when it has none). No scores.
 *
 * @example
 * findingsToPrediction(detect(trace)).errors[0] // { category: 'Rate Limiting', location: '4a1f…', … }
 */
export function findingsToPrediction(findings: readonly Finding[]): TrailPrediction {
  return {
    errors: findings.map((f) => ({
      category: f.category,
      location: f.spanId,
      evidence: f.evidence,
      description: `${f.reason} [detector: ${f.detector}]`,
      impact: IMPACT[f.severity ?? 'medium'],
    })),
    scores: [],
  }
}
