// `agent-verdict fake-judge`: runs the local OpenAI-compatible fake judge until SIGINT/SIGTERM.
import { parseArgs } from 'node:util'
import { UsageError, usageLine, usageMessage } from './args'
import { FakeJudgeConfigError, loadFakeJudgeRules } from '../testing/config'
import { startFakeJudge } from '../testing/fake-judge'
import type { FakeJudgeLatency, FakeJudgeOptions } from '../testing/schemas'
import { untilStopped } from './until-stopped'

/** Where the command writes; `signal` stops it in-process (tests, embedding) like SIGTERM would. */
export interface FakeJudgeCommandOptions {
  signal?: AbortSignal
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
}

const USAGE = `usage: agent-verdict fake-judge [--port N] [--rules rules.json] [--latency MS | MIN-MAX] [--host 127.0.0.1] [--model NAME]

Starts an OpenAI-compatible fake judge, prints its base URL on stdout and runs until Ctrl-C.
  --port      port to listen on (default 0: a free one)
  --rules     JSON rules file: an array of rules or { rules, defaultVerdict, latencyMs, faults, model }
  --latency   delay per request in ms, fixed (100) or uniform (50-150); overrides the rules file
  --host      address to bind (default 127.0.0.1)
  --model     model id to report (default fake-judge)
`

const OPTIONS = {
  port: { type: 'string' },
  rules: { type: 'string' },
  latency: { type: 'string' },
  host: { type: 'string' },
  model: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function parseLatency(text: string): FakeJudgeLatency {
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text)
  if (range) return { min: Number(range[1]), max: Number(range[2]) }
  const ms = Number(text)
  if (text.trim() === '' || !Number.isFinite(ms) || ms < 0)
    throw new UsageError(`--latency must be milliseconds (100) or a range (50-150), got '${text}'`)
  return ms
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer 0-65535, got '${text}'`)
  return port
}

async function optionsFrom(argv: string[]): Promise<FakeJudgeOptions | 'help'> {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    throw new UsageError(usageMessage(error, OPTIONS))
  }
  if (values.help) return 'help'
  const options: FakeJudgeOptions = values.rules ? await loadFakeJudgeRules(values.rules) : {}
  if (values.port !== undefined) options.port = parsePort(values.port)
  if (values.latency !== undefined) options.latencyMs = parseLatency(values.latency)
  if (values.host !== undefined) options.host = values.host
  if (values.model !== undefined) options.model = values.model
  return options
}

/**
 * `agent-verdict fake-judge [--port N] [--rules rules.json] [--latency ms] [--host 127.0.0.1]`: prints the
 * base URL (one stdout line) and a hint on stderr, serves until SIGINT/SIGTERM (or `signal`), returns 0.
 * Returns 2 for bad arguments or a bad rules file (the message names the JSON path), 1 when it cannot listen.
 * @example
 * process.exitCode = await fakeJudgeCommand(['--port', '4010', '--rules', 'examples/fake-judge-rules.json'])
 */
export async function fakeJudgeCommand(argv: string[], io: FakeJudgeCommandOptions = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  let options: FakeJudgeOptions | 'help'
  try {
    options = await optionsFrom(argv)
  } catch (error) {
    if (error instanceof UsageError) stderr.write(usageLine('fake-judge', error.message))
    else if (error instanceof FakeJudgeConfigError) stderr.write(`agent-verdict fake-judge: ${error.message}\n`)
    else throw error
    return 2
  }
  if (options === 'help') {
    stdout.write(USAGE)
    return 0
  }

  let judge
  try {
    judge = await startFakeJudge(options)
  } catch (error) {
    if (error instanceof FakeJudgeConfigError) {
      stderr.write(`agent-verdict fake-judge: ${error.message}\n`)
      return 2
    }
    const code = (error as NodeJS.ErrnoException).code
    const hint = code === 'EADDRINUSE' ? ' — the port is taken; pick another with --port or use --port 0' : ''
    stderr.write(
      `agent-verdict fake-judge: cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${(error as Error).message}${hint}\n`,
    )
    // The port or host given cannot be used: an input error, not a finding.
    return 2
  }
  const done = untilStopped(io.signal)
  stdout.write(`${judge.baseURL}\n`)
  stderr.write(
    `fake judge listening; point agent-verdict at it with:\n  AGENT_VERDICT_JUDGE=openai-compatible:${judge.baseURL}#${options.model ?? 'fake-judge'}\nCtrl-C stops it.\n`,
  )
  const why = await done
  await judge.close()
  stderr.write(`fake judge stopped (${why}) after ${judge.stats.requests} requests\n`)
  return 0
}
