// Scores and thresholds in one unit everywhere (failure messages and every report): the metric's own scale.
import type { Verdict } from './verdict'

/**
 * A verdict's score and its threshold on the metric's own scale: `3/5` with min `4` on a 1–5 scale,
 * `0/1` with min `1` for binary metrics, `0.50` with min `0.75` for ratios. `score` is `n/a` when the
 * judge gave none.
 *
 * @example
 * scoreOnScale({ scale: 'likert5', raw: 3, score: 0.5, threshold: 0.75 }) // { score: '3/5', min: '4' }
 */
export function scoreOnScale(v: Pick<Verdict, 'scale' | 'raw' | 'score' | 'threshold'>): {
  score: string
  min: string
} {
  if (v.scale === 'likert5') {
    const raw =
      typeof v.raw === 'number' && v.raw >= 1 && v.raw <= 5 ? v.raw : v.score === null ? null : v.score * 4 + 1
    return { score: raw === null ? 'n/a' : `${trim(raw)}/5`, min: trim(v.threshold * 4 + 1) }
  }
  if (v.scale === 'binary') return { score: v.score === null ? 'n/a' : `${trim(v.score)}/1`, min: trim(v.threshold) }
  return { score: v.score === null ? 'n/a' : v.score.toFixed(2), min: v.threshold.toFixed(2) }
}

/**
 * `3/5, min 4` — the one way a score is shown next to its threshold.
 *
 * @example
 * formatScoreVsMin(verdict) // '0/1, min 1'
 */
export function formatScoreVsMin(v: Pick<Verdict, 'scale' | 'raw' | 'score' | 'threshold'>): string {
  const { score, min } = scoreOnScale(v)
  return `${score}, min ${min}`
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '')
}
