// TRAIL, deterministic detectors only: the official metrics and localization precision per split, on two
// halves of each split (by a hash of the trace id, so rules tuned on one half can be checked on the other),
// and what each detector adds (the drop when it is left out). Run: `npm run bench -- trail-detectors`.
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readPythonText } from '../src/bench/score-dirs'
import { TRAIL_SPLIT_DIRS, type TrailSplit } from '../src/bench/splits'
import { findingsToPrediction } from '../src/bench/trail-prediction'
import { scoreTrailInputs, type TrailScores } from '../src/bench/trail-scorer'
import { detect, type Finding } from '../src/metrics/detectors'
import { parseTrace } from '../src/trace/parse'
import type { Emit } from './emit'

const TRAIL_DIR =
  process.env.TRAIL_DIR ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared/datasets/trail')

interface Row {
  id: string
  gold: string | Error
  findings: Finding[]
  /** The same under the `trail-recall` profile (second guesses on the same evidence included). */
  recallFindings: Finding[]
}

/** Half A or B of a split: parity of the first byte of sha256(trace id). Stable, and independent of file order. */
export function traceHalf(traceId: string): 'A' | 'B' {
  return createHash('sha256').update(traceId).digest()[0] % 2 === 0 ? 'A' : 'B'
}

async function rowsOf(split: TrailSplit): Promise<Row[]> {
  const dirs = TRAIL_SPLIT_DIRS[split]
  const files = (await readdir(join(TRAIL_DIR, dirs.traces))).filter((f) => f.endsWith('.json')).sort()
  const rows: Row[] = []
  for (const file of files) {
    const path = join(TRAIL_DIR, dirs.traces, file)
    const trace = parseTrace(await readFile(path, 'utf8'), path)
    rows.push({
      id: file.slice(0, -'.json'.length),
      gold: await readPythonText(join(TRAIL_DIR, dirs.gold, file)),
      findings: detect(trace),
      recallFindings: detect(trace, { profile: 'trail-recall' }),
    })
  }
  return rows
}

function score(
  rows: Row[],
  keep: (f: Finding) => boolean = () => true,
  profile: 'default' | 'trail-recall' = 'default',
): TrailScores {
  return scoreTrailInputs(
    rows.map((r) => ({
      file: `${r.id}.json`,
      gold: r.gold,
      prediction: JSON.stringify(
        findingsToPrediction((profile === 'default' ? r.findings : r.recallFindings).filter(keep)),
      ),
    })),
  )
}

const line = (s: TrailScores) =>
  `loc=${s.location_accuracy.toFixed(3)} joint=${s.joint_accuracy.toFixed(3)} wf1=${s.weighted_f1.toFixed(3)} P=${s.localization_precision.toFixed(3)} R=${s.localization_recall.toFixed(3)} F1=${s.localization_f1.toFixed(3)} pairP=${s.pair_precision.toFixed(3)} pairR=${s.pair_recall.toFixed(3)} top1joint=${s.top1_joint_accuracy.toFixed(3)} preds/trace=${s.predictions_per_trace.toFixed(2)} files=${s.files_processed}`

export async function run(emit: Emit): Promise<void> {
  for (const split of ['GAIA', 'SWE_Bench'] as const) {
    const rows = await rowsOf(split)
    const key = `trail_detectors.${split.toLowerCase()}`
    const all = score(rows)
    emit(`${key}.all.joint_accuracy`, all.joint_accuracy, line(all))
    const recall = score(rows, undefined, 'trail-recall')
    emit(`${key}.profile_trail_recall.joint_accuracy`, recall.joint_accuracy, line(recall))
    for (const half of ['A', 'B'] as const) {
      const s = score(rows.filter((r) => traceHalf(r.id) === half))
      emit(`${key}.half_${half}.joint_accuracy`, s.joint_accuracy, line(s))
    }
    // Contribution of each detector: what the scores lose without its findings.
    const detectors = [...new Set(rows.flatMap((r) => r.findings.map((f) => f.detector)))].sort()
    for (const detector of detectors) {
      const without = score(rows, (f) => f.detector !== detector)
      const alone = score(rows, (f) => f.detector === detector)
      const n = rows.reduce((sum, r) => sum + r.findings.filter((f) => f.detector === detector).length, 0)
      const delta = (a: number, b: number) => (a - b).toFixed(3)
      emit(
        `${key}.without.${detector}.joint_drop`,
        all.joint_accuracy - without.joint_accuracy,
        `findings=${n} loc_drop=${delta(all.location_accuracy, without.location_accuracy)} precision_alone=${alone.localization_precision.toFixed(3)} precision_without=${without.localization_precision.toFixed(3)}`,
      )
    }
  }
}
