import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import * as z from 'zod'
import type { Judge } from '../judges/types'
import type { DetectorProfile } from '../metrics/detectors'
import { loadTrace } from '../trace/load'
import { OracleLossSchema, type OracleLoss } from './oracle-predictor'
import { CONTEXT_EXCEEDED_TEXT, ContextWindowExceededError } from './monolithic-predictor'
import { TrailBenchConfigError, TrailModeSchema, predictorFor, type TrailMode } from './predictors'
import { scoreTrailDirs } from './score-dirs'
import { TRAIL_SPLIT_DIRS, TrailSplitSchema, splitsOf, type SplitOption, type TrailSplit } from './splits'
import { TrailPredictionSchema, type TrailPredictor } from './trail-prediction'
import { TrailScoresSchema } from './trail-scorer'

/** What the official run_eval.py writes when a trace could not be processed; the scorer skips it. */
export const FAILED_PREDICTION_TEXT = 'Error processing file. No output generated.'

/** Options of {@link runTrailBench}. */
export interface RunTrailBenchOptions {
  /** A TRAIL folder: `GAIA/`, `SWE_Bench/` traces and `annotations_gaia/`, `annotations_swe_bench/` gold. */
  dir: string
  /** Default `both` (the splits whose trace folder exists). */
  split?: SplitOption
  mode: TrailMode
  /** Where `<split>/<trace_id>.json` predictions go (overwritten); default a new temp folder. */
  outDir?: string
  /** Overrides the mode's built-in predictor; `deterministic` defaults to the detectors. */
  predictor?: TrailPredictor
  /** The judge of the built-in `judge` and `monolithic` predictors. */
  judge?: Judge
  /** Monolithic: the judge's context window in estimated tokens (default 128 000). */
  contextTokens?: number
  /** Judge mode: per-call token budget (default 16 000). */
  budgetTokens?: number
  /** Deterministic mode: detector profile (`default`, or `trail-recall` for the recall-only metrics' extra guesses). */
  profile?: DetectorProfile
  /** Only these trace ids (file names without `.json`); default every trace of the split. */
  traces?: readonly string[]
  /** Traces predicted at once (default 4; judge-backed predictors have their own limiter too). */
  concurrency?: number
  signal?: AbortSignal
}

/** One split's run: where things are, how many traces were predicted, which failed, and the scores. */
export const TrailSplitRunSchema = z.object({
  split: TrailSplitSchema,
  tracesDir: z.string(),
  goldDir: z.string(),
  predictionsDir: z.string(),
  predicted: z.number().int(),
  /** Traces whose load or prediction failed; their file says so and the scorer skips it. */
  failures: z.array(z.object({ traceId: z.string(), message: z.string() })),
  /** Monolithic: traces over the context window, written as "Context window exceeded…" (and skipped by the scorer). */
  contextExceeded: z.array(z.string()).optional(),
  /** Oracle: the gold errors the judge path never put in front of the judge (or lost after it), and why. */
  oracleLosses: z.array(OracleLossSchema).optional(),
  scores: TrailScoresSchema,
})
export type TrailSplitRun = z.infer<typeof TrailSplitRunSchema>

export const TrailBenchResultSchema = z.object({
  mode: TrailModeSchema,
  outDir: z.string(),
  splits: z.partialRecord(TrailSplitSchema, TrailSplitRunSchema),
})
export type TrailBenchResult = z.infer<typeof TrailBenchResultSchema>

/**
 * Runs a predictor over every trace of the TRAIL split(s) under `dir`, writes
 * `<outDir>/<GAIA|SWE_Bench>/<trace_id>.json` (named as the official scorer reads them), and scores
 * each split against its gold folder with the port of the official scorer.
 *
 * @example
 * const run = await runTrailBench({ dir: '../shared/datasets/trail', split: 'gaia', mode: 'deterministic', outDir: 'predictions' })
 * console.log(run.splits.GAIA?.scores.localization_precision)
 */
