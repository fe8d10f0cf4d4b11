import type { z } from 'zod'
import type { TrailSplit } from './splits'
import { TRAIL_SCORE_KEYS, TrailScoresSchema, type TrailScores } from './trail-scorer'

/** The `--json` summary of one split: the official headline numbers plus localization precision. */
export const TrailSummarySchema = TrailScoresSchema.pick({
  location_accuracy: true,
  joint_accuracy: true,
  weighted_f1: true,
  localization_precision: true,
  localization_f1: true,
  pair_precision: true,
  pair_recall: true,
  top1_joint_accuracy: true,
  predictions_per_trace: true,
  files_processed: true,
})
export type TrailSummary = z.infer<typeof TrailSummarySchema>

/**
 * The `--json` object for the splits that ran (keys exactly `GAIA`, `SWE_Bench`).
 *
 * @example
 * summarizeTrail({ GAIA: scores }) // { GAIA: { location_accuracy: …, joint_accuracy: …, … } }
 */
export function summarizeTrail(
  results: Partial<Record<TrailSplit, TrailScores>>,
): Partial<Record<TrailSplit, TrailSummary>> {
  const out: Partial<Record<TrailSplit, TrailSummary>> = {}
  for (const [split, s] of Object.entries(results) as Array<[TrailSplit, TrailScores]>) {
    out[split] = {
      location_accuracy: s.location_accuracy,
      joint_accuracy: s.joint_accuracy,
      weighted_f1: s.weighted_f1,
      localization_precision: s.localization_precision,
      localization_f1: s.localization_f1,
      pair_precision: s.pair_precision,
      pair_recall: s.pair_recall,
      top1_joint_accuracy: s.top1_joint_accuracy,
      predictions_per_trace: s.predictions_per_trace,
      files_processed: s.files_processed,
    }
  }
  return out
}

const f4 = (x: number) => (Number.isNaN(x) ? 'NaN' : x.toFixed(4))

/**
 * A small plain-text table of one split's scores, for the terminal.
 *
 * @example
 * process.stdout.write(formatTrailScores('GAIA', scores))
 */
export function formatTrailScores(split: TrailSplit, s: TrailScores): string {
  const correlations = TRAIL_SCORE_KEYS.map(([, name]) => {
    const c = s.score_correlations[name]
    return c.n < 2 ? `${name} n/a (n=${c.n})` : `${name} ${f4(c.correlation)} (n=${c.n})`
  })
  const rows: Array<[string, string, string]> = [
    ['files processed', String(s.files_processed), s.skipped.length ? `${s.skipped.length} gold files skipped` : ''],
    ['location accuracy', f4(s.location_accuracy), 'official: recall of gold spans, mean over traces'],
    ['joint accuracy', f4(s.joint_accuracy), 'official: recall of gold (span, category) pairs'],
    ['weighted F1', f4(s.weighted_f1), 'official: categories present per trace'],
    ['localization precision', f4(s.localization_precision), 'predicted spans that are gold spans (micro)'],
    ['localization recall', f4(s.localization_recall), 'gold spans predicted (micro)'],
    ['localization F1', f4(s.localization_f1), ''],
    ['pair precision', f4(s.pair_precision), 'predicted (span, category) pairs that are gold (micro)'],
    ['pair recall', f4(s.pair_recall), 'gold (span, category) pairs predicted (micro)'],
    ['top-1 joint accuracy', f4(s.top1_joint_accuracy), 'joint accuracy keeping the first category per span'],
    ['predictions per trace', s.predictions_per_trace.toFixed(2), `errors named per trace (max ${s.predictions_max})`],
  ]
  const lines = [
    `TRAIL ${split}`,
    ...rows.map(([k, v, note]) => `  ${k.padEnd(24)}${v.padStart(7)}${note ? `   ${note}` : ''}`),
  ]
  lines.push(`  score correlations      ${correlations.join(' · ')}`)
  return `${lines.join('\n')}\n`
}
