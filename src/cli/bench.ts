// `agent-verdict bench …`: the TRAIL benchmark (run a predictor over the traces, or score predictions).
import { existsSync, statSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { formatTrailScores, summarizeTrail } from '../bench/format'
import { scoreTrailDirs } from '../bench/score-dirs'
import { SplitOptionSchema, TRAIL_SPLIT_DIRS, splitFromName, splitsOf, type TrailSplit } from '../bench/splits'
import { TrailBenchConfigError, TrailModeSchema } from '../bench/predictors'
import type { OracleLoss } from '../bench/oracle-predictor'
import { runTrailBench, type TrailSplitRun } from '../bench/trail-harness'
import type { TrailScores } from '../bench/trail-scorer'
import { DEFAULT_CONTEXT_TOKENS } from '../bench/monolithic-predictor'
import { defineJudge, judgeFromEnv, parseJudgeSpec } from '../judges/config'
import { JudgeConfigError, JudgeError } from '../judges/errors'
import { UsageError, usageLine, usageMessage } from './args'
import type { Judge } from '../judges/types'
import { DetectorProfileSchema } from '../metrics/detectors'

export const BENCH_USAGE = `Usage:
  agent-verdict bench trail <trail-dir> [--split gaia|swe|both] [--mode deterministic|judge|monolithic|oracle]
                            [--out predictions/] [--json out.json] [--judge <spec>] [--context 128000]
                            [--profile default|trail-recall]
      Predict errors for every trace of the split(s) under <trail-dir> (GAIA/, SWE_Bench/), write
      <out>/<GAIA|SWE_Bench>/<trace_id>.json, and score them against annotations_gaia/ and
      annotations_swe_bench/ with the TypeScript port of the official TRAIL scorer.
      --mode judge: the span-level diagnosis (one judge call per LLM/TOOL span + detectors).
      --mode monolithic: the whole trace file in one judge prompt (the papers' baseline); traces whose
      prompt exceeds --context tokens (estimated, default 128000) are written as "Context window
      exceeded. No output generated." and skipped by the scorer, as in the official pipeline.
      --mode oracle: the judge path (same selection, prompts, budget) with a scripted judge that answers
      each span from that span's gold errors — the ceiling of judge mode; prints each gold error the
      pipeline never put in front of the judge, with the reason (also under "oracle_losses" in --json).
      No judge needed.
      --profile trail-recall (deterministic mode): also name the second categories that rest on the
      same evidence as the first, which the recall-only official metrics reward; off by default,
      because they are guesses, not findings.
      Judge and monolithic need --judge openai:MODEL | bedrock:MODEL_ID | openai-compatible:URL#MODEL (or AGENT_VERDICT_JUDGE).
  agent-verdict bench trail score <gold-dir> <predictions-dir> [--split gaia|swe] [--json out.json]
      Score existing predictions. <gold-dir> is a TRAIL folder (with annotations_gaia/ …) or one gold
      folder; <predictions-dir> holds GAIA/ and/or SWE_Bench/, or is itself one split's folder.

Prints location accuracy, joint accuracy and weighted F1 (the official, recall-only metrics) beside
their companions: localization precision / recall / F1 over spans, pair precision / recall over
(span, category) pairs, top-1 joint accuracy (one category per span) and predictions per trace; and
score correlations. --json writes { "GAIA": { location_accuracy, joint_accuracy, weighted_f1,
localization_precision, localization_f1, pair_precision, pair_recall, top1_joint_accuracy,
predictions_per_trace, files_processed }, "SWE_Bench": { … } } for the splits that ran.
`

/**
 * Entry of `agent-verdict bench`; returns the exit code (0 ok, 1 failure, 2 bad usage or missing folders).
 *
 * @example
 * process.exitCode = await benchCommand(['trail', 'score', '../shared/datasets/trail', 'predictions/'])
 */
export async function benchCommand(
  argv: string[],
  io: { stdout?: { write(text: string): unknown }; stderr?: { write(text: string): unknown } } = {},
): Promise<number> {
  // Usage and errors go to `io` (main's scrubbed streams); scores and progress are written by the runs below.
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
      // With nothing to run it is a usage error: the usage goes where errors go.
      ;(argv.length === 0 ? stderr : stdout).write(BENCH_USAGE)
      return argv.length === 0 ? 2 : 0
    }
    if (argv[0] !== 'trail') throw new UsageError(`unknown benchmark "${argv[0]}"; the one available is "trail"`)
    if (argv[1] === 'score') return await scoreCommand(argv.slice(2))
    return await runCommand(argv.slice(1))
  } catch (err) {
    if (err instanceof UsageError) {
      stderr.write(usageLine('bench', err.message))
      return 2
    }
    stderr.write(`agent-verdict bench: ${(err as Error).message}\n`)
    // A judge that gave no verdicts is 3, as in diagnose; anything else (an unreadable dataset) is bad input.
    return err instanceof JudgeError && !(err instanceof JudgeConfigError) ? 3 : 2
  }
}

