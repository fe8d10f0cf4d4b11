// Bedrock batch inference: JSONL input on S3, CreateModelInvocationJob, poll, read the output from S3.
// The AWS control-plane and S3 clients are optional peer dependencies, loaded only here and only when used.
import type { BatchItem, BatchJob, BatchResult } from './batch/queue'
import { abortableSleep, isTransientPollError, MAX_POLL_FAILURES, type BatchWaitOptions } from './batch/progress'
import { usageFromCounts } from './usage'
import { roundedRecord } from './batch/rounded-record'

/**
 * Where and as whom Bedrock runs the batch. `roleArn` is the service role Bedrock assumes to read the
 * input and write the output (`AGENT_VERDICT_BEDROCK_BATCH_ROLE`); `s3Uri` a prefix the role can use
 * (`AGENT_VERDICT_BEDROCK_BATCH_S3`, e.g. `s3://my-bucket/agent-verdict`).
 */
export interface BedrockBatchOptions {
  roleArn: string
  s3Uri: string
  region?: string
  /** Extra config for both clients (credentials, requestHandler, endpoint). */
  clientConfig?: Record<string, unknown>
  /** Extra config for the S3 client only (e.g. `forcePathStyle`). */
  s3Config?: Record<string, unknown>
  /** Clock in ms (tests pin it). */
  now?: () => number
}

const TERMINAL = new Set(['Completed', 'PartiallyCompleted', 'Failed', 'Stopped', 'Expired'])

async function loadSdks() {
  try {
    const [bedrock, s3] = await Promise.all([import('@aws-sdk/client-bedrock'), import('@aws-sdk/client-s3')])
    return { bedrock, s3 }
  } catch (err) {
    throw new Error(
      'Bedrock batch judging needs the optional peer dependencies @aws-sdk/client-bedrock and @aws-sdk/client-s3: ' +
        `npm install -D @aws-sdk/client-bedrock @aws-sdk/client-s3 (${(err as Error).message})`,
    )
  }
}

function parseS3Uri(uri: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri.trim())
  if (!match)
    throw new Error(
      `${JSON.stringify(uri)} is not an S3 prefix: use s3://BUCKET/PREFIX (AGENT_VERDICT_BEDROCK_BATCH_S3)`,
    )
  return { bucket: match[1], prefix: match[2].replace(/\/+$/, '') }
}

const join = (...parts: string[]) => parts.filter((p) => p !== '').join('/')

async function clients(options: BedrockBatchOptions) {
  const { bedrock, s3 } = await loadSdks()
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION
  const config = { ...options.clientConfig, ...(region ? { region } : {}) }
  return {
    bedrock,
    s3,
    control: new bedrock.BedrockClient(config),
    storage: new s3.S3Client({ ...config, ...options.s3Config }),
  }
}

/**
 * Writes the queued requests to S3 as one JSONL file (`recordId` → cassette key kept in the job) and
 * creates a model invocation job. All items must ask one model (one judge per batch).
 *
 * @example
 * const job = await submitBedrockBatch(items, { roleArn: 'arn:aws:iam::123456789012:role/batch', s3Uri: 's3://bucket/av' })
 */
