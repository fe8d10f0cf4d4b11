import * as z from 'zod'
import { TRAIL_CATEGORIES } from '../taxonomy'
import { ExtractJsonError, extractJsonFromText } from './extract-json'
import { LabelScoresSchema, labelScores, weightedF1 } from './f1'
import { CorrelationSchema, pearson } from './pearson'
import { PyError, pyContains, pyFloat, pyIndex, pyInt, pyTruthy } from './py'
import { pyJsonLoads } from './py-json'
import { calculateMetrics } from './trail-metrics'

/** Score keys of a TRAIL prediction, in the scorer's order, with the names its report uses. */
export const TRAIL_SCORE_KEYS = [
  ['reliability_score', 'reliability'],
  ['security_score', 'security'],
  ['instruction_adherence_score', 'instruction_adherence'],
  ['plan_opt_score', 'plan_optimization'],
  ['overall', 'overall'],
] as const

/**
 * What the official TRAIL scorer reports for one split (same keys as
 * `datasets/trail/conformance/expected_official_scores.json`), plus localization precision, recall
 * and F1 (micro over the processed traces; see docs/decisions/0003-trail-localization-precision.md)
 * and the files the scorer skipped, with why.
 */
export const TrailScoresSchema = z.object({
  weighted_f1: z.number(),
  /** Macro average over processed traces of the recall of distinct gold locations. */
  location_accuracy: z.number(),
  /** Macro average of the recall of distinct gold (location, category) pairs. */
  joint_accuracy: z.number(),
  files_processed: z.number().int(),
  /** Labels with gold support > 0 only, as the official metrics file lists them. */
  category_metrics_with_support: z.record(z.string(), LabelScoresSchema),
  score_correlations: z.object({
    reliability: CorrelationSchema,
    security: CorrelationSchema,
    instruction_adherence: CorrelationSchema,
    plan_optimization: CorrelationSchema,
    overall: CorrelationSchema,
  }),
  localization_precision: z.number(),
  localization_recall: z.number(),
  localization_f1: z.number(),
  /**
   * Companions of the recall-only official metrics (not in the official scorer): precision and recall of
   * distinct (span, category) pairs (micro), joint accuracy with one category per predicted span (the
   * first one named), and how many errors a prediction names per processed trace (mean and max).
   */
  pair_precision: z.number(),
  pair_recall: z.number(),
  top1_joint_accuracy: z.number(),
  predictions_per_trace: z.number(),
  predictions_max: z.number().int(),
  /** Gold files not counted: no prediction, unparseable gold or prediction, or a scorer exception. */
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })),
})
export type TrailScores = z.infer<typeof TrailScoresSchema>

/** One gold file and its prediction as text; `undefined` prediction = no such file; Error = unreadable. */
export interface TrailScoringInput {
  file: string
  gold: string | Error
  prediction: string | Error | undefined
}

type ScoreName = (typeof TRAIL_SCORE_KEYS)[number][1]

/**
 * The official TRAIL scorer's `main(gt_dir, gen_dir)` over texts already read. Reproduces its
 * bookkeeping exactly: missing or unparseable predictions and malformed gold are skipped (not
 * scored 0); a score that makes `float()`/`int()` raise something other than ValueError escapes to
 * the per-file handler after the file's accuracies and label vectors were added, so they count while
 * the file does not.
 *
 * @example
 * const scores = scoreTrailInputs([{ file: 'a.json', gold: goldText, prediction: replyText }])
 * scores.location_accuracy
 */
