// `agent-verdict batch submit | wait` and `agent-verdict record --batch -- <test command>`: record a
// suite's verdicts through the providers' asynchronous batch APIs (decision 0024).
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { JudgeConfigError, JudgeError } from '../judges/errors'
import { unknownSubcommand, usageLine, usageMessage } from './args'
import { parseJudgeSpec } from '../judges/config'
import { presentKey } from '../config/secrets'
import { formatBatchProgress } from '../judges/batch/progress'
import { openaiBatchClient } from '../judges/openai-batch'
import { batchDir, readBatchQueue, readFallbacks } from '../judges/batch/queue'
import { submitBatch, waitBatch, type BatchProviders } from '../judges/batch/run'

const BATCH_USAGE = `usage:
  agent-verdict batch submit [--dir .agent-verdict-batch]
      submit the judge requests queued by a run with AGENT_VERDICT_BATCH=collect as one provider batch
  agent-verdict batch wait [--dir .agent-verdict-batch] [--poll-seconds 30]
      wait for it with progress (done/total, ETA) and save the answers; then run the tests with
      AGENT_VERDICT_BATCH=apply to write the cassettes (failed items are judged live in that run)
  agent-verdict record --batch [--dir …] [--poll-seconds 30] -- <test command…>
      all three steps: collect, submit + wait, apply (e.g. agent-verdict record --batch -- npx vitest run)

  OpenAI: OPENAI_API_KEY (and the base URL of an openai-compatible AGENT_VERDICT_JUDGE or OPENAI_BASE_URL).
  Bedrock: AWS credentials and region as usual, AGENT_VERDICT_BEDROCK_BATCH_ROLE (service role ARN) and
  AGENT_VERDICT_BEDROCK_BATCH_S3 (s3://bucket/prefix); needs @aws-sdk/client-bedrock and @aws-sdk/client-s3.
`

/** Where the commands write, the environment, and the provider clients (injectable for tests). */
export interface BatchCommandIO {
  stdout?: { write(text: string): unknown }
  stderr?: { write(text: string): unknown }
  env?: Record<string, string | undefined>
  providers?: BatchProviders
}

/** OpenAI and Bedrock settings from the environment, each built only if the queue needs it. */
export function providersFromEnv(env: Record<string, string | undefined>): BatchProviders {
  return {
    openai: () => {
      const spec = env.AGENT_VERDICT_JUDGE ? parseJudgeSpec(env.AGENT_VERDICT_JUDGE) : undefined
      const baseURL = spec?.provider === 'openai-compatible' ? spec.baseURL : env.OPENAI_BASE_URL
      const apiKey = presentKey(env.OPENAI_API_KEY) ?? (baseURL ? 'not-needed' : undefined)
      if (!apiKey) throw new Error('OpenAI batch judging needs OPENAI_API_KEY')
      const headers = spec && spec.provider !== 'bedrock' ? spec.headers : undefined
      return openaiBatchClient({ apiKey, ...(baseURL ? { baseURL } : {}), ...(headers ? { headers } : {}) })
    },
    bedrock: () => {
      const spec = env.AGENT_VERDICT_JUDGE ? parseJudgeSpec(env.AGENT_VERDICT_JUDGE) : undefined
      return {
        roleArn: env.AGENT_VERDICT_BEDROCK_BATCH_ROLE ?? '',
        s3Uri: env.AGENT_VERDICT_BEDROCK_BATCH_S3 ?? '',
        ...(spec?.provider === 'bedrock' && spec.region ? { region: spec.region } : {}),
      }
    },
  }
}

const OPTIONS = {
  dir: { type: 'string' },
  'poll-seconds': { type: 'string' },
  batch: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
}

/**
 * The exit code of a failed batch: 3 when the provider gave no verdicts (a judge error: network, auth, a failed
 * job), 2 when the input was wrong (no queue, a missing setting, a bad value).
 */
function batchFailureCode(error: unknown): number {
  if (error instanceof JudgeConfigError) return 2
  // The SDK's API errors carry the provider's HTTP status; ours are JudgeErrors.
  const status = (error as { status?: unknown } | null)?.status
  return error instanceof JudgeError || typeof status === 'number' ? 3 : 2
}

function pollMsOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new Error(`--poll-seconds ${JSON.stringify(value)} is not a number of seconds`)
  return seconds * 1000
}

async function submitAndWait(
  dir: string,
  pollMs: number | undefined,
  io: Required<Pick<BatchCommandIO, 'stdout' | 'stderr'>>,
  providers: BatchProviders,
): Promise<{ ok: number; failed: number }> {
  const job = await submitBatch(dir, providers)
  io.stderr.write(`submitted ${job.total} judge requests as ${job.provider} batch ${job.id}\n`)
  const results = await waitBatch(dir, providers, {
    pollMs,
    onProgress: (p) => io.stderr.write(`${formatBatchProgress(p)}\n`),
  })
  const failed = results.filter((r) => r.status !== 'ok')
  for (const r of failed.slice(0, 10))
    io.stderr.write(`  failed ${r.key.slice(0, 12)}: ${r.error ?? 'unknown'} (judged live in the apply run)\n`)
  if (failed.length > 10) io.stderr.write(`  … and ${failed.length - 10} more\n`)
  io.stdout.write(`batch ${job.id}: ${results.length - failed.length} answered, ${failed.length} failed\n`)
  return { ok: results.length - failed.length, failed: failed.length }
}

