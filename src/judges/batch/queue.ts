// The batch directory: requests queued by a collecting run, the provider job, and its results.
// One file per queued request, so any number of test workers can queue at once without a lock.
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import * as z from 'zod'
import { scrubDeep } from '../../config/secrets'
import { writeAtomic } from '../../files/atomic'
import { JudgeUsageSchema } from '../usage'

// Built on first use, not when the module loads: every test worker loads this module (the cassette judge asks
// whether a batch run is on), and only a batch run needs the schemas (decision 0031).
function buildBatchSchemas() {
  const key = z.string().regex(/^[0-9a-f]{64}$/, 'keys are sha256 hex')
  return {
    /**
     * A judge request waiting for a batch: its cassette key, the provider request body (chat completions
     * for OpenAI, Anthropic messages for Bedrock) and labels for progress and error messages.
     */
    item: z.object({
      key,
      /** The cassette file the verdict belongs to (for messages; results are looked up by key). */
      file: z.string(),
      provider: z.string(),
      model: z.string(),
      metric: z.string(),
      test: z.string().optional(),
      matcher: z.string().optional(),
      body: z.record(z.string(), z.json()),
    }),
    /**
     * The answer of one batch item. `ok` items hold the reply as the provider gave it (a text, or the
     * inputs of forced tool calls), parsed and validated later by the test run against the request's own
     * schema, exactly as a live reply; `failed` items (error, expired, refused) fall back to a live call.
     */
    result: z.object({
      key,
      status: z.enum(['ok', 'failed']),
      text: z.string().optional(),
      candidates: z.array(z.json()).optional(),
      /** Text blocks beside tool calls (Bedrock): each one that is, as a whole, a valid verdict is a candidate too, as live. */
      texts: z.array(z.string()).optional(),
      usage: JudgeUsageSchema.optional(),
      error: z.string().optional(),
    }),
    /** The submitted provider job, saved so `agent-verdict batch wait` can resume after a restart. */
    job: z.object({
      provider: z.enum(['openai', 'bedrock']),
      id: z.string(),
      submittedAt: z.iso.datetime(),
      total: z.number().int().nonnegative(),
      /** Bedrock: the S3 output prefix and recordId → key map. */
      outputUri: z.string().optional(),
      records: z.record(z.string(), key).optional(),
    }),
  }
}

type BatchSchemas = ReturnType<typeof buildBatchSchemas>
let schemas: BatchSchemas | undefined

/**
 * The batch directory's zod schemas (`item`, `result`, `job`), built once, on first use.
 *
 * @example
 * batchSchemas().result.parse({ key, status: 'failed', error: 'expired: the batch window ended' })
 */
export function batchSchemas(): BatchSchemas {
  schemas ??= buildBatchSchemas()
  return schemas
}

/** A judge request waiting for a batch (see {@link batchSchemas}). */
export type BatchItem = z.infer<BatchSchemas['item']>
/** The answer of one batch item (see {@link batchSchemas}). */
export type BatchResult = z.infer<BatchSchemas['result']>
/**
 * The submitted provider job (see {@link batchSchemas}).
 *
 * @example
 * const job: BatchJob = { provider: 'openai', id: 'batch_abc', submittedAt: new Date().toISOString(), total: 200 }
 */
export type BatchJob = z.infer<BatchSchemas['job']>

/** The default batch directory, relative to the working directory; `AGENT_VERDICT_BATCH_DIR` overrides it. */
export const DEFAULT_BATCH_DIR = '.agent-verdict-batch'

/**
 * The batch directory in force.
 *
 * @example
 * batchDir({ AGENT_VERDICT_BATCH_DIR: '/tmp/batch' }) // '/tmp/batch'
 */
export function batchDir(env: Record<string, string | undefined> = process.env): string {
  return resolve(env.AGENT_VERDICT_BATCH_DIR?.trim() || DEFAULT_BATCH_DIR)
}

const queueDir = (dir: string) => join(dir, 'queue')
const resultsFile = (dir: string) => join(dir, 'results.jsonl')
const jobFile = (dir: string) => join(dir, 'job.json')
const fallbackFile = (dir: string) => join(dir, 'fallbacks.jsonl')

/**
 * Queues one request. The same key queued twice (two tests asking the identical question) is one item.
 *
 * @example
 * await enqueueBatchItem(batchDir(), item)
 */
export async function enqueueBatchItem(dir: string, item: BatchItem): Promise<void> {
  await mkdir(queueDir(dir), { recursive: true })
  await writeAtomic(join(queueDir(dir), `${item.key}.json`), JSON.stringify(batchSchemas().item.parse(item)))
}

/**
 * Every queued request, sorted by key (so a batch file is the same for the same suite).
 *
 * @example
 * const items = await readBatchQueue(batchDir())
 */
export async function readBatchQueue(dir: string): Promise<BatchItem[]> {
  let names: string[]
  try {
    names = await readdir(queueDir(dir))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const items: BatchItem[] = []
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const path = join(queueDir(dir), name)
    const parsed = batchSchemas().item.safeParse(JSON.parse(await readFile(path, 'utf8')))
    if (!parsed.success)
      throw new Error(
        `${path} is not a queued batch request (${parsed.error.issues[0].message}); delete ${dir} and run the collecting pass again`,
      )
    items.push(parsed.data)
  }
  return items
}

/**
 * Writes the results of a finished batch (replacing earlier ones), scrubbed: a judge that echoes a
 * configured credential leaves it in no file.
 *
 * @example
 * await writeBatchResults(dir, results)
 */
export async function writeBatchResults(dir: string, results: readonly BatchResult[]): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeAtomic(
    resultsFile(dir),
    results.map((r) => JSON.stringify(batchSchemas().result.parse(scrubDeep(r)))).join('\n') +
      (results.length ? '\n' : ''),
  )
}

/**
 * The results by key; an empty map when no batch finished here.
 *
 * @example
 * (await readBatchResults(dir)).get(key)?.status // 'ok'
 */
export async function readBatchResults(dir: string): Promise<Map<string, BatchResult>> {
  let text: string
  try {
    text = await readFile(resultsFile(dir), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map()
    throw err
  }
  const results = new Map<string, BatchResult>()
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue
    const parsed = batchSchemas().result.safeParse(JSON.parse(line))
    if (!parsed.success)
      throw new Error(
        `${resultsFile(dir)} line ${i + 1} is not a batch result (${parsed.error.issues[0].message}); run \`agent-verdict batch wait\` again`,
      )
    results.set(parsed.data.key, parsed.data)
  }
  return results
}

/** Saves the submitted job. */
export async function writeBatchJob(dir: string, job: BatchJob): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeAtomic(jobFile(dir), `${JSON.stringify(batchSchemas().job.parse(job), null, 2)}\n`)
}

/** The submitted job, if any. */
export async function readBatchJob(dir: string): Promise<BatchJob | undefined> {
  try {
    return batchSchemas().job.parse(JSON.parse(await readFile(jobFile(dir), 'utf8')))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/** Notes a batch item answered by a live call instead (appended by whichever worker made the call). */
export async function noteFallback(dir: string, entry: { key: string; reason: string }): Promise<void> {
  await mkdir(dir, { recursive: true })
  await appendFile(fallbackFile(dir), `${JSON.stringify(entry)}\n`)
}

/**
 * The items that fell back to live calls in the replaying run.
 *
 * @example
 * (await readFallbacks(dir)).length // 0 when every verdict came from the batch
 */
export async function readFallbacks(dir: string): Promise<Array<{ key: string; reason: string }>> {
  try {
    return (await readFile(fallbackFile(dir), 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { key: string; reason: string })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}
