// Terminal rendering of a calibration: one block per metric with its agreement figures, matrix and disagreements.
import type { MetricCalibration } from './calibrate'

const fmt = (n: number | undefined) => (n === undefined ? '–' : Number.isNaN(n) ? 'undefined' : n.toFixed(3))

/**
 * Why κ (or ρ) is undefined, naming the rater: nothing judged, the human labels all equal, or the judge's scores
 * all equal (κ divides by the chance agreement's complement, which is 0 when a rater gives one answer only).
 */
export function undefinedWhy(r: MetricCalibration): string {
  if (r.n === 0)
    return `undefined: no case was judged${r.unjudgeable.length ? ` (${r.unjudgeable.length} unjudgeable, reasons below)` : ''}`
  const { categories, matrix } = r.confusion
  const rows = categories.filter((_, i) => matrix[i].some((n) => n > 0))
  const cols = categories.filter((_, j) => matrix.some((row) => row[j] > 0))
  if (cols.length === 1 && rows.length === 1)
    return `undefined: neither rater varied: every human label is ${rows[0]}, the judge gave ${cols[0]} to every case`
  if (cols.length === 1) return `undefined: the judge never varied (it gave ${cols[0]} to every case)`
  if (rows.length === 1) return `undefined: the human labels never varied (every case is labelled ${rows[0]})`
  return 'undefined'
}

// Landis & Koch (1977): the usual words for κ bands; a guide, not a verdict.
function band(k: number | undefined, r: MetricCalibration): string {
  if (k === undefined || Number.isNaN(k)) return undefinedWhy(r)
  if (k < 0) return 'worse than chance'
  if (k <= 0.2) return 'slight'
  if (k <= 0.4) return 'fair'
  if (k <= 0.6) return 'moderate'
  if (k <= 0.8) return 'substantial'
  return 'almost perfect'
}

// Judge text is untrusted: one line, no terminal control sequences.
const line = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()

/**
 * The calibration as text.
 *
 * @example
 * process.stdout.write(renderCalibration(await calibrate(file, { judge })))
 */
export function renderCalibration(results: readonly MetricCalibration[]): string {
  const out: string[] = []
  for (const r of results) {
    out.push(
      `${r.metric} (${r.scale}, ${r.n} cases${r.unjudgeable.length ? `, ${r.unjudgeable.length} unjudgeable` : ''}; ${r.judgeCalls} judge calls, ${r.cachedCalls} replayed)`,
    )
    out.push(`  agreement ${fmt(r.agreement)}`)
    if (r.scale === 'binary') out.push(`  Cohen's κ ${fmt(r.kappa)} (${band(r.kappa, r)})`)
    else
      out.push(
        `  quadratic-weighted κ ${fmt(r.weightedKappa)} (${band(r.weightedKappa, r)})`,
        `  Spearman ρ ${fmt(r.spearman)}${r.spearman === undefined || Number.isNaN(r.spearman) ? ` (${undefinedWhy(r)})` : ''}`,
      )
    const cats = r.confusion.categories
    const width = Math.max(5, ...r.confusion.matrix.flat().map((n) => String(n).length + 1))
    out.push(
      `  confusion (rows: human, columns: judge)`,
      `  ${'human'.padEnd(7)}${cats.map((c) => String(c).padStart(width)).join('')}`,
    )
    r.confusion.matrix.forEach((row, i) => {
      out.push(`  ${String(cats[i]).padEnd(7)}${row.map((n) => String(n).padStart(width)).join('')}`)
    })
    if (r.disagreements.length > 0) {
      out.push('  disagreements:')
      for (const d of r.disagreements) out.push(`    ${d.id}: human ${d.label}, judge ${d.judge} — ${line(d.reason)}`)
    }
    for (const u of r.unjudgeable) out.push(`    ${u.id}: unjudgeable — ${line(u.reason)}`)
    out.push('')
  }
  return out.join('\n')
}
