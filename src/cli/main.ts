// `agent-verdict` command line entry: a small dispatcher; each command lives in its own file and is loaded lazily.
import { version } from '../../package.json'
import { closestName } from '../config/suggest'
import { scrubbedStream } from './scrubbed-output'

/** A subcommand: `argv` is everything after the command name; resolves to the process exit code. */
type Command = (argv: string[], io?: { stdout: Output; stderr: Output }) => Promise<number>
type Output = { write(text: string): unknown; isTTY?: boolean; columns?: number }

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  diagnose: {
    summary: 'diagnose agent traces with the deterministic detectors (span tree + findings)',
    load: async () => (await import('./diagnose')).diagnoseCommand,
  },
  bench: {
    summary: 'run or score the TRAIL benchmark',
    load: async () => (await import('./bench')).benchCommand,
  },
  report: {
    summary:
      'merge CI shards\u2019 report artifacts, render one as HTML or JUnit XML, check suite gates, diff two runs',
    load: async () => (await import('./report')).reportCommand,
  },
  calibrate: {
    summary: 'measure how far a judge agrees with human labels (κ, weighted κ, Spearman, disagreements)',
    load: async () => (await import('./calibrate')).calibrateCommand,
  },
  receive: {
    summary: 'receive OTLP/HTTP traces from an agent in another process and write each trace to a file',
    load: async () => (await import('./receive')).receiveCommand,
  },
  batch: {
    summary: 'submit the judge requests a collecting run queued as one provider batch, and wait for it',
    load: async () => (await import('./batch')).batchCommand,
  },
  record: {
    summary:
      'record --batch -- <test command>: record the suite\u2019s verdicts through a batch API (about half price)',
    load: async () => (await import('./batch')).recordCommand,
  },
  'fake-judge': {
    summary: 'run a local OpenAI-compatible fake judge server (for tests and benches)',
    load: async () => (await import('./fake-judge')).fakeJudgeCommand,
  },
}

const USAGE = `Usage: agent-verdict <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(12)}${c.summary}`)
  .join('\n')}

Options:
  -h, --help     show this help (or \`agent-verdict <command> --help\`)
  -v, --version  print the version
`

/**
 * Runs the CLI in-process and resolves to the exit code: 0 success, 1 findings or a failed gate, 2 a usage or
 * input error, 3 the judge gave no verdict (the one table is in docs/cli.md).
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2))
 */
export async function main(
  argv: string[],
  io: { stdout: Output; stderr: Output } = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    // With no command at all it is a usage error: the help goes where errors go.
    ;(first === undefined ? io.stderr : io.stdout).write(USAGE)
    return first === undefined ? 2 : 0
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${version}\n`)
    return 0
  }
  const command = COMMANDS[first]
  if (!command) {
    const what = first.startsWith('-') ? 'option' : 'command'
    const match = first.startsWith('-') ? undefined : closestName(first, Object.keys(COMMANDS))
    io.stderr.write(
      match
        ? `agent-verdict: unknown command '${first}' (did you mean '${match}'?). Run \`agent-verdict ${match} --help\` for its options.\n`
        : `agent-verdict: unknown ${what} '${first}'. Run \`agent-verdict --help\` for the list of commands.\n`,
    )
    return 2
  }
  // Every command's output is scrubbed of secrets: traces, reports and judge replies can carry keys.
  return (await command.load())(rest, {
    stdout: scrubbedStream(io.stdout),
    stderr: scrubbedStream(io.stderr),
  })
}
