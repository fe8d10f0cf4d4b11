// The cassette side of `report diff`: turns one cassette file into diff items. Kept to this one function
// so a change of the cassette format is adapted here and nowhere else (parseCassette reads every version).
import { parseCassette, type CassetteFile } from '../cassette/store'
import { correctnessMetric } from '../metrics/correctness'
import { faithfulnessMetric } from '../metrics/faithfulness'
import { instructionFollowingMetric } from '../metrics/instruction-following'
import { qualityMetric } from '../metrics/quality'
import { normalizeScore, type MetricScale } from '../metrics/metric'
import type { DiffItem } from '../report/diff'

// Metrics whose scale is fixed by name. A binary reply means pass/fail by the reply contract (1 = pass),
// so its outcome is known without a threshold; a 1–5 reply's outcome depends on the assertion's
// threshold, which a version-1 cassette does not store, so only its score is compared. Labelled entries
// (format 2) carry the matcher's own outcome and score.
const SCALES = new Map<string, MetricScale>(
  [correctnessMetric, faithfulnessMetric, instructionFollowingMetric, qualityMetric].map((m) => [m.name, m.scale]),
)

/**
 * Diff items of one cassette file (`<dir>/__verdicts__/<test file>.json`, any format version this package
 * wrote). Entries a matcher labelled (format 2) give one item per verdict, keyed `<test file> › <test> ›
 * <metric>` (`› <span>` for span verdicts), so a changed answer to the same test shows as a flip, not as a
 * removed and a new entry; when a label was recorded twice (the old reply is kept until pruned) the latest
 * recording counts. Unlabelled entries (format 1, or recorded outside a matcher) are keyed `<test file> ›
 * <metric> › <first 12 hex of the entry key>`, with the outcome known only for binary metrics.
 *
 * @example
 * itemsFromCassette('test/chart.test.ts', await readFile('test/__verdicts__/chart.test.ts.json', 'utf8'), 'test/__verdicts__/chart.test.ts.json')
 */
export function itemsFromCassette(testFile: string, text: string, where: string): DiffItem[] {
  let cassette: CassetteFile
  try {
    cassette = parseCassette(text, where)
  } catch (error) {
    throw new Error(`agent-verdict report diff: ${(error as Error).message}`)
  }
  const labelled = new Map<string, { item: DiffItem; recordedAt: string }>()
  const items: DiffItem[] = []
  for (const [key, e] of Object.entries(cassette.entries)) {
    const tokens = e.usage.inputTokens + e.usage.outputTokens
    if (e.test !== undefined && e.verdicts && e.verdicts.length > 0) {
      // One entry's cost belongs to its first verdict, so totals are not counted once per aspect.
      e.verdicts.forEach((v, i) => {
        const itemKey = `${testFile} › ${e.test} › ${v.metric}${e.span ? ` › ${e.span}` : ''}`
        const item: DiffItem = {
          key: itemKey,
          outcome: v.outcome,
          score: scoreOf(v.score),
          reason: v.reason,
          tokens: i === 0 ? tokens : 0,
          costUsd: i === 0 ? e.costUsd : 0,
        }
        const seen = labelled.get(itemKey)
        if (!seen || seen.recordedAt < e.recordedAt) labelled.set(itemKey, { item, recordedAt: e.recordedAt })
      })
      continue
    }
    const output = e.output as { score?: unknown; reasoning?: unknown } | null
    const raw = typeof output?.score === 'number' ? output.score : null
    const scale = SCALES.get(e.metric)
    const score = raw === null ? null : scale ? normalizeScore(scale, raw) : raw
    items.push({
      key: `${testFile} › ${e.metric} › ${key.slice(0, 12)}`,
      ...(scale === 'binary' && score !== null ? { outcome: score >= 1 ? ('pass' as const) : ('fail' as const) } : {}),
      score,
      ...(typeof output?.reasoning === 'string' ? { reason: output.reasoning } : {}),
      tokens,
      costUsd: e.costUsd,
    })
  }
  return [...items, ...[...labelled.values()].map((l) => l.item)]
}

/** A cassette verdict's score on its own scale (`2/5`, `0/1`, `0.50`) as 0..1; null when absent. */
function scoreOf(text: string | null): number | null {
  if (text === null) return null
  const fraction = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(text)
  if (fraction) {
    const [value, of] = [Number(fraction[1]), Number(fraction[2])]
    return of === 5 ? normalizeScore('likert5', value) : of > 0 ? value / of : null
  }
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}
