import type {
  BedrockRuntimeClient,
  BedrockRuntimeClientConfig,
  ContentBlock,
  ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime'
import { DEFAULT_BEDROCK_MODEL } from '../config/judge-spec'
import { JudgeOutputError } from './errors'
import { replyJsonSchema } from './json-schema'
import { captureRawReply } from './bedrock-raw'
import { inexactNumber } from './exact-numbers'
import { agreedVerdict, parseJudgeText, parseReplyDocument, roundedNumberError, wholeDocument } from './parse-output'
import { createReliableJudge, type JudgeReliabilityOptions, type ReliableJudge } from './reliable-judge'
import { registerSecret } from '../config/secrets'
import { loadBedrock } from './sdk'
import type { TokenCountingJudge } from './tokenizer'
import type { ContentPart } from './types'
import { readUsage } from './read-usage'

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
      const command = new sdk.ConverseCommand(input)
      const sent = captureRawReply(command)
      const response = await bedrock.send(command, { abortSignal: signal })
      const usage = readUsage(
        {
          inputTokens: ['usage.inputTokens', response.usage?.inputTokens],
          outputTokens: ['usage.outputTokens', response.usage?.outputTokens],
        },
        { ...ctx, metric: request.metric, raw: sent.body ?? '' },
      )
      const blocks = response.output?.message?.content ?? []
      const tools = blocks.flatMap((b) => (b.toolUse ? [b.toolUse] : []))
      const texts = blocks.flatMap((b) => (typeof b.text === 'string' && b.text.trim() !== '' ? [b.text] : []))
      const raw = sent.body ?? JSON.stringify(blocks)
      const who = `bedrock:${model}`
      const parse = { ...ctx, metric: request.metric, raw, usage }
      const refuse = (why: string, retryable = true) =>
        new JudgeOutputError(`${who} ${why} for ${request.metric}`, { ...parse, retryable })
      // A 200 that also says it is an error is no verdict, whatever its body holds.
      const marker = sent.headers['x-amzn-errortype']
      if (marker) throw refuse(`answered 200 with the error header x-amzn-errortype: ${marker}`)
      const stop = response.stopReason
      if (stop === 'max_tokens') throw refuse('reply was cut off at the token limit; raise maxOutputTokens', false)
      // Only the normal end and the forced tool end a verdict; a filter, a guardrail, a full context window or a
      // stop this code does not know cut or replace it.
      if (stop !== 'end_turn' && stop !== 'tool_use')
        throw refuse(`stopped with stopReason ${JSON.stringify(stop ?? null)} (not end_turn or tool_use)`, false)
      // The tool input is read from the body as sent: the SDK's JSON.parse has rounded its numbers.
      const rounded = sent.body === undefined ? undefined : inexactNumber(sent.body)
      if (rounded !== undefined) throw roundedNumberError(rounded, sent.body ?? '', parse)
      const wrongTool = tools.find((t) => t.name !== toolName)
      if (wrongTool) throw refuse(`called the tool ${JSON.stringify(wrongTool.name ?? null)}, not ${toolName}`)
      if (tools.length === 0) {
        // Converse text (a model that ignored the forced tool): held to the same whole-reply rule, in one block.
        if (texts.length === 0) throw refuse(`did not call the ${toolName} tool (stopReason ${stop})`)
        if (texts.length > 1)
          throw refuse(`split its text reply across ${texts.length} blocks (a verdict is one whole document)`)
        return { output: parseJudgeText(texts[0], request.schema, parse), usage }
      }
      // Every tool call is a candidate verdict, and so is every text block that is JSON as a whole (a verdict,
      // or something trying to be one): they must all be valid and agree, or there is no verdict. Prose is not.
      const candidates: unknown[] = tools.map((t) => t.input)
      // A text verdict giving a key twice, or a rounded number, is no verdict: parseReplyDocument refuses it.
      for (const text of texts) if (isJsonText(text)) candidates.push(parseReplyDocument(text, parse))
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

/** Whether a text block is, as a whole, one JSON document (prose around a tool call is not). */
function isJsonText(text: string): boolean {
  try {
    JSON.parse(wholeDocument(text))
    return true
  } catch {
    return false
  }
}
