import { z } from 'zod'
import { detect } from '../metrics/detectors'
import { findingsToPrediction, type TrailPredictor } from './trail-prediction'

/**
 * How predictions are made: `deterministic` maps detector findings (free, no judge); `judge` will run
 * the span-level judge bottom-up; `monolithic` will hand the whole trace to one judge call, as the
 * TRAIL paper's baselines do.
 */
export const TrailModeSchema = z.enum(['deterministic', 'judge', 'monolithic'])
export type TrailMode = z.infer<typeof TrailModeSchema>

/** The benchmark cannot run as configured (e.g. a judge mode without a judge). */
export class TrailBenchConfigError extends Error {
  override readonly name = 'TrailBenchConfigError'
}

/**
 * Deterministic mode: every detector finding becomes a predicted error at its span; no scores.
 *
 * @example
 * const prediction = await deterministicPredictor(trace, { split: 'GAIA', traceId: trace.traceId, file: 'x.json' })
 */
export const deterministicPredictor: TrailPredictor = async (trace) => findingsToPrediction(detect(trace))

const NEEDS_JUDGE: Record<Exclude<TrailMode, 'deterministic'>, string> = {
  judge: 'the span-level judge predictor is not built into the CLI yet',
  monolithic: 'the whole-trace judge predictor is not built into the CLI yet',
}

/**
 * The predictor a mode runs: the one given, else the built-in one for the mode.
 *
 * @example
 * predictorFor('deterministic') === deterministicPredictor // true
 */
export function predictorFor(mode: TrailMode, given?: TrailPredictor): TrailPredictor {
  if (given) return given
  if (mode === 'deterministic') return deterministicPredictor
  throw new TrailBenchConfigError(
    `mode ${mode} needs a judge: ${NEEDS_JUDGE[mode]}; run --mode deterministic, or call runTrailBench({ mode: '${mode}', predictor }) with a predictor that calls your judge`,
  )
}
