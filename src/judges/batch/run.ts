// Submit the queue and wait for it, whichever provider the queued requests are for.
import type { BedrockBatchOptions } from '../bedrock-batch'
import { submitOpenAIBatch, waitOpenAIBatch, type OpenAIBatchClient } from '../openai-batch'
import type { BatchWaitOptions } from './progress'
import {
  readBatchJob,
  readBatchQueue,
  writeBatchJob,
  writeBatchResults,
  type BatchItem,
  type BatchJob,
  type BatchResult,
} from './queue'

/** The providers' clients and settings; only the one the queue needs is used. */
export interface BatchProviders {
  openai?: () => OpenAIBatchClient | Promise<OpenAIBatchClient>
  bedrock?: () => BedrockBatchOptions
}

function providerOf(items: readonly BatchItem[]): 'openai' | 'bedrock' {
  const kinds = new Set(items.map((i) => (i.provider === 'bedrock' ? 'bedrock' : 'openai')))
  if (kinds.size > 1)
    throw new Error(
      'the batch queue mixes OpenAI and Bedrock requests: record each judge\u2019s tests in a separate batch (AGENT_VERDICT_BATCH_DIR)',
    )
  return [...kinds][0] ?? 'openai'
}

/**
 * Submits the queued requests in `dir` as one provider batch and saves the job (`job.json`).
 *
 * @example
 * const job = await submitBatch('.agent-verdict-batch', { openai: () => new OpenAI() })
 */
export async function submitBatch(dir: string, providers: BatchProviders): Promise<BatchJob> {
  const items = await readBatchQueue(dir)
  if (items.length === 0)
    throw new Error(`the batch queue in ${dir} is empty: run the tests with AGENT_VERDICT_BATCH=collect first`)
  let job: BatchJob
  if (providerOf(items) === 'openai') {
    if (!providers.openai) throw new Error('the queue holds OpenAI requests but no OpenAI client was configured')
    job = await submitOpenAIBatch(await providers.openai(), items)
  } else {
    if (!providers.bedrock) throw new Error('the queue holds Bedrock requests but no Bedrock batch settings were given')
    const { submitBedrockBatch } = await import('../bedrock-batch')
    job = await submitBedrockBatch(items, providers.bedrock())
  }
  await writeBatchJob(dir, job)
  return job
}

/**
 * Waits for the saved job, writes `results.jsonl` and returns the results (one per queued key).
 *
 * @example
 * const results = await waitBatch(dir, providers, { onProgress: (p) => console.error(formatBatchProgress(p)) })
 */
export async function waitBatch(
  dir: string,
  providers: BatchProviders,
  options: BatchWaitOptions = {},
): Promise<BatchResult[]> {
  const job = await readBatchJob(dir)
  if (!job) throw new Error(`no submitted batch in ${dir}: run \`agent-verdict batch submit\` first`)
  const items = await readBatchQueue(dir)
  let results: BatchResult[]
  if (job.provider === 'openai') {
    if (!providers.openai) throw new Error('the batch is an OpenAI batch but no OpenAI client was configured')
    results = await waitOpenAIBatch(await providers.openai(), job, items, options)
  } else {
    if (!providers.bedrock) throw new Error('the batch is a Bedrock batch but no Bedrock batch settings were given')
    const { waitBedrockBatch } = await import('../bedrock-batch')
    results = await waitBedrockBatch(job, items, { ...providers.bedrock(), ...options })
  }
  await writeBatchResults(dir, results)
  return results
}
