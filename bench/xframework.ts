// The cross-framework failure set (test/fixtures/xframework, made by real SDKs: bench/xframework/generate.ts),
// deterministic detectors only: pair precision and recall of the planted (span, category) pairs, location recall,
// and the share of clean runs with any finding — per half (by a hash of the scenario, so both SDKs' runs of one
// scenario fall in the same half), per SDK, per failure and per detector. Run: `npm run bench -- xframework`.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { detect, type Finding } from '../src/metrics/detectors'
import { parseTrace } from '../src/trace/parse'
import type { Emit } from './emit'
import { traceHalf } from './trail-detectors'
import { FIXTURE_DIR } from './xframework/fixtures'
import { GoldFileSchema, type GoldTrace } from './xframework/gold'

interface Row {
  gold: GoldTrace
  half: 'A' | 'B'
  findings: Finding[]
}

/** Figures over a set of rows. */
export interface XframeworkScores {
  traces: number
  goldPairs: number
  foundPairs: number
  predictedPairs: number
  correctPairs: number
  goldSpans: number
  foundSpans: number
  cleanRuns: number
  cleanRunsWithFindings: number
}

const pair = (spanId: string, category: string) => `${spanId}\u0000${category}`

export function scoreRows(rows: readonly Row[]): XframeworkScores {
  const s: XframeworkScores = {
    traces: rows.length,
    goldPairs: 0,
    foundPairs: 0,
    predictedPairs: 0,
    correctPairs: 0,
    goldSpans: 0,
    foundSpans: 0,
    cleanRuns: 0,
    cleanRunsWithFindings: 0,
  }
  for (const { gold, findings } of rows) {
    const goldPairs = new Set(gold.gold.map((g) => pair(g.spanId, g.category)))
    const predicted = new Set(findings.map((f) => pair(f.spanId, f.category)))
    const named = new Set(findings.map((f) => f.spanId))
    s.goldPairs += goldPairs.size
    s.predictedPairs += predicted.size
    for (const p of predicted) if (goldPairs.has(p)) s.correctPairs++
    for (const p of goldPairs) if (predicted.has(p)) s.foundPairs++
    const goldSpans = new Set(gold.gold.map((g) => g.spanId))
    s.goldSpans += goldSpans.size
    for (const id of goldSpans) if (named.has(id)) s.foundSpans++
    if (gold.failure === 'clean') {
      s.cleanRuns++
      if (findings.length > 0) s.cleanRunsWithFindings++
    }
  }
  return s
}

const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(3))

export function line(s: XframeworkScores): string {
  return `pairR=${ratio(s.foundPairs, s.goldPairs)} (${s.foundPairs}/${s.goldPairs}) pairP=${ratio(s.correctPairs, s.predictedPairs)} (${s.correctPairs}/${s.predictedPairs}) locR=${ratio(s.foundSpans, s.goldSpans)} clean_with_findings=${ratio(s.cleanRunsWithFindings, s.cleanRuns)} (${s.cleanRunsWithFindings}/${s.cleanRuns}) traces=${s.traces}`
}

export async function loadRows(): Promise<Row[]> {
  const goldFile = GoldFileSchema.parse(JSON.parse(await readFile(join(FIXTURE_DIR, 'gold.json'), 'utf8')))
  const rows: Row[] = []
  for (const gold of goldFile.traces) {
    const path = join(FIXTURE_DIR, gold.file)
    const trace = parseTrace(await readFile(path, 'utf8'), path)
    rows.push({ gold, half: traceHalf(gold.scenario), findings: detect(trace, { budget: gold.budget }) })
  }
  return rows
}

export async function run(emit: Emit): Promise<void> {
  const rows = await loadRows()
  const emitScores = (key: string, subset: Row[]) => {
    const s = scoreRows(subset)
    emit(`xframework.${key}.pair_recall`, s.goldPairs === 0 ? 0 : s.foundPairs / s.goldPairs, line(s))
  }
  emitScores('all', rows)
  for (const half of ['A', 'B'] as const)
    emitScores(
      `half_${half}`,
      rows.filter((r) => r.half === half),
    )
  for (const sdk of [...new Set(rows.map((r) => r.gold.sdk))].sort()) {
    emitScores(
      `sdk.${sdk}`,
      rows.filter((r) => r.gold.sdk === sdk),
    )
    emitScores(
      `sdk.${sdk}.half_B`,
      rows.filter((r) => r.gold.sdk === sdk && r.half === 'B'),
    )
  }
  for (const failure of [...new Set(rows.map((r) => r.gold.failure))].sort())
    emitScores(
      `failure.${failure}`,
      rows.filter((r) => r.gold.failure === failure),
    )
  // Per detector: its findings, how many are gold pairs, and on how many clean runs it fired.
  for (const detector of [...new Set(rows.flatMap((r) => r.findings.map((f) => f.detector)))].sort()) {
    const own = rows.map((r) => ({ ...r, findings: r.findings.filter((f) => f.detector === detector) }))
    const s = scoreRows(own)
    emit(
      `xframework.detector.${detector}.pair_precision`,
      s.predictedPairs === 0 ? 0 : s.correctPairs / s.predictedPairs,
      line(s),
    )
  }
}
