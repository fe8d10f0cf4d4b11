// OpenAI Batch API through the official SDK: upload a JSONL file, create the batch, poll, download.
import type OpenAI from 'openai'
import type { Batch } from 'openai/resources/batches'
import { registerHeaderSecrets, registerSecret, urlCredentials } from '../config/secrets'
import { withBaseQuery } from './base-url'
import type { BatchItem, BatchJob, BatchResult } from './batch/queue'
import { roundedRecord } from './batch/rounded-record'
import { abortableSleep, etaOf, isTransientPollError, MAX_POLL_FAILURES, type BatchWaitOptions } from './batch/progress'
import { usageFromCounts } from './usage'

const ENDPOINT = '/v1/chat/completions'

/** The client the batch functions take (the official SDK's). */
export type OpenAIBatchClient = OpenAI

/**
 * An SDK client for batch calls: the key from `apiKey` / `OPENAI_API_KEY`, optional `baseURL` and gateway headers.
 *
 * @example
 * const client = await openaiBatchClient({ apiKey: process.env.OPENAI_API_KEY })
 */
export async function openaiBatchClient(options: {
  apiKey: string
  baseURL?: string
  headers?: Record<string, string>
}): Promise<OpenAI> {
  // Loaded on use: the cassette's batch hooks sit on every judge call's path, the SDK need not (decision 0021).
  const { default: OpenAI } = await import('openai')
  registerSecret(options.apiKey)
  registerHeaderSecrets(options.headers)
  urlCredentials(options.baseURL ?? process.env.OPENAI_BASE_URL ?? '') // a key in its query is scrubbed too
  return new OpenAI(
    withBaseQuery({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    }),
  )
}
const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled'])

/**
 * Uploads the queued requests as one JSONL file (`custom_id` = cassette key) and creates a batch with
 * a 24 h completion window.
 *
 * @example
 * const job = await submitOpenAIBatch(new OpenAI(), await readBatchQueue(dir))
 */
export async function submitOpenAIBatch(
  client: OpenAI,
  items: readonly BatchItem[],
  now: () => Date = () => new Date(),
): Promise<BatchJob> {
  if (items.length === 0)
    throw new Error('the batch queue is empty: run the tests with AGENT_VERDICT_BATCH=collect first')
  const jsonl = items
    .map((item) => JSON.stringify({ custom_id: item.key, method: 'POST', url: ENDPOINT, body: item.body }))
    .join('\n')
  const { toFile } = await import('openai')
  const file = await client.files.create({
    file: await toFile(Buffer.from(`${jsonl}\n`), 'agent-verdict-batch.jsonl'),
    purpose: 'batch',
  })
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: ENDPOINT,
    completion_window: '24h',
    metadata: { source: 'agent-verdict' },
  })
  return { provider: 'openai', id: batch.id, submittedAt: now().toISOString(), total: items.length }
}

/**
 * Polls the batch until it ends, reporting progress (done / total, ETA), then downloads the output
 * and error files. Every submitted key gets a result: one with no line in either file (the batch
 * expired, failed or was cancelled first) is a `failed` result naming the batch status.
 *
 * @example
 * const results = await waitOpenAIBatch(client, job, items, { onProgress: (p) => console.error(formatBatchProgress(p)) })
 */
export async function waitOpenAIBatch(
  client: OpenAI,
  job: BatchJob,
  items: readonly BatchItem[],
  options: BatchWaitOptions = {},
): Promise<BatchResult[]> {
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? abortableSleep
  const started = Date.parse(job.submittedAt)
  let batch: Batch
  for (let failures = 0; ; ) {
    try {
      batch = await client.batches.retrieve(job.id, { signal: options.signal })
      failures = 0
    } catch (err) {
      // A wait lasts hours: a throttled or failed poll is retried at the next interval, not fatal.
      if (options.signal?.aborted || !isTransientPollError(err) || ++failures >= MAX_POLL_FAILURES) throw err
      options.onProgress?.({
        id: job.id,
        status: `poll failed (${(err as Error).message}); retrying`,
        done: 0,
        failed: 0,
        total: job.total,
        elapsedMs: Math.max(0, now() - started),
        etaMs: null,
      })
      await sleep(options.pollMs ?? 30_000, options.signal)
      continue
    }
    const counts = batch.request_counts
    const done = (counts?.completed ?? 0) + (counts?.failed ?? 0)
    const total = counts?.total || job.total
    const elapsedMs = Math.max(0, now() - started)
    options.onProgress?.({
      id: job.id,
      status: batch.status,
      done,
      failed: counts?.failed ?? 0,
      total,
      elapsedMs,
      etaMs: etaOf(done, total, elapsedMs),
    })
    if (TERMINAL.has(batch.status)) break
    await sleep(options.pollMs ?? 30_000, options.signal)
  }

  const results = new Map<string, BatchResult>()
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue
    const text = await (await client.files.content(fileId, { signal: options.signal })).text()
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      const result = readOutputLine(line)
      if (result) results.set(result.key, result)
    }
  }
  const why =
    batch.status === 'completed'
      ? 'no result line for it in the batch output'
      : `the batch ${batch.status}${batchErrors(batch)}`
  return items.map((item) => results.get(item.key) ?? { key: item.key, status: 'failed', error: why })
}

function batchErrors(batch: Batch): string {
  const first = batch.errors?.data?.[0]
  return first?.message ? ` (${first.code ?? 'error'}: ${first.message})` : ''
}

interface OutputLine {
  custom_id?: string
  response?: { status_code?: number; body?: ChatBody & { error?: { message?: string } } } | null
  error?: { code?: string; message?: string } | null
}
interface ChatBody {
  choices?: Array<{ finish_reason?: string; message?: { content?: string | null; refusal?: string | null } }>
  usage?: { prompt_tokens?: number; completion_tokens?: number }
}

/** One line of a batch output or error file as a result; lines without a cassette key are skipped. */
function readOutputLine(line: string): BatchResult | undefined {
  let parsed: OutputLine
  try {
    parsed = JSON.parse(line) as OutputLine
  } catch {
    return undefined
  }
  const key = parsed.custom_id
  if (typeof key !== 'string' || !/^[0-9a-f]{64}$/.test(key)) return undefined
  // Usage counts are numbers in the line; the verdict is a string there, checked as written by parseJudgeText.
  const rounded = roundedRecord(key, line)
  if (rounded) return rounded
  const failed = (error: string): BatchResult => ({ key, status: 'failed', error })
  if (parsed.error) return failed(`${parsed.error.code ?? 'error'}: ${parsed.error.message ?? 'no message'}`)
  const status = parsed.response?.status_code
  const body = parsed.response?.body
  if (status !== 200 || !body)
    return failed(`HTTP ${status ?? '?'}${body?.error?.message ? `: ${body.error.message}` : ''}`)
  const usage = usageFromCounts(body.usage, ['prompt_tokens', 'completion_tokens'])
  const choices = body.choices ?? []
  // The same rules as a live reply: one choice, not refused, not cut off, not filtered.
  if (choices.length !== 1) return failed(`${choices.length} choices in the reply`)
  const [choice] = choices
  if (choice.message?.refusal) return failed(`refused: ${choice.message.refusal}`)
  if (choice.finish_reason === 'length' || choice.finish_reason === 'content_filter')
    return failed(`finish_reason ${choice.finish_reason}`)
  return { key, status: 'ok', text: choice.message?.content ?? '', usage }
}
