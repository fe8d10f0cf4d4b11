// `agent-verdict receive`: an OTLP/HTTP trace endpoint on loopback that writes each received trace to a file.
import { parseArgs } from 'node:util'
import { UsageError, usageLine, usageMessage } from './args'
import { DEFAULT_LIMITS, type TraceReceiverLimits } from '../trace/receiver/limits'
import { startTraceReceiver, type TraceReceiver, type TraceReceiverOptions } from '../trace/receiver/receiver'
import { untilStopped } from './until-stopped'

/** Where the command writes; `signal` stops it in-process (tests, embedding) like SIGTERM would. */
export interface ReceiveCommandOptions {
  signal?: AbortSignal
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
}

const USAGE = `usage: agent-verdict receive [--port 4318] [--out dir] [--quiet-ms 200] [--max-body-bytes N] [--max-run-traces N] …

Receives OTLP/HTTP traces on 127.0.0.1 (POST /v1/traces, protobuf or JSON, gzip or not), prints its URL,
then one line per trace once it goes quiet, until Ctrl-C. Point the agent at it with
OTEL_EXPORTER_OTLP_ENDPOINT=<url> (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf).
  --port            port to listen on (default 4318, the OTLP/HTTP port; 0 picks a free one)
  --out             directory to write each trace to, as OTLP JSON <traceId>.json (rewritten
                    if more of its spans arrive)
                    (read it with \`agent-verdict diagnose <dir>\` or loadTrace())
  --quiet-ms        how long a trace must get no new span before it is written (default 200)
  --max-body-bytes  largest request accepted, before and after gunzip (default 16777216)
Caps (a request over a per-request cap gets 413, one that would pass a per-run cap 429; both are
refused whole and the receiver goes on serving requests that fit). Bytes are those of the trace JSON:
  --max-request-spans    spans in one request (default ${DEFAULT_LIMITS.requestSpans})
  --max-request-traces   trace ids (files) in one request (default ${DEFAULT_LIMITS.requestTraces})
  --max-request-bytes    bytes one request adds (default ${DEFAULT_LIMITS.requestBytes})
  --max-run-spans        spans stored in the run (default ${DEFAULT_LIMITS.runSpans})
  --max-run-traces       traces (files) stored in the run (default ${DEFAULT_LIMITS.runTraces})
  --max-run-bytes        bytes stored in the run (default ${DEFAULT_LIMITS.runBytes})
  --max-concurrent-requests  requests read at once; more get 429 retry-after 1 (default ${DEFAULT_LIMITS.concurrentRequests})
`

/** CLI flag → receiver limit. */
const LIMIT_FLAGS = {
  'max-request-spans': 'requestSpans',
  'max-request-traces': 'requestTraces',
  'max-request-bytes': 'requestBytes',
  'max-run-spans': 'runSpans',
  'max-run-traces': 'runTraces',
  'max-run-bytes': 'runBytes',
  'max-concurrent-requests': 'concurrentRequests',
} as const satisfies Record<string, keyof TraceReceiverLimits>

function integer(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text)
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer ${min}-${max}, got '${text}'`)
  return n
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values
  } catch (error) {
    throw new UsageError(usageMessage(error, OPTIONS))
  }
}

const OPTIONS = {
  port: { type: 'string' },
  out: { type: 'string' },
  'quiet-ms': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-request-spans': { type: 'string' },
  'max-request-traces': { type: 'string' },
  'max-request-bytes': { type: 'string' },
  'max-run-spans': { type: 'string' },
  'max-run-traces': { type: 'string' },
  'max-run-bytes': { type: 'string' },
  'max-concurrent-requests': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function optionsFrom(argv: string[]): TraceReceiverOptions | 'help' {
  const values = parse(argv)
  if (values.help) return 'help'
  const options: TraceReceiverOptions = { port: 4318 }
  if (values.port !== undefined) options.port = integer('port', values.port, 0, 65535)
  if (values.out !== undefined) {
    if (values.out.trim() === '') throw new UsageError('--out needs a directory')
    options.out = values.out
  }
  if (values['quiet-ms'] !== undefined) options.quietMs = integer('quiet-ms', values['quiet-ms'], 0)
  if (values['max-body-bytes'] !== undefined)
    options.maxBodyBytes = integer('max-body-bytes', values['max-body-bytes'], 1)
  const limits: TraceReceiverLimits = {}
  for (const [name, key] of Object.entries(LIMIT_FLAGS)) {
    const text = values[name as keyof typeof LIMIT_FLAGS]
    if (text !== undefined) limits[key] = integer(name, text, 1)
  }
  options.limits = limits
  return options
}

/**
 * `agent-verdict receive [--port 4318] [--out dir]`: prints the receiver URL (the first stdout line), then a
 * line per trace once it goes quiet (`<traceId> <n> spans [→ file]`), and serves until SIGINT/SIGTERM (or `signal`);
 * returns 0. Returns 2 for bad arguments, a port it cannot listen on, or traces it could not write to --out.
 *
 * @example
 * process.exitCode = await receiveCommand(['--port', '4318', '--out', 'traces/'])
 */
export async function receiveCommand(argv: string[], io: ReceiveCommandOptions = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  let options: TraceReceiverOptions | 'help'
  try {
    options = optionsFrom(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    stderr.write(usageLine('receive', error.message))
    return 2
  }
  if (options === 'help') {
    stdout.write(USAGE)
    return 0
  }
  let failedWrites = 0
  options.onTrace = ({ traceId, spans, file, error }) => {
    if (error) {
      failedWrites++
      stderr.write(`agent-verdict receive: could not write trace ${traceId} to ${file}: ${error.message}\n`)
      return
    }
    stdout.write(`${traceId} ${spans} span${spans === 1 ? '' : 's'}${file ? ` → ${file}` : ''}\n`)
  }
  let receiver: TraceReceiver
  try {
    receiver = await startTraceReceiver(options)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const hint =
      code === 'EADDRINUSE'
        ? ' — the port is taken (another collector?); pick another with --port, or --port 0 for a free one'
        : ''
    stderr.write(
      `agent-verdict receive: cannot listen on 127.0.0.1:${options.port}: ${(error as Error).message}${hint}\n`,
    )
    // The port given cannot be used: an input error, not a finding.
    return 2
  }
  const done = untilStopped(io.signal)
  stdout.write(`${receiver.url}\n`)
  stderr.write(
    `OTLP/HTTP trace receiver listening; point the agent at it with:\n  OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url} OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf\n${options.out ? `Complete traces are written to ${options.out}/<traceId>.json. ` : ''}Ctrl-C stops it.\n`,
  )
  const why = await done
  await receiver.close()
  const { requests, spans, traces, refused } = receiver.stats
  const last = receiver.stats.lastRefusal
    ? ` (last: ${receiver.stats.lastRefusal.status} ${receiver.stats.lastRefusal.message})`
    : ''
  stderr.write(
    `trace receiver stopped (${why}) after ${requests} requests: ${spans} spans in ${traces} traces, ${refused} requests refused${last}\n`,
  )
  // Traces that could not be written to --out are lost output of a bad --out: an input error.
  return failedWrites > 0 ? 2 : 0
}
