import type {
  BedrockRuntimeClient,
  BedrockRuntimeClientConfig,
  ContentBlock,
  ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime'
import type { z } from 'zod'
import { DEFAULT_BEDROCK_MODEL } from '../config/judge-spec'
import { JudgeOutputError } from './errors'
import { replyJsonSchema } from './json-schema'
import { agreedVerdict, parseJudgeText, parseReplyDocument, wholeDocument } from './parse-output'
import { createReliableJudge, type JudgeReliabilityOptions, type ReliableJudge } from './reliable-judge'
import { registerSecret } from '../config/secrets'
import { loadBedrock } from './sdk'
import type { TokenCountingJudge } from './tokenizer'
import type { ContentPart } from './types'
import { usageFromCounts } from './usage'

// The SDK (about 170 ms to import) loads on the first judge call, not with the setup file (docs/decisions/0021).

// Claude Sonnet 4.6 through the global cross-region inference profile (as in Strands Evals); it lives in
// src/config because `AGENT_VERDICT_JUDGE=bedrock` resolves to it there, and is exported here with the judge.
export { DEFAULT_BEDROCK_MODEL }

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
  const regionNow = () =>
    options.region ?? options.clientConfig?.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION
  const region = regionNow()
  const credentials = registeringCredentials(options.clientConfig?.credentials)

  const getClient = async (): Promise<BedrockRuntimeClient> => {
    if (client) return client
    const { BedrockRuntimeClient: Client } = await loadBedrock()
    // maxAttempts 1: the SDK's own retries would multiply ours and ignore our wait budget.
    client ??= new Client({
      ...options.clientConfig,
      ...(credentials ? { credentials } : {}),
      region: regionNow(),
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
    const [sdk, bedrock] = await Promise.all([loadBedrock(), getClient()])
    const response = await bedrock.send(
      new sdk.CountTokensCommand({
        modelId: model,
        input: { converse: { system: [{ text: system }], messages: [{ role: 'user', content: [{ text: user }] }] } },
      }),
      { abortSignal: signal },
    )
    return response.inputTokens
  }

  const judge = createReliableJudge(
    'bedrock',
    model,
    async (request, signal) => {
      const toolName = request.schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'verdict'
      const input: ConverseCommandInput = {
        modelId: model,
        system: [{ text: request.system }],
        messages: [{ role: 'user', content: request.content.map(toBedrockBlock) }],
        inferenceConfig: {
          temperature: options.temperature ?? 0,
          maxTokens: request.maxOutputTokens ?? options.maxOutputTokens ?? 4096,
        },
        toolConfig: {
          tools: [
            {
              toolSpec: {
                name: toolName,
                description: `Record the ${request.metric} verdict.`,
                inputSchema: { json: replyJsonSchema(request.schema) as never },
              },
            },
          ],
          toolChoice: { tool: { name: toolName } },
        },
      }
      const [sdk, bedrock] = await Promise.all([loadBedrock(), getClient()])
      const response = await bedrock.send(new sdk.ConverseCommand(input), { abortSignal: signal })
      const usage = usageFromCounts(response.usage, ['inputTokens', 'outputTokens'])
      const blocks = response.output?.message?.content ?? []
      const tools = blocks.flatMap((b) => (b.toolUse ? [b.toolUse] : []))
      const text = blocks.map((b) => b.text ?? '').join('\n')
      const raw =
        tools.length > 0 ? JSON.stringify(tools.length === 1 ? tools[0].input : tools.map((t) => t.input)) : text
      const who = `bedrock:${model}`
      const parse = { ...ctx, metric: request.metric, raw, usage }
      if (response.stopReason === 'max_tokens') {
        throw new JudgeOutputError(
          `${who} reply for ${request.metric} was cut off at the token limit; raise maxOutputTokens`,
          { ...ctx, raw, usage, retryable: false },
        )
      }
      if (tools.length === 0) {
        // Converse text (a model that ignored the forced tool): held to the same whole-reply rule.
        if (text.trim() === '')
          throw new JudgeOutputError(
            `${who} did not call the ${toolName} tool for ${request.metric} (stopReason ${response.stopReason})`,
            parse,
          )
        return { output: parseJudgeText(text, request.schema, parse), usage }
      }
      // Every tool call is a candidate verdict, and so is a text block that is itself a whole verdict:
      // they must agree, or there is no verdict.
      const candidates: unknown[] = tools.map((t) => t.input)
      // A text verdict giving a key twice is no verdict: parseReplyDocument refuses it.
      for (const b of blocks)
        if (b.text !== undefined && isVerdictText(b.text, request.schema))
          candidates.push(parseReplyDocument(b.text, parse))
      return { output: agreedVerdict(candidates, request.schema, parse), usage }
    },
    {
      ...options,
      endpoint:
        typeof region === 'string'
          ? `https://bedrock-runtime.${region}.amazonaws.com`
          : 'Bedrock (region from the AWS config)',
    },
  )
  return Object.assign(judge, { countTokens })
}

type AwsCredentials = { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string }

/** Static AWS credentials are registered for scrubbing now; a provider function's as soon as it resolves them. */
function registeringCredentials(
  credentials: BedrockRuntimeClientConfig['credentials'],
): BedrockRuntimeClientConfig['credentials'] {
  const register = (c: AwsCredentials | undefined) => {
    registerSecret(c?.accessKeyId)
    registerSecret(c?.secretAccessKey)
    registerSecret(c?.sessionToken)
  }
  if (typeof credentials === 'function') {
    const provider = credentials
    return (async (...args: Parameters<typeof provider>) => {
      const resolved = await provider(...args)
      register(resolved)
      return resolved
    }) as typeof credentials
  }
  if (credentials && typeof credentials === 'object') register(credentials as AwsCredentials)
  return credentials
}

function toBedrockBlock(part: ContentPart): ContentBlock {
  if (part.type === 'text') return { text: part.text }
  return { image: { format: part.format, source: { bytes: part.bytes } } }
}

/** Whether a text block is, as a whole, a document the schema accepts (prose around a tool call is not). */
function isVerdictText(text: string, schema: z.ZodType): boolean {
  try {
    return schema.safeParse(JSON.parse(wholeDocument(text))).success
  } catch {
    return false
  }
}
