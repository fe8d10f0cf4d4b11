// sklearn's multilabel precision/recall/F1 (average=None and "weighted", zero_division=0).
import * as z from 'zod'

/** Per-label scores, as `precision_recall_fscore_support(average=None, zero_division=0)` gives them. */
export const LabelScoresSchema = z.object({
  precision: z.number(),
  recall: z.number(),
  f1: z.number(),
  /** Number of rows (traces) whose gold has the label. */
  support: z.number().int(),
})
export type LabelScores = z.infer<typeof LabelScoresSchema>

/**
 * Per-label P/R/F1/support over binary indicator rows (one row per trace, one column per label).
 *
 * @example
 * labelScores([[1, 0], [1, 1]], [[1, 0], [0, 1]]) // [{ precision: 1, recall: 0.5, f1: 0.667, support: 2 }, …]
 */
export function labelScores(
  yTrue: readonly (readonly number[])[],
  yPred: readonly (readonly number[])[],
  labels: number,
): LabelScores[] {
  const out: LabelScores[] = []
  for (let c = 0; c < labels; c++) {
    let tp = 0
    let predicted = 0
    let support = 0
    for (let r = 0; r < yTrue.length; r++) {
      const t = yTrue[r][c] === 1
      const p = yPred[r][c] === 1
      if (t) support++
      if (p) predicted++
      if (t && p) tp++
    }
    out.push({
      precision: predicted === 0 ? 0 : tp / predicted,
      recall: support === 0 ? 0 : tp / support,
      // sklearn ≥ 1.3 computes F-beta from counts: (1+β²)·tp / (β²·support + predicted).
      f1: support + predicted === 0 ? 0 : (2 * tp) / (support + predicted),
      support,
    })
  }
  return out
}

/**
 * `f1_score(average="weighted", zero_division=0)`: F1 per label weighted by support; 0 with no support.
 *
 * @example
 * weightedF1(labelScores(yTrue, yPred, TRAIL_CATEGORIES.length))
 */
export function weightedF1(scores: readonly LabelScores[]): number {
  let weighted = 0
  let total = 0
  for (const s of scores) {
    weighted += s.f1 * s.support
    total += s.support
  }
  return total === 0 ? 0 : weighted / total
}