export function scoreTrailInputs(inputs: Iterable<TrailScoringInput>): TrailScores {
  const yTrue: number[][] = []
  const yPred: number[][] = []
  let locationSum = 0
  let jointSum = 0
  let filesProcessed = 0
  let matched = 0
  let predicted = 0
  let gold = 0
  let matchedPairs = 0
  let predictedPairs = 0
  let goldPairs = 0
  let top1Sum = 0
  let predictionsSum = 0
  let predictionsMax = 0
  const skipped: TrailScores['skipped'] = []
  const pairs = Object.fromEntries(
    TRAIL_SCORE_KEYS.map(([, name]) => [name, { gt: [] as number[], gen: [] as number[] }]),
  ) as Record<ScoreName, { gt: number[]; gen: number[] }>

  for (const input of inputs) {
    if (input.prediction === undefined) {
      skipped.push({ file: input.file, reason: 'no prediction file' })
      continue
    }
    try {
      if (input.gold instanceof Error) throw input.gold
      if (input.prediction instanceof Error) throw input.prediction
      const gt = pyJsonLoads(input.gold)
      const gen = extractJsonFromText(input.prediction)
      const m = calculateMetrics(gt, gen)
      yTrue.push(m.yTrue)
      yPred.push(m.yPred)
      locationSum += m.locationAccuracy
      jointSum += m.jointAccuracy
      addScorePairs(m.gtScores, m.genScores, pairs)
      filesProcessed++
      matched += m.matchedLocations
      predicted += m.predictedLocations
      gold += m.goldLocations
      matchedPairs += m.matchedPairs
      predictedPairs += m.predictedPairs
      goldPairs += m.goldPairs
      top1Sum += m.top1JointAccuracy
      predictionsSum += m.predictions
      predictionsMax = Math.max(predictionsMax, m.predictions)
    } catch (err) {
      if (!isScorerSkip(err)) throw err
      skipped.push({ file: input.file, reason: (err as Error).message })
    }
  }

  const labels = labelScores(yTrue, yPred, TRAIL_CATEGORIES.length)
  const perCategory: TrailScores['category_metrics_with_support'] = {}
  TRAIL_CATEGORIES.forEach((label, i) => {
    if (labels[i].support > 0) perCategory[label] = labels[i]
  })
  const precision = predicted === 0 ? 0 : matched / predicted
  const recall = gold === 0 ? 0 : matched / gold
  return {
    weighted_f1: weightedF1(labels),
    // The official script divides by zero here when nothing was processed; report 0 instead.
    location_accuracy: filesProcessed === 0 ? 0 : locationSum / filesProcessed,
    joint_accuracy: filesProcessed === 0 ? 0 : jointSum / filesProcessed,
    files_processed: filesProcessed,
    category_metrics_with_support: perCategory,
    score_correlations: Object.fromEntries(
      TRAIL_SCORE_KEYS.map(([, name]) => [name, pearson(pairs[name].gt, pairs[name].gen)]),
    ) as TrailScores['score_correlations'],
    localization_precision: precision,
    localization_recall: recall,
    localization_f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    pair_precision: predictedPairs === 0 ? 0 : matchedPairs / predictedPairs,
    pair_recall: goldPairs === 0 ? 0 : matchedPairs / goldPairs,
    top1_joint_accuracy: filesProcessed === 0 ? 0 : top1Sum / filesProcessed,
    predictions_per_trace: filesProcessed === 0 ? 0 : predictionsSum / filesProcessed,
    predictions_max: predictionsMax,
    skipped,
  }
}

/** §2.4 of METRICS.md: pair up the scores both sides have, with Python's casts and fallbacks. */
function addScorePairs(
  gtScores: unknown,
  genScores: unknown,
  pairs: Record<ScoreName, { gt: number[]; gen: number[] }>,
): void {
  if (!pyTruthy(gtScores) || !pyTruthy(genScores)) return
  for (const [key, name] of TRAIL_SCORE_KEYS) {
    if (!(pyContains(gtScores, key) && pyContains(genScores, key))) continue
    const gtRaw = pyIndex(gtScores, key)
    const gtValue = pyTruthy(gtRaw) ? gtRaw : -1
    const genRaw = pyIndex(genScores, key)
    const genValue = pyTruthy(genRaw) ? genRaw : -1
    let g: number
    let p: number
    try {
      g = pyFloat(gtValue)
      // Only reliability is cast with int(): 3.9 → 3, "3.5" raises ValueError → −1.
      p = key === 'reliability_score' ? pyInt(genValue) : pyFloat(genValue)
    } catch (err) {
      if (!(err instanceof PyError && err.type === 'ValueError')) throw err
      g = pyFloat(gtValue)
      p = -1
    }
    pairs[name].gt.push(g)
    pairs[name].gen.push(p)
  }
}

/** Exceptions the official per-file `except Exception: continue` swallows; anything else is our bug. */
function isScorerSkip(err: unknown): boolean {
  return (
    err instanceof PyError ||
    err instanceof ExtractJsonError ||
    err instanceof SyntaxError ||
    err instanceof TrailReadError
  )
}

/** A gold or prediction file that could not be read as UTF-8 text (the scorer skips it). */
export class TrailReadError extends Error {
  override readonly name = 'TrailReadError'
}