const OPTIONS = {
  split: { type: 'string' },
  mode: { type: 'string' },
  profile: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'string' },
  judge: { type: 'string' },
  context: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function parse(argv: string[], allowed: Array<keyof typeof OPTIONS>) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true })
  } catch (err) {
    throw new UsageError(usageMessage(err, OPTIONS))
  }
  for (const key of Object.keys(parsed.values) as Array<keyof typeof OPTIONS>) {
    if (key !== 'help' && !allowed.includes(key)) throw new UsageError(`--${key} does not apply here`)
  }
  return parsed
}

function requireDir(path: string | undefined, what: string): string {
  if (!path) throw new UsageError(`missing ${what}`)
  if (!existsSync(path) || !statSync(path).isDirectory()) throw new UsageError(`${what} ${path} is not a folder`)
  return path
}

async function scoreCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, ['split', 'json'])
  if (values.help) return help()
  if (positionals.length > 2) throw new UsageError(`unexpected argument "${positionals[2]}"`)
  const goldDir = requireDir(positionals[0], 'gold folder')
  const predictionsDir = requireDir(positionals[1], 'predictions folder')
  const wanted = values.split === undefined ? undefined : splitsOf(parseSplit(values.split))
  const results: Partial<Record<TrailSplit, TrailScores>> = {}
  for (const { split, gold, predictions } of resolveScoreDirs(goldDir, predictionsDir, wanted)) {
    const scores = (results[split] = await scoreTrailDirs(gold, predictions))
    if (scores.files_processed === 0) warnNothingScored(split, gold, predictions, scores)
    process.stdout.write(formatTrailScores(split, scores))
  }
  await writeJson(values.json, results)
  return 0
}

