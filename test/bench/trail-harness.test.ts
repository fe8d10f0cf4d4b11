import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { findingsToPrediction, TrailPredictionSchema, type TrailPredictor } from '../../src/bench/trail-prediction'
import { TrailBenchConfigError } from '../../src/bench/predictors'
import { scoreTrailDirs } from '../../src/bench/score-dirs'
import { FAILED_PREDICTION_TEXT, TrailBenchResultSchema, runTrailBench } from '../../src/bench/trail-harness'
import { benchCommand } from '../../src/cli/bench'
import { detect } from '../../src/metrics/detectors'
import { loadTrace } from '../../src/trace/load'
import { TRAIL_DIR } from './trail-dir'

// Three of the smallest GAIA traces, so the end-to-end runs stay quick.
const IDS = ['0ebe673d64647ec44c370638b82d3c78', '1427b326e21963a1228647ad8dff2bf4', 'f39aec9b8a61fd2aaed5849cc00bc165']
const tmp = mkdtempSync(join(tmpdir(), 'trail-harness-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A stub predictor with real logic: blame every LLM span for a formatting error, score by span count. */
const everyLlmSpan: TrailPredictor = async (trace) => ({
  errors: trace.spansByKind('llm').map((s) => ({
    category: 'Formatting Errors',
    location: s.id,
    evidence: s.name,
    description: 'stub',
    impact: 'LOW' as const,
  })),
  scores: [
    {
      reliability_score: Math.min(5, trace.size / 10),
      reliability_reasoning: '',
      security_score: 5,
      security_reasoning: '',
      instruction_adherence_score: 3,
      instruction_adherence_reasoning: '',
      plan_opt_score: trace.spansByKind('tool').length % 5,
      plan_opt_reasoning: '',
      overall: 3,
    },
  ],
})

describe('runTrailBench with a stub predictor', () => {
  const outDir = join(tmp, 'stub')
  const run = runTrailBench({
    dir: TRAIL_DIR,
    split: 'gaia',
    mode: 'judge',
    predictor: everyLlmSpan,
    traces: IDS,
    outDir,
  })

  test('writes <outDir>/GAIA/<trace_id>.json in the TRAIL prediction format, one per trace', async () => {
    const r = await run
    expect(Object.keys(r.splits)).toEqual(['GAIA'])
    expect(readdirSync(join(outDir, 'GAIA')).sort()).toEqual(IDS.map((id) => `${id}.json`))
    const trace = await loadTrace(join(TRAIL_DIR, 'GAIA', `${IDS[0]}.json`))
    const written = TrailPredictionSchema.parse(
      JSON.parse(readFileSync(join(outDir, 'GAIA', `${IDS[0]}.json`), 'utf8')),
    )
    expect(written.errors.map((e) => e.location)).toEqual(trace.spansByKind('llm').map((s) => s.id))
    expect(r.splits.GAIA!.predicted).toBe(3)
    expect(r.splits.GAIA!.failures).toEqual([])
    expect(TrailBenchResultSchema.parse(r)).toEqual(r)
  })

  test('scores the folder exactly as scoring it separately does, and finds the gold LLM spans', async () => {
    const r = await run
    const scores = r.splits.GAIA!.scores
    expect(scores).toEqual(await scoreTrailDirs(join(TRAIL_DIR, 'annotations_gaia'), join(outDir, 'GAIA')))
    expect(scores.files_processed).toBe(3)
    expect(scores.location_accuracy).toBeGreaterThan(0)
    expect(scores.localization_precision).toBeLessThan(scores.localization_recall)
    expect(scores.score_correlations.overall.n).toBe(3)
  })

  test('`bench trail score` on the written folder prints the same numbers', async () => {
    const r = await run
    const json = join(tmp, 'score.json')
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      expect(await benchCommand(['trail', 'score', TRAIL_DIR, outDir, '--json', json])).toBe(0)
    } finally {
      out.mockRestore()
    }
    const s = r.splits.GAIA!.scores
    expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual({
      GAIA: {
        location_accuracy: s.location_accuracy,
        joint_accuracy: s.joint_accuracy,
        weighted_f1: s.weighted_f1,
        localization_precision: s.localization_precision,
        localization_f1: s.localization_f1,
        pair_precision: s.pair_precision,
        pair_recall: s.pair_recall,
        top1_joint_accuracy: s.top1_joint_accuracy,
        predictions_per_trace: s.predictions_per_trace,
        files_processed: 3,
      },
    })
  })
})

test('a predictor that throws or returns a malformed prediction leaves the official failure text, which is skipped', async () => {
  const outDir = join(tmp, 'failing')
  const flaky: TrailPredictor = async (_trace, ctx) => {
    if (ctx.traceId === IDS[0]) throw new Error('judge unavailable')
    if (ctx.traceId === IDS[1])
      return {
        errors: [{ category: 'x', location: 'y', evidence: '', description: '', impact: 'SEVERE' }],
        scores: [],
      } as never
    return { errors: [], scores: [] }
  }
  const r = await runTrailBench({ dir: TRAIL_DIR, split: 'gaia', mode: 'judge', predictor: flaky, traces: IDS, outDir })
  const run = r.splits.GAIA!
  expect(run.failures.map((f) => f.traceId)).toEqual([IDS[0], IDS[1]])
  expect(run.failures[0].message).toBe('judge unavailable')
  expect(readFileSync(join(outDir, 'GAIA', `${IDS[0]}.json`), 'utf8')).toBe(FAILED_PREDICTION_TEXT)
  expect(run.scores.files_processed).toBe(1)
})

test('deterministic mode writes the detector findings of each trace, without scores', async () => {
  const outDir = join(tmp, 'deterministic')
  const r = await runTrailBench({ dir: TRAIL_DIR, split: 'gaia', mode: 'deterministic', traces: IDS, outDir })
  for (const id of IDS) {
    const trace = await loadTrace(join(TRAIL_DIR, 'GAIA', `${id}.json`))
    const written = JSON.parse(readFileSync(join(outDir, 'GAIA', `${id}.json`), 'utf8'))
    expect(written).toEqual(findingsToPrediction(detect(trace)))
    expect(written.scores).toEqual([])
  }
  expect(r.splits.GAIA!.scores.files_processed).toBe(3)
  expect(r.splits.GAIA!.scores.score_correlations.reliability.n).toBe(0)
})

test('judge and monolithic modes without a predictor say a judge is needed', async () => {
  await expect(runTrailBench({ dir: TRAIL_DIR, mode: 'judge', outDir: join(tmp, 'j') })).rejects.toThrow(
    /mode judge needs a judge/,
  )
  await expect(runTrailBench({ dir: TRAIL_DIR, mode: 'monolithic', outDir: join(tmp, 'm') })).rejects.toBeInstanceOf(
    TrailBenchConfigError,
  )
})

test('a folder without the requested split is a configuration error', async () => {
  await expect(runTrailBench({ dir: tmp, split: 'swe', mode: 'deterministic' })).rejects.toThrow(
    /no SWE_Bench\/ trace folder/,
  )
})
