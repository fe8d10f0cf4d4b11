import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
  CountTokensCommand,
  type ContentBlock,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime'
import { JudgeOutputError } from './errors'
import { replyJsonSchema } from './json-schema'
import { validateJudgeOutput } from './parse-output'
import { createReliableJudge, type JudgeReliabilityOptions, type ReliableJudge } from './reliable-judge'
import type { TokenCountingJudge } from './tokenizer'
import type { ContentPart } from './types'

/** Claude Sonnet 4.6 through the global cross-region inference profile (as in Strands Evals). */
export const DEFAULT_BEDROCK_MODEL = 'global.anthropic.claude-sonnet-4-6'

export interface BedrockJudgeOptions extends JudgeReliabilityOptions {
  /** Model or inference-profile id. Default `global.anthropic.claude-sonnet-4-6`. */
  model?: string
  /** Default: `AWS_REGION`, then `AWS_DEFAULT_REGION`, then the SDK's own chain (profile config). */
  region?: string
  /** A ready client (tests, custom credentials). Create it with `maxAttempts: 1` so our retries govern. */
  client?: BedrockRuntimeClient
  /** Extra config for the client this judge creates (credentials, endpoint, requestHandler). */
  clientConfig?: BedrockRuntimeClientConfig
  /** Default 0. */
  temperature?: number
  /** Default 4096: enough for reasoning plus a multi-aspect verdict. */
  maxOutputTokens?: number
}

/**
 * A judge backed by Amazon Bedrock's Converse API: images as bytes, structured output through a
 * forced tool call whose input schema is the reply schema, the shared retry policy and an adaptive
 * concurrency limiter. Credentials come from the AWS default chain; the client is created on first
 * use, so configuring it without credentials (e.g. cassette replay in CI) is fine.
 *
 * @example
 * const judge = bedrockJudge() // global.anthropic.claude-sonnet-4-6 in AWS_REGION
 * const eu = bedrockJudge({ model: 'eu.anthropic.claude-sonnet-4-6', region: 'eu-west-1' })
 */
export function bedrockJudge(options: BedrockJudgeOptions = {}): ReliableJudge & TokenCountingJudge {
  const model = options.model ?? DEFAULT_BEDROCK_MODEL
  const ctx = { provider: 'bedrock', model }
  let client = options.client

  const getClient = (): BedrockRuntimeClient => {
    // maxAttempts 1: the SDK's own retries would multiply ours and ignore our wait budget.
    client ??= new BedrockRuntimeClient({
      ...options.clientConfig,
      region: options.region ?? options.clientConfig?.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION,
      maxAttempts: 1,
    })
    return client
  }

  /**
   * Claude's own token count of a prompt (Bedrock `CountTokens`), so prompt budgets hold in the model's
   * tokens. Throws when the API is unavailable (region, model id, permission): callers fall back to o200k
   * with a margin.
   */
  const countTokens = async (system: string, user: string, signal?: AbortSignal): Promise<number | undefined> => {
    const response = await getClient().send(
      new CountTokensCommand({ modelId: model, input: { converse: { system: [{ text: system }], messages: [{ role: 'user', content: [{ text: user }] }] } } }),
      { abortSignal: signal },
    )
    return response.inputTokens
  }

  const judge = createReliableJudge('bedrock', model, async (request, signal) => {
    const toolName = request.schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'verdict'
    const input: ConverseCommandInput = {
      modelId: model,
      system: [{ text: request.system }],
      messages: [{ role: 'user', content: request.content.map(toBedrockBlock) }],
      inferenceConfig: { temperature: options.temperature ?? 0, maxTokens: request.maxOutputTokens ?? options.maxOutputTokens ?? 4096 },
      toolConfig: {
        tools: [{ toolSpec: { name: toolName, description: `Record the ${request.metric} verdict.`, inputSchema: { json: replyJsonSchema(request.schema) as never } } }],
        toolChoice: { tool: { name: toolName } },
      },
    }
    const response = await getClient().send(new ConverseCommand(input), { abortSignal: signal })
    const usage = { inputTokens: response.usage?.inputTokens ?? 0, outputTokens: response.usage?.outputTokens ?? 0 }
    const blocks = response.output?.message?.content ?? []
    const toolUse = blocks.find((b) => b.toolUse?.name === toolName)?.toolUse ?? blocks.find((b) => b.toolUse)?.toolUse
    const raw = JSON.stringify(toolUse?.input ?? blocks.map((b) => b.text ?? '').join(' '))
    const who = `bedrock:${model}`
    if (response.stopReason === 'max_tokens') {
      throw new JudgeOutputError(`${who} reply for ${request.metric} was cut off at the token limit; raise maxOutputTokens`, { ...ctx, raw, usage, retryable: false })
    }
    if (!toolUse) throw new JudgeOutputError(`${who} did not call the ${toolName} tool for ${request.metric} (stopReason ${response.stopReason})`, { ...ctx, raw, usage })
    return { output: validateJudgeOutput(toolUse.input, request.schema, { ...ctx, metric: request.metric, raw, usage }), usage }
  }, options)
  return Object.assign(judge, { countTokens })
}

function toBedrockBlock(part: ContentPart): ContentBlock {
  if (part.type === 'text') return { text: part.text }
  return { image: { format: part.format, source: { bytes: part.bytes } } }
}