export async function submitBedrockBatch(items: readonly BatchItem[], options: BedrockBatchOptions): Promise<BatchJob> {
  if (items.length === 0)
    throw new Error('the batch queue is empty: run the tests with AGENT_VERDICT_BATCH=collect first')
  const models = [...new Set(items.map((i) => i.model))]
  if (models.length !== 1)
    throw new Error(
      `a Bedrock batch asks one model, the queue asks ${models.join(', ')}: record each judge's tests separately`,
    )
  if (!options.roleArn)
    throw new Error(
      'Bedrock batch judging needs a service role: set AGENT_VERDICT_BEDROCK_BATCH_ROLE to the role ARN Bedrock assumes to read and write S3',
    )
  const { bucket, prefix } = parseS3Uri(options.s3Uri)
  const { bedrock, s3, control, storage } = await clients(options)
  const submittedAt = new Date((options.now ?? Date.now)())
  const jobName = `agent-verdict-${submittedAt.getTime()}`
  // recordId: 11 alphanumeric characters, as Bedrock's examples use.
  const records: Record<string, string> = {}
  const lines = items.map((item, i) => {
    const recordId = `R${String(i).padStart(10, '0')}`
    records[recordId] = item.key
    return JSON.stringify({ recordId, modelInput: item.body })
  })
  const inputKey = join(prefix, jobName, 'input.jsonl')
  await storage.send(
    new s3.PutObjectCommand({
      Bucket: bucket,
      Key: inputKey,
      Body: `${lines.join('\n')}\n`,
      ContentType: 'application/jsonl',
    }),
  )
  const outputUri = `s3://${bucket}/${join(prefix, jobName, 'output')}/`
  const created = await control.send(
    new bedrock.CreateModelInvocationJobCommand({
      jobName,
      roleArn: options.roleArn,
      modelId: models[0],
      inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${bucket}/${inputKey}`, s3InputFormat: 'JSONL' } },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: outputUri } },
    }),
  )
  if (!created.jobArn) throw new Error('Bedrock CreateModelInvocationJob returned no jobArn')
  return {
    provider: 'bedrock',
    id: created.jobArn,
    submittedAt: submittedAt.toISOString(),
    total: items.length,
    outputUri,
    records,
  }
}

interface OutputLine {
  recordId?: string
  modelOutput?: {
    content?: Array<{ type?: string; text?: string; input?: unknown }>
    stop_reason?: string
    usage?: { input_tokens?: number; output_tokens?: number }
  }
  error?: { errorCode?: number | string; errorMessage?: string } | string
}

/**
 * Polls the job until it ends (Bedrock reports no counts while running: progress is the status and
 * elapsed time), then reads `<output>/<job id>/input.jsonl.out`. Every submitted key gets a result;
 * one with no output line (job failed, stopped, expired or partially completed) is `failed`.
 *
 * @example
 * const results = await waitBedrockBatch(job, items, { ...options, onProgress: (p) => console.error(formatBatchProgress(p)) })
 */
export async function waitBedrockBatch(
  job: BatchJob,
  items: readonly BatchItem[],
  options: BedrockBatchOptions & BatchWaitOptions,
): Promise<BatchResult[]> {
  const { bedrock, s3, control, storage } = await clients(options)
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? abortableSleep
  const started = Date.parse(job.submittedAt)
  let status = 'Submitted'
  let message: string | undefined
  for (let failures = 0; ; ) {
    let got: { status?: string; message?: string }
    try {
      got = await control.send(new bedrock.GetModelInvocationJobCommand({ jobIdentifier: job.id }), {
        abortSignal: options.signal,
      })
      failures = 0
    } catch (err) {
      // A wait lasts hours: a throttled or failed poll is retried at the next interval, not fatal.
      if (options.signal?.aborted || !isTransientPollError(err) || ++failures >= MAX_POLL_FAILURES) throw err
      await sleep(options.pollMs ?? 60_000, options.signal)
      continue
    }
    status = got.status ?? 'Submitted'
    message = got.message
    const elapsedMs = Math.max(0, now() - started)
    options.onProgress?.({ id: job.id, status, done: 0, failed: 0, total: null, elapsedMs, etaMs: null })
    if (TERMINAL.has(status)) break
    await sleep(options.pollMs ?? 60_000, options.signal)
  }

  const results = new Map<string, BatchResult>()
  if (job.outputUri && job.records) {
    const { bucket, prefix } = parseS3Uri(job.outputUri)
    const jobId = job.id.split('/').pop() ?? job.id
    let text = ''
    try {
      const object = await storage.send(
        new s3.GetObjectCommand({ Bucket: bucket, Key: join(prefix, jobId, 'input.jsonl.out') }),
        { abortSignal: options.signal },
      )
      text = (await object.Body?.transformToString()) ?? ''
    } catch (err) {
      // No output file: a job that failed before any record. Every item is then reported as failed below.
      if ((err as { name?: string }).name !== 'NoSuchKey') throw err
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      let parsed: OutputLine
      try {
        parsed = JSON.parse(line) as OutputLine
      } catch {
        continue
      }
      const key = parsed.recordId ? job.records[parsed.recordId] : undefined
      if (key) results.set(key, roundedRecord(key, line) ?? readRecord(key, parsed))
    }
  }
  const why = `no output for it: the Bedrock job ended ${status}${message ? ` (${message})` : ''}`
  return items.map((item) => results.get(item.key) ?? { key: item.key, status: 'failed', error: why })
}

function readRecord(key: string, line: OutputLine): BatchResult {
  if (line.error) {
    const e = typeof line.error === 'string' ? { errorMessage: line.error } : line.error
    return { key, status: 'failed', error: `${e.errorCode ?? 'error'}: ${e.errorMessage ?? 'no message'}` }
  }
  const out = line.modelOutput
  if (!out) return { key, status: 'failed', error: 'no modelOutput' }
  const usage = usageFromCounts(out.usage, ['input_tokens', 'output_tokens'])
  if (out.stop_reason === 'max_tokens')
    return { key, status: 'failed', error: 'cut off at the token limit (stop_reason max_tokens)' }
  const content = out.content ?? []
  const tools = content.filter((c) => c.type === 'tool_use')
  // As the live Converse judge: every tool call is a candidate verdict; a text-only reply is parsed whole.
  const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string)
  if (tools.length > 0)
    return {
      key,
      status: 'ok',
      candidates: tools.map((t) => (t.input ?? null) as never),
      ...(texts.length ? { texts } : {}),
      usage,
    }
  return { key, status: 'ok', text: content.map((c) => c.text ?? '').join('\n'), usage }
}
