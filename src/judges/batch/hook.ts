// What a cassette does on a miss during a batch record: queue the request (collect), or answer it from
// the finished batch (apply). See docs/decisions/0024-batch-record.md.
import { costOf } from '../cost'
import { JudgeConfigError, JudgeError, JudgeOutputError } from '../errors'
import { replyJsonSchema } from '../json-schema'
import { buildBody, isReasoningModel } from '../openai'
import { inexactNumber } from '../exact-numbers'
import { agreedVerdict, parseJudgeText, roundedNumberError, wholeDocument } from '../parse-output'
import { scrubDeep } from '../../config/secrets'
import type { ContentPart, Judge, JudgeRequest, JudgeResponse } from '../types'
import { batchDir, enqueueBatchItem, noteFallback, readBatchResults, type BatchResult } from './queue'

/** A cassette miss, as the batch hook sees it. */
export interface BatchMiss<T> {
  key: string
  file: string
  judge: Judge
  request: JudgeRequest<T>
  test?: string
  matcher?: string
}

/**
 * Answers cassette misses during a batch record. `answer` resolves to a response to record, or to
 * `undefined` to let the cassette call the judge live (the fallback for failed batch items).
 */
export interface BatchHook {
  readonly phase: 'collect' | 'apply'
  answer<T>(miss: BatchMiss<T>): Promise<JudgeResponse<T> | undefined>
}

/**
 * The verdict of this assertion is waiting in the batch queue: the collecting run is not a test run,
 * its assertions are neither passed nor failed. Run the batch (`agent-verdict batch submit`, `wait`) and
 * the suite again to get verdicts.
 *
 * @example
 * if (err instanceof JudgePendingError) pending++
 */
export class JudgePendingError extends JudgeError {
  override name = 'JudgePendingError'
  readonly key: string
  constructor(miss: BatchMiss<unknown>, dir: string) {
    super(
      `verdict pending: ${miss.request.metric} is queued for batch judging in ${dir} (AGENT_VERDICT_BATCH=collect). ` +
        'Next: `agent-verdict batch submit` and `agent-verdict batch wait`, then run the tests again with AGENT_VERDICT_BATCH=apply ' +
        '(or do all three with `agent-verdict record --batch -- <test command>`)',
      { provider: miss.judge.provider, model: miss.judge.model, retryable: false },
    )
    this.key = miss.key
  }
}

/** Batch judging prices (OpenAI Batch API, Bedrock batch inference): half the on-demand price. */
export const BATCH_PRICE_FACTOR = 0.5

/**
 * The hook `AGENT_VERDICT_BATCH` asks for (`collect` or `apply`), or undefined when it is unset. An
 * unknown value throws, naming the valid ones.
 *
 * @example
 * batchHookFromEnv({ AGENT_VERDICT_BATCH: 'collect' })?.phase // 'collect'
 */
export function batchHookFromEnv(env: Record<string, string | undefined> = process.env): BatchHook | undefined {
  const raw = env.AGENT_VERDICT_BATCH?.trim().toLowerCase()
  if (!raw) return undefined
  const dir = batchDir(env)
  if (raw === 'collect') return collectingHook(dir)
  if (raw === 'apply') return applyingHook(dir)
  throw new JudgeConfigError(
    `AGENT_VERDICT_BATCH=${JSON.stringify(env.AGENT_VERDICT_BATCH)} is not a batch phase — use collect (queue judge requests instead of calling the judge) or apply (answer them from the finished batch), or unset it`,
    { provider: 'batch', model: '-' },
  )
}

/**
 * Queues every miss in `dir` and throws a {@link JudgePendingError}: no judge is called.
 *
 * @example
 * withCassette(judge, { file, batch: collectingHook('.agent-verdict-batch') })
 */
export function collectingHook(dir: string): BatchHook {
  return {
    phase: 'collect',
    async answer(miss) {
      const { judge, request } = miss
      await enqueueBatchItem(dir, {
        key: miss.key,
        file: miss.file,
        provider: judge.provider,
        model: judge.model,
        metric: request.metric,
        ...(miss.test !== undefined ? { test: miss.test } : {}),
        ...(miss.matcher !== undefined ? { matcher: miss.matcher } : {}),
        body: batchBody(judge, request as JudgeRequest<unknown>),
      })
      throw new JudgePendingError(miss as BatchMiss<unknown>, dir)
    },
  }
}

