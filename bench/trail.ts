// TRAIL: official metrics (TS port of the scorer) plus localization precision, for the deterministic
// detectors and for the "blame every span with every category" baseline that recall-only metrics reward.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { JUDGE_CATEGORIES } from '../src/taxonomy'
import type { TrailPredictor } from '../src/bench/trail-prediction'
import { runTrailBench } from '../src/bench/trail-harness'
import type { TrailMode } from '../src/bench/predictors'
import type { Emit } from './emit'

const TRAIL_DIR =
  process.env.TRAIL_DIR ?? resolve(fileURLToPath(new URL('..', import.meta.url)), '../shared/datasets/trail')

/** Every LLM and TOOL span × every category a judge may name: the over-prediction the official metrics do not punish. */
const everySpanEveryCategory: TrailPredictor = async (trace) => ({
  errors: trace.spans
    .filter((s) => s.kind === 'llm' || s.kind === 'tool')
    .flatMap((s) =>
      JUDGE_CATEGORIES.map((category) => ({
        category,
        location: s.id,
        evidence: '',
        description: 'baseline',
        impact: 'LOW' as const,
      })),
    ),
  scores: [],
})

const RUNS: Array<{ name: string; mode: TrailMode; predictor?: TrailPredictor }> = [
  { name: 'deterministic', mode: 'deterministic' },
  { name: 'every_span', mode: 'judge', predictor: everySpanEveryCategory },
]

export async function run(emit: Emit): Promise<void> {
  for (const { name, mode, predictor } of RUNS) {
    const outDir = await mkdtemp(join(tmpdir(), `bench-trail-${name}-`))
    try {
      const result = await runTrailBench({ dir: TRAIL_DIR, mode, predictor, outDir })
      for (const [split, r] of Object.entries(result.splits)) {
        const s = r.scores
        const key = `trail.${name}.${split.toLowerCase()}`
        const files = `files=${s.files_processed}`
        emit(`${key}.location_accuracy`, s.location_accuracy, files)
        emit(`${key}.joint_accuracy`, s.joint_accuracy, files)
        emit(`${key}.weighted_f1`, s.weighted_f1, files)
        emit(
          `${key}.localization_precision`,
          s.localization_precision,
          `recall=${s.localization_recall.toFixed(3)} f1=${s.localization_f1.toFixed(3)}`,
        )
        emit(`${key}.pair_precision`, s.pair_precision, `pair_recall=${s.pair_recall.toFixed(3)}`)
        emit(`${key}.top1_joint_accuracy`, s.top1_joint_accuracy, `official joint ${s.joint_accuracy.toFixed(3)}`)
        emit(`${key}.predictions_per_trace`, s.predictions_per_trace, `max ${s.predictions_max}`)
        if (r.failures.length > 0) emit(`${key}.failed_traces`, r.failures.length, r.failures[0].message)
      }
    } finally {
      await rm(outDir, { recursive: true, force: true })
    }
  }
}
