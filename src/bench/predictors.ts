import * as z from 'zod'
import type { PropagationPolicy } from '../diagnosis/types'
import type { Judge } from '../judges/types'
import { detect, type DetectorProfile } from '../metrics/detectors'
import { judgePredictor } from './judge-predictor'
import { monolithicPredictor } from './monolithic-predictor'
import { oraclePredictor, type OracleLoss } from './oracle-predictor'
import { findingsToPrediction, type TrailPredictor } from './trail-prediction'

/**
 * How predictions are made: `deterministic` maps detector findings (free, no judge); `judge` runs the
 * span-level diagnosis bottom-up (`diagnose`); `monolithic` hands the whole trace file to one judge
 * call, as the TRAIL paper's baselines do; `oracle` runs the judge path with a scripted judge that answers
 * from the gold annotations (the ceiling of the judge path, and what it loses before a judge answers).
 */
export const TrailModeSchema = z.enum(['deterministic', 'judge', 'monolithic', 'oracle'])
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

/** Deterministic mode under a detector profile (`trail-recall` adds the second guesses TRAIL's recall rewards). */
export function deterministicPredictorFor(profile: DetectorProfile = 'default'): TrailPredictor {
  return profile === 'default'
    ? deterministicPredictor
    : async (trace) => findingsToPrediction(detect(trace, { profile }))
}

/** What the judge-backed modes need. */
export interface PredictorOptions {
  judge?: Judge
  /** Monolithic: the judge's context window in estimated tokens (default 128 000). */
  contextTokens?: number
  /** Judge mode: per-call budget (default 16 000). */
  budgetTokens?: number
  policy?: PropagationPolicy
  /** Detector profile of the deterministic mode (default `default`). */
  profile?: DetectorProfile
  /** Oracle: the TRAIL folder whose gold annotations the scripted judge reads. */
  dir?: string
  /** Oracle: receives each trace's lost gold errors. */
  onLosses?: (losses: OracleLoss[]) => void
}

/**
 * The predictor a mode runs: the one given, else the built-in one for the mode (judge and monolithic
 * need `options.judge`).
 *
 * @example
 * predictorFor('deterministic') === deterministicPredictor // true
 * predictorFor('judge', undefined, { judge: judgeFromEnv() })
 */
export function predictorFor(mode: TrailMode, given?: TrailPredictor, options: PredictorOptions = {}): TrailPredictor {
  if (given) return given
  if (mode === 'deterministic') return deterministicPredictorFor(options.profile)
  if (mode === 'oracle') {
    if (!options.dir)
      throw new TrailBenchConfigError(
        'mode oracle needs the TRAIL folder whose annotations_* gold the oracle answers from',
      )
    return oraclePredictor({
      dir: options.dir,
      budgetTokens: options.budgetTokens,
      policy: options.policy,
      onLosses: options.onLosses,
    })
  }
  if (!options.judge) {
    throw new TrailBenchConfigError(
      `mode ${mode} needs a judge: pass --judge openai:MODEL | bedrock:MODEL_ID | openai-compatible:URL#MODEL (or set AGENT_VERDICT_JUDGE), or run --mode deterministic`,
    )
  }
  if (mode === 'judge')
    return judgePredictor(options.judge, { budgetTokens: options.budgetTokens, policy: options.policy })
  return monolithicPredictor(options.judge, { contextTokens: options.contextTokens })
}