export async function runTrailBench(options: RunTrailBenchOptions): Promise<TrailBenchResult> {
  let oracleLosses: OracleLoss[] = []
  const predictor = predictorFor(options.mode, options.predictor, {
    judge: options.judge,
    contextTokens: options.contextTokens,
    budgetTokens: options.budgetTokens,
    profile: options.profile,
    dir: options.dir,
    onLosses: (losses) => oracleLosses.push(...losses),
  })
  const splits = resolveSplits(options.dir, options.split)
  const outDir = resolve(options.outDir ?? (await mkdtemp(join(tmpdir(), 'agent-verdict-trail-'))))
  const result: TrailBenchResult = { mode: options.mode, outDir, splits: {} }
  for (const split of splits) {
    const tracesDir = join(options.dir, TRAIL_SPLIT_DIRS[split].traces)
    const goldDir = join(options.dir, TRAIL_SPLIT_DIRS[split].gold)
    if (!existsSync(goldDir))
      throw new TrailBenchConfigError(`${options.dir} has no ${TRAIL_SPLIT_DIRS[split].gold}/ gold folder for ${split}`)
    const predictionsDir = join(outDir, split)
    await mkdir(predictionsDir, { recursive: true })
    let ids = (await readdir(tracesDir))
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .map((f) => basename(f, '.json'))
      .sort()
    if (options.traces) ids = ids.filter((id) => options.traces!.includes(id))
    const failures: TrailSplitRun['failures'] = []
    oracleLosses = []
    const contextExceeded: string[] = []
    await eachLimit(ids, options.concurrency ?? 4, async (traceId) => {
      options.signal?.throwIfAborted()
      const file = join(tracesDir, `${traceId}.json`)
      let text: string
      try {
        const trace = await loadTrace(file)
        const prediction = TrailPredictionSchema.parse(
          await predictor(trace, { split, traceId, file, signal: options.signal }),
        )
        text = `${JSON.stringify(prediction, null, 2)}\n`
      } catch (err) {
        if (options.signal?.aborted) throw err
        if (err instanceof ContextWindowExceededError) {
          contextExceeded.push(traceId)
          text = CONTEXT_EXCEEDED_TEXT
        } else {
          failures.push({ traceId, message: (err as Error).message })
          text = FAILED_PREDICTION_TEXT
        }
      }
      await writeFile(join(predictionsDir, `${traceId}.json`), text)
    })
    failures.sort((a, b) => a.traceId.localeCompare(b.traceId))
    contextExceeded.sort()
    const scores = await scoreTrailDirs(goldDir, predictionsDir)
    const predicted = ids.length - failures.length - contextExceeded.length
    const losses =
      options.mode === 'oracle' && !options.predictor
        ? {
            oracleLosses: [...oracleLosses].sort(
              (a, b) =>
                a.traceId.localeCompare(b.traceId) ||
                a.spanId.localeCompare(b.spanId) ||
                a.category.localeCompare(b.category),
            ),
          }
        : {}
    result.splits[split] = {
      split,
      tracesDir,
      goldDir,
      predictionsDir,
      predicted,
      failures,
      ...(options.mode === 'monolithic' ? { contextExceeded } : {}),
      ...losses,
      scores,
    }
  }
  return result
}

/** The requested splits whose trace folder exists; an explicitly requested missing one is an error. */
function resolveSplits(dir: string, option: SplitOption | undefined): TrailSplit[] {
  if (!existsSync(dir)) throw new TrailBenchConfigError(`TRAIL folder ${dir} does not exist`)
  const wanted = splitsOf(option)
  const present = wanted.filter((s) => existsSync(join(dir, TRAIL_SPLIT_DIRS[s].traces)))
  const missing = wanted.filter((s) => !present.includes(s))
  if (present.length === 0 || (option !== undefined && option !== 'both' && missing.length > 0)) {
    throw new TrailBenchConfigError(
      `${dir} has no ${missing.map((s) => `${TRAIL_SPLIT_DIRS[s].traces}/`).join(' or ')} trace folder; pass the datasets/trail folder`,
    )
  }
  return present
}

/** Runs `fn` over `items` with at most `limit` in flight; the first rejection rejects the whole run. */
async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
}