async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, ['split', 'mode', 'out', 'json', 'judge', 'context', 'profile'])
  if (values.help) return help()
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`)
  const dir = requireDir(positionals[0], 'TRAIL folder')
  const mode = TrailModeSchema.safeParse(values.mode ?? 'deterministic')
  if (!mode.success)
    throw new UsageError(`--mode must be deterministic, judge, monolithic or oracle, not "${values.mode}"`)
  const contextTokens = values.context === undefined ? DEFAULT_CONTEXT_TOKENS : Number(values.context)
  if (!Number.isInteger(contextTokens) || contextTokens <= 0)
    throw new UsageError(`--context must be a positive whole number of tokens, not "${values.context}"`)
  if (values.context !== undefined && mode.data !== 'monolithic')
    throw new UsageError('--context applies to --mode monolithic only')
  const profile = DetectorProfileSchema.safeParse(values.profile ?? 'default')
  if (!profile.success) throw new UsageError(`--profile must be default or trail-recall, not "${values.profile}"`)
  if (values.profile !== undefined && mode.data !== 'deterministic')
    throw new UsageError('--profile applies to --mode deterministic only')
  let judge: Judge | undefined
  try {
    if (values.judge !== undefined && mode.data === 'oracle')
      throw new UsageError('--judge does not apply to --mode oracle (its judge answers from the gold)')
    judge =
      mode.data === 'deterministic' || mode.data === 'oracle'
        ? undefined
        : values.judge !== undefined
          ? defineJudge(parseJudgeSpec(values.judge))
          : judgeFromEnv()
  } catch (err) {
    if (err instanceof JudgeConfigError) throw new UsageError(err.message)
    throw err
  }
  let run
  try {
    run = await runTrailBench({
      dir,
      split: values.split === undefined ? undefined : parseSplit(values.split),
      mode: mode.data,
      outDir: values.out ?? 'predictions',
      judge,
      contextTokens,
      profile: profile.data,
    })
  } catch (err) {
    if (err instanceof TrailBenchConfigError) throw new UsageError(err.message)
    throw err
  }
  const results: Partial<Record<TrailSplit, TrailScores>> = {}
  const losses: Partial<Record<TrailSplit, OracleLoss[]>> = {}
  for (const [split, r] of Object.entries(run.splits) as Array<[TrailSplit, TrailSplitRun]>) {
    results[split] = r.scores
    if (r.oracleLosses) losses[split] = r.oracleLosses
    process.stdout.write(
      `${formatTrailScores(split, r.scores)}  predictions              ${r.predicted} written to ${r.predictionsDir}\n`,
    )
    if (r.contextExceeded) {
      process.stdout.write(
        `  context window exceeded  ${r.contextExceeded.length} of ${r.predicted + r.failures.length + r.contextExceeded.length} traces over ${contextTokens.toLocaleString('en-US')} tokens (written as "Context window exceeded…", skipped by the scorer)\n`,
      )
    }
    if (r.oracleLosses) process.stdout.write(formatOracleLosses(r.oracleLosses))
    for (const f of r.failures) process.stderr.write(`agent-verdict bench: ${split} ${f.traceId}: ${f.message}\n`)
  }
  await writeJson(values.json, results, mode.data === 'oracle' ? losses : undefined)
  return 0
}

function warnNothingScored(split: TrailSplit, gold: string, predictions: string, scores: TrailScores): void {
  const missing = scores.skipped.filter((s) => s.reason === 'no prediction file').length
  const why =
    missing === scores.skipped.length
      ? `no file in ${predictions} has the name of a gold file in ${gold}`
      : `every prediction was skipped (first: ${scores.skipped[0]?.file}: ${scores.skipped[0]?.reason})`
  process.stderr.write(`agent-verdict bench: ${split}: nothing scored — ${why}\n`)
}

function help(): number {
  process.stdout.write(BENCH_USAGE)
  return 0
}

function parseSplit(value: unknown) {
  const parsed = SplitOptionSchema.safeParse(value)
  if (!parsed.success) throw new UsageError(`--split must be gaia, swe or both, not "${String(value)}"`)
  return parsed.data
}

/** Pair gold and prediction folders per split, from a TRAIL folder or single-split folders. */
function resolveScoreDirs(goldDir: string, predictionsDir: string, wanted: TrailSplit[] | undefined) {
  const isTrailRoot = Object.values(TRAIL_SPLIT_DIRS).some((d) => existsSync(join(goldDir, d.gold)))
  const goldFor = (split: TrailSplit) => {
    const nested = join(goldDir, TRAIL_SPLIT_DIRS[split].gold)
    if (existsSync(nested)) return nested
    if (isTrailRoot)
      throw new UsageError(`${goldDir} has no ${TRAIL_SPLIT_DIRS[split].gold}/ folder for the ${split} predictions`)
    return goldDir
  }
  const nested = (['GAIA', 'SWE_Bench'] as const).filter(
    (s) => existsSync(join(predictionsDir, s)) && (!wanted || wanted.includes(s)),
  )
  if (nested.length > 0)
    return nested.map((split) => ({ split, gold: goldFor(split), predictions: join(predictionsDir, split) }))
  const split =
    (wanted?.length === 1 ? wanted[0] : undefined) ??
    splitFromName(basename(resolve(predictionsDir))) ??
    splitFromName(basename(resolve(goldDir)))
  if (!split) throw new UsageError(`cannot tell which split ${predictionsDir} holds; pass --split gaia or --split swe`)
  return [{ split, gold: goldFor(split), predictions: predictionsDir }]
}

/** Oracle mode: the lost gold errors, counted by reason, then one line each. */
function formatOracleLosses(losses: readonly OracleLoss[]): string {
  const counts = new Map<string, number>()
  for (const l of losses) counts.set(l.reason, (counts.get(l.reason) ?? 0) + 1)
  const summary = [...counts].map(([reason, n]) => `${n} ${reason}`).join(' · ')
  const lines = losses.map((l) => `    ${l.traceId} ${l.spanId} ${l.category}: ${l.reason} — ${l.detail}\n`)
  return `  gold errors lost          ${losses.length}${losses.length > 0 ? ` (${summary})` : ''}\n${lines.join('')}`
}

async function writeJson(
  path: string | undefined,
  results: Partial<Record<TrailSplit, TrailScores>>,
  losses?: Partial<Record<TrailSplit, OracleLoss[]>>,
): Promise<void> {
  if (!path) return
  await mkdir(dirname(resolve(path)), { recursive: true })
  const summary: Record<string, unknown> = summarizeTrail(results)
  if (losses)
    for (const [split, list] of Object.entries(losses))
      summary[split] = { ...(summary[split] as object), oracle_losses: list }
  await writeFile(path, `${JSON.stringify(summary, null, 2)}\n`)
  process.stdout.write(`wrote ${path}\n`)
}