/**
 * `agent-verdict batch submit | wait`. Exit codes: 0 ok, 2 bad usage or input, 3 the provider gave no verdicts.
 *
 * @example
 * process.exitCode = await batchCommand(['wait', '--poll-seconds', '60'])
 */
export async function batchCommand(argv: string[], io: BatchCommandIO = {}): Promise<number> {
  const out = { stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr }
  const env = io.env ?? process.env
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    out.stderr.write(usageLine('batch', usageMessage(error, OPTIONS)))
    return 2
  }
  if (args.values.help) {
    out.stdout.write(BATCH_USAGE)
    return 0
  }
  const dir = args.values.dir ?? batchDir(env)
  const providers = io.providers ?? providersFromEnv(env)
  const [sub] = args.positionals
  try {
    if (sub === 'submit') {
      const job = await submitBatch(dir, providers)
      out.stdout.write(
        `submitted ${job.total} judge requests as ${job.provider} batch ${job.id}; next: agent-verdict batch wait\n`,
      )
      return 0
    }
    if (sub === 'wait') {
      const results = await waitBatch(dir, providers, {
        pollMs: pollMsOf(args.values['poll-seconds']),
        onProgress: (p) => out.stderr.write(`${formatBatchProgress(p)}\n`),
      })
      const failed = results.filter((r) => r.status !== 'ok').length
      out.stdout.write(
        `${results.length - failed} answered, ${failed} failed; next: run the tests with AGENT_VERDICT_BATCH=apply (failed items are judged live then)\n`,
      )
      return 0
    }
  } catch (error) {
    out.stderr.write(`agent-verdict batch ${sub}: ${(error as Error).message}\n`)
    return batchFailureCode(error)
  }
  out.stderr.write(usageLine('batch', unknownSubcommand(sub, ['submit', 'wait'])))
  return 2
}

function runCommand(command: string[], env: Record<string, string | undefined>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env: env as NodeJS.ProcessEnv })
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })
}

/**
 * `agent-verdict record --batch -- <test command…>`: runs the tests collecting judge requests, submits
 * them as one batch and waits, then runs the tests again answering from the batch (writing the
 * cassettes). Exits with the second run's code; 2 on bad usage or input, 3 when the provider gave no verdicts.
 *
 * @example
 * process.exitCode = await recordCommand(['--batch', '--', 'npx', 'vitest', 'run'])
 */
export async function recordCommand(argv: string[], io: BatchCommandIO = {}): Promise<number> {
  const out = { stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr }
  const env = io.env ?? process.env
  let args: ReturnType<typeof parse>
  try {
    args = parse(argv)
  } catch (error) {
    out.stderr.write(usageLine('record', usageMessage(error, OPTIONS)))
    return 2
  }
  if (args.values.help) {
    out.stdout.write(BATCH_USAGE)
    return 0
  }
  const command = args.positionals
  if (!args.values.batch || command.length === 0) {
    out.stderr.write(
      usageLine(
        'record',
        !args.values.batch
          ? 'only --batch is supported (a live record is just AGENT_VERDICT_MODE=record)'
          : 'give the test command after --',
      ),
    )
    return 2
  }
  const dir = args.values.dir ?? batchDir(env)
  let pollMs: number | undefined
  try {
    pollMs = pollMsOf(args.values['poll-seconds'])
  } catch (error) {
    out.stderr.write(`agent-verdict record: ${(error as Error).message}\n`)
    return 2
  }
  // Both runs must be allowed to write cassettes: CI's default (replay) would refuse every miss.
  const mode = env.AGENT_VERDICT_MODE?.trim() ? env.AGENT_VERDICT_MODE : 'auto'
  const base = { ...env, AGENT_VERDICT_MODE: mode, AGENT_VERDICT_BATCH_DIR: dir }
  await rm(dir, { recursive: true, force: true }) // a fresh queue: answers of an older batch must not leak in

  out.stderr.write(
    'agent-verdict record --batch: 1/3 collecting judge requests (assertions that need a verdict are pending in this run)\n',
  )
  await runCommand(command, { ...base, AGENT_VERDICT_BATCH: 'collect' }) // its failures are the pending verdicts
  const queued = (await readBatchQueue(dir)).length
  if (queued === 0) {
    out.stderr.write(
      'agent-verdict record --batch: nothing to judge (every verdict is recorded); running the tests once more\n',
    )
    return runCommand(command, { ...base, AGENT_VERDICT_BATCH: '' })
  }
  out.stderr.write(`agent-verdict record --batch: 2/3 ${queued} judge requests queued; submitting\n`)
  try {
    await submitAndWait(dir, pollMs, out, io.providers ?? providersFromEnv(env))
  } catch (error) {
    out.stderr.write(
      `agent-verdict record --batch: the batch failed: ${(error as Error).message}\nthe queue is kept in ${dir}: retry with \`agent-verdict batch submit\` and \`wait\`, then run the tests with AGENT_VERDICT_BATCH=apply\n`,
    )
    return batchFailureCode(error)
  }
  out.stderr.write('agent-verdict record --batch: 3/3 writing the cassettes from the batch and running the tests\n')
  const code = await runCommand(command, { ...base, AGENT_VERDICT_BATCH: 'apply' })
  const fallbacks = await readFallbacks(dir)
  out.stdout.write(
    `record --batch: ${queued - fallbacks.length} of ${queued} verdicts from the batch${fallbacks.length ? `, ${fallbacks.length} judged live instead (listed in ${dir}/fallbacks.jsonl)` : ''}\n`,
  )
  return code
}