/**
 * Answers misses from the batch results in `dir`, parsed and validated against the request's schema
 * exactly as a live reply is. A failed, missing or invalid result returns undefined (the cassette then
 * calls the judge live) and is noted in `fallbacks.jsonl`, so nothing is lost and nothing is silent.
 *
 * @example
 * withCassette(judge, { file, batch: applyingHook('.agent-verdict-batch') })
 */
export function applyingHook(dir: string): BatchHook {
  let results: Promise<Map<string, BatchResult>> | undefined
  return {
    phase: 'apply',
    async answer<T>(miss: BatchMiss<T>): Promise<JudgeResponse<T> | undefined> {
      const { judge, request } = miss
      results ??= readBatchResults(dir)
      const result = (await results).get(miss.key)
      const fallback = async (reason: string) => {
        await noteFallback(dir, { key: miss.key, reason })
        return undefined
      }
      if (!result) return fallback('not in the batch results')
      if (result.status !== 'ok') return fallback(result.error ?? 'failed')
      const usage = result.usage ?? { inputTokens: 0, outputTokens: 0 }
      const ctx = { provider: judge.provider, model: judge.model, metric: request.metric, usage }
      let output: T
      try {
        output =
          result.text !== undefined
            ? parseJudgeText(result.text, request.schema, ctx)
            : agreedVerdict(
                [...(result.candidates ?? []), ...verdictTexts(result.texts, request.schema, ctx)],
                request.schema,
                ctx,
              )
      } catch (err) {
        if (err instanceof JudgeOutputError) return fallback(`invalid batch reply: ${err.message}`)
        throw err
      }
      const cost = costOf(judge.model, usage)
      return {
        output: scrubDeep(output), // as a live reply is: a credential echoed by the judge never reaches a verdict
        usage,
        latencyMs: 0, // no call was waited for in this run
        provider: judge.provider,
        model: judge.model,
        costUsd: cost === null ? null : cost * BATCH_PRICE_FACTOR,
        cached: false,
        attempts: 0,
      }
    },
  }
}

type Json = ReturnType<typeof JSON.parse>

/**
 * As the live Bedrock judge: a text block beside the tool call is a candidate only when it is, whole, a valid
 * verdict; one that writes a number JSON.parse rounds is no verdict at all (it throws, as live).
 */
function verdictTexts(
  texts: readonly string[] | undefined,
  schema: JudgeRequest<unknown>['schema'],
  ctx: Parameters<typeof roundedNumberError>[2],
): unknown[] {
  const out: unknown[] = []
  for (const text of texts ?? []) {
    let value: unknown
    try {
      value = JSON.parse(wholeDocument(text))
    } catch {
      continue // prose: not a verdict, ignored as live
    }
    const rounded = inexactNumber(wholeDocument(text))
    if (rounded !== undefined) throw roundedNumberError(rounded, text, ctx)
    if (schema.safeParse(value).success) out.push(value)
  }
  return out
}

/** The provider request body of a judge request, as a batch line carries it. */
export function batchBody(judge: Judge, request: JudgeRequest<unknown>): Record<string, Json> {
  if (judge.provider === 'openai' || judge.provider === 'openai-compatible') {
    const compatible = judge.provider === 'openai-compatible'
    const body = buildBody(
      request,
      judge.model,
      { jsonSchema: true, temperature: !isReasoningModel(judge.model) },
      0,
      compatible,
    )
    return JSON.parse(JSON.stringify(body))
  }
  if (judge.provider === 'bedrock') return anthropicBody(request)
  throw new JudgeConfigError(
    `batch judging supports openai and bedrock judges, not ${judge.provider}:${judge.model}; unset AGENT_VERDICT_BATCH to judge live`,
    { provider: judge.provider, model: judge.model },
  )
}

/** Bedrock batch inference takes InvokeModel bodies: for Claude, the Anthropic messages format with a forced tool. */
function anthropicBody(request: JudgeRequest<unknown>): Record<string, Json> {
  const toolName = request.schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'verdict'
  return JSON.parse(
    JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: request.maxOutputTokens ?? 4096,
      temperature: 0,
      system: request.system,
      messages: [{ role: 'user', content: request.content.map(toAnthropicPart) }],
      tools: [
        {
          name: toolName,
          description: `Record the ${request.metric} verdict.`,
          input_schema: replyJsonSchema(request.schema),
        },
      ],
      tool_choice: { type: 'tool', name: toolName },
    }),
  )
}

function toAnthropicPart(part: ContentPart): Json {
  if (part.type === 'text') return { type: 'text', text: part.text }
  return {
    type: 'image',
    source: { type: 'base64', media_type: `image/${part.format}`, data: Buffer.from(part.bytes).toString('base64') },
  }
}
