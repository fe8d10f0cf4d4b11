// `agent-verdict calibrate <labelled.json> --judge <spec>`: how far a judge agrees with human labels.
import { parseArgs } from 'node:util'
import { withCassette } from '../cassette/cassette-judge'
import { parseCassetteMode, type CassetteMode } from '../cassette/modes'
import { cassettePathFor } from '../cassette/store'
import { calibrate, CALIBRATION_METRICS } from '../calibration/calibrate'
import { readLabelledFile } from '../calibration/labelled'
import { renderCalibration } from '../calibration/render'
import { defineJudge, judgeFromEnv, parseJudgeSpec } from '../judges/config'
import { usageLine, usageMessage } from './args'

const USAGE = `usage: agent-verdict calibrate <labelled.json> [--judge <spec>] [--metric <name>]… [--json]
                               [--cassette <file>] [--mode auto|replay|record|live] [--concurrency 4]
  Runs each metric over the human-labelled cases and prints agreement, Cohen's κ (binary),
  quadratic-weighted κ and Spearman ρ (1–5), the confusion matrix and the disagreeing cases.
  --judge     openai:MODEL | bedrock:MODEL_ID | openai-compatible:BASE_URL#MODEL (default: AGENT_VERDICT_JUDGE)
              options after the model, e.g. ;maxOutputTokens=2048;concurrency=2 (docs/local-judges.md)
  --metric    ${CALIBRATION_METRICS.join(' | ')} (repeatable; default: every labelled one)
  --cassette  verdicts are recorded here and replayed on the next run (default: __verdicts__/<labelled file>.json beside it)
  --mode      cassette mode (default: AGENT_VERDICT_MODE, else replay under CI, else auto)
  Exit codes: 0 every case judged, 2 bad usage or input, 3 the judge gave no verdict for some case.
`

const OPTIONS = {
  judge: { type: 'string' },
  metric: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  cassette: { type: 'string' },
  mode: { type: 'string' },
  concurrency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Where the command writes; injectable so tests can capture output. */
export interface CalibrateIO {
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
  env?: Record<string, string | undefined>
}

/** The judge gave no verdict for some case: the same code as `diagnose` (docs/cli.md). */
const EXIT_UNJUDGEABLE = 3

/**
 * Runs `agent-verdict calibrate …` (`argv` = the words after `calibrate`). Exit code 0 when every case was
 * judged, 2 on bad usage or input (an unreadable labelled file, a bad judge spec), 3 when the judge gave no
 * verdict for some case (none judged included).
 *
 * @example
 * process.exitCode = await calibrateCommand(['examples/calibration/multimodal-cases.json', '--judge', 'openai:gpt-4.1', '--metric', 'correctness'])
 */
export async function calibrateCommand(argv: string[], io: CalibrateIO = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  const env = io.env ?? process.env
  let args
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: OPTIONS,
    })
  } catch (error) {
    stderr.write(usageLine('calibrate', usageMessage(error, OPTIONS)))
    return 2
  }
  if (args.values.help) {
    stdout.write(USAGE)
    return 0
  }
  const bad = (problem: string) => {
    stderr.write(usageLine('calibrate', problem))
    return 2
  }
  if (args.positionals.length !== 1) return bad('pass exactly one labelled file')
  const concurrency = args.values.concurrency === undefined ? 4 : Number(args.values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1)
    return bad(`--concurrency needs a positive integer, got "${args.values.concurrency}"`)
  let mode: CassetteMode | undefined
  try {
    mode = args.values.mode === undefined ? undefined : parseCassetteMode(args.values.mode, '--mode')
    const judge = args.values.judge !== undefined ? defineJudge(parseJudgeSpec(args.values.judge)) : judgeFromEnv(env)
    if (!judge) return bad('no judge: pass --judge <spec> or set AGENT_VERDICT_JUDGE')
    const file = args.positionals[0]
    const labelled = await readLabelledFile(file)
    const cassette = withCassette(judge, {
      file: args.values.cassette ?? cassettePathFor(file),
      ...(mode ? { mode } : {}),
      env,
    })
    const results = await calibrate(labelled, { judge: cassette, metrics: args.values.metric, concurrency })
    await cassette.flush()
    stdout.write(
      args.values.json
        ? JSON.stringify({ file, judge: judge.id, cassette: cassette.file, metrics: results }, null, 2) + '\n'
        : renderCalibration(results),
    )
    // Agreement over the cases the judge answered is not the agreement over the file: say so, and exit 3 (the
    // judge gave no verdict) so a script never reads a calibration with holes, or none, as a pass.
    const holes = results.filter((r) => r.unjudgeable.length > 0)
    for (const r of holes)
      stderr.write(
        r.n === 0
          ? `agent-verdict calibrate: ${r.metric}: no case was judged (${r.unjudgeable.length} unjudgeable): there is no agreement to measure; the reasons are listed above — fix the judge, then run again\n`
          : `agent-verdict calibrate: ${r.metric}: ${r.unjudgeable.length} of ${r.n + r.unjudgeable.length} cases unjudgeable; the figures cover the ${r.n} judged ones only\n`,
      )
    return holes.length > 0 ? EXIT_UNJUDGEABLE : 0
  } catch (error) {
    stderr.write(`agent-verdict calibrate: ${(error as Error).message.replace(/^agent-verdict calibrate: /, '')}\n`)
    // A labelled file that cannot be read or a judge that cannot be configured is bad input.
    return 2
  }
}
