// The cassette side of `report diff`: turns one cassette file into diff items. Kept to this one function
// so a change of the cassette format is adapted here and nowhere else.
import { CassetteFileSchema } from '../cassette/store'
import { correctnessMetric } from '../metrics/correctness'
import { faithfulnessMetric } from '../metrics/faithfulness'
import { instructionFollowingMetric } from '../metrics/instruction-following'
import { qualityMetric } from '../metrics/quality'
import { normalizeScore, type MetricScale } from '../metrics/metric'
import type { DiffItem } from '../../reporters/diff'

// Metrics whose scale is fixed by name. A binary reply means pass/fail by the reply contract (1 = pass),
// so its outcome is known without a threshold; a 1–5 reply's outcome depends on the assertion's
// threshold, which a version-1 cassette does not store, so only its score is compared.
const SCALES = new Map<string, MetricScale>([correctnessMetric, faithfulnessMetric, instructionFollowingMetric, qualityMetric].map((m) => [m.name, m.scale]))

/**
 * Diff items of one cassette file (`<dir>/__verdicts__/<test file>.json`, format version 1): one per
 * entry, keyed `<test file> › <metric> › <first 12 hex of the entry key>` — version 1 keys entries by a
 * hash of the prompt, so a changed judged text shows as one removed and one new entry, and a
 * re-recorded verdict of the same text as a flip or score change.
 *
 * @example
 * itemsFromCassette('test/chart.test.ts', await readFile('test/__verdicts__/chart.test.ts.json', 'utf8'), 'test/__verdicts__/chart.test.ts.json')
 */
export function itemsFromCassette(testFile: string, text: string, where: string): DiffItem[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`agent-verdict report diff: cassette ${where} is not valid JSON (${(error as Error).message}); fix it or re-record it`)
  }
  const parsed = CassetteFileSchema.safeParse(json)
  if (!parsed.success) {
    const version = (json as { version?: unknown } | null)?.version
    const hint = version !== 1 ? ` (cassette format version ${String(version)}; this diff reads version 1 — upgrade agent-verdict)` : ''
    const issue = parsed.error.issues[0]
    throw new Error(`agent-verdict report diff: ${where} is not a valid verdict cassette at ${issue.path.join('.') || '(root)'}: ${issue.message}${hint}`)
  }
  return Object.entries(parsed.data.entries).map(([key, e]) => {
    const output = e.output as { score?: unknown; reasoning?: unknown } | null
    const raw = typeof output?.score === 'number' ? output.score : null
    const scale = SCALES.get(e.metric)
    const score = raw === null ? null : scale ? normalizeScore(scale, raw) : raw
    return {
      key: `${testFile} › ${e.metric} › ${key.slice(0, 12)}`,
      ...(scale === 'binary' && score !== null ? { outcome: score >= 1 ? ('pass' as const) : ('fail' as const) } : {}),
      score,
      ...(typeof output?.reasoning === 'string' ? { reason: output.reasoning } : {}),
      tokens: e.usage.inputTokens + e.usage.outputTokens,
      costUsd: e.costUsd,
    }
  })
}
