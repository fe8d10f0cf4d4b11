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
import { redactUrl, registerSecret } from '../config/secrets'
import { loadBedrock } from './sdk'
import { guardBedrockReplies } from './bedrock-reply'
import { checkReplyValue } from './reply-body'
import { replyLimits, replyProgressOf, watchSignal } from './reply-watch'
import type { TokenCountingJudge } from './tokenizer'
import type { ContentPart } from './types'
import { readUsage } from './read-usage'
import { cutOffAdvice, outputTokensFor } from './output-limit'

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
  /** Bytes of a reply read at most, compressed and decompressed (default 8 MB): a larger reply is unjudgeable. */
  maxReplyBytes?: number
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

  const limits = replyLimits(options.maxReplyBytes)
  const getClient = async (): Promise<BedrockRuntimeClient> => {
    if (client) {
      // A client of the user's too: its replies are read under the same limits (the wrapper goes on once).
      guardBedrockReplies(client)
      return registeringIdentity(client)
    }
    const { BedrockRuntimeClient: Client } = await loadBedrock()
    // maxAttempts 1: the SDK's own retries would multiply ours and ignore our wait budget.
    client ??= new Client({
      ...options.clientConfig,
      ...(credentials ? { credentials } : {}),
      region: regionNow(),
      maxAttempts: 1,
    })
    guardBedrockReplies(client)
    return registeringIdentity(client)
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
          maxTokens: outputTokensFor(request, options.maxOutputTokens, false),
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
      watchSignal(signal, { limits, progress: replyProgressOf(signal) })
      const response = await bedrock.send(command, { abortSignal: signal })
      // The request handler checked the bytes; a handler that is not a stream (a mock) is checked here.
      checkReplyValue(response.output)
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
      if (stop === 'max_tokens')
        throw refuse(
          `reply was cut off at its length limit (stopReason max_tokens) ${cutOffAdvice({ limit: input.inferenceConfig?.maxTokens ?? 0, produced: response.usage?.outputTokens, compatible: false })}`,
          false,
        )
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
    { ...options, endpoint: bedrockEndpoint(options, region) },
  )
  return Object.assign(judge, { countTokens })
}

/**
 * Where the judge's requests go, for messages: a configured endpoint (`clientConfig.endpoint`, then
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, then `AWS_ENDPOINT_URL`, as the SDK ranks them), else the region's
 * default endpoint. Never with credentials or a query.
 */
function bedrockEndpoint(options: BedrockJudgeOptions, region: unknown): string {
  const configured = options.clientConfig?.endpoint
  const env = process.env
  const fromEnv =
    env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true'
      ? undefined
      : (env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? env.AWS_ENDPOINT_URL)
  const given =
    typeof configured === 'string'
      ? configured
      : configured && typeof configured === 'object' && 'hostname' in configured
        ? `${configured.protocol ?? 'https:'}//${configured.hostname}${configured.port ? `:${configured.port}` : ''}${configured.path ?? ''}`
        : configured && typeof configured === 'object' && 'url' in configured
          ? String((configured as { url: unknown }).url)
          : options.client
            ? undefined
            : fromEnv?.trim() || undefined
  if (given) return redactUrl(given)
  if (options.client) return 'Bedrock (the endpoint of the client passed in)'
  return typeof region === 'string'
    ? `https://bedrock-runtime.${region}.amazonaws.com`
    : 'Bedrock (region from the AWS config)'
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

const IDENTITY_MIDDLEWARE = 'agentVerdictRegisterIdentity'
const withIdentityHook = new WeakSet<object>()

/**
 * Registers, before each request is signed, the identity the SDK resolved for it — from the environment, a
 * shared credentials or config profile, the SSO cache, a credential process, web identity or instance
 * metadata alike — so a judge or an error that echoes a session token, key or bearer token is scrubbed. The
 * SDK keeps the selected identity on the request's smithy context (`__smithy_context.selectedHttpAuthScheme`),
 * set in its serialize step, so a finalize-step middleware reads it whatever its source was.
 */
function registeringIdentity(client: BedrockRuntimeClient): BedrockRuntimeClient {
  if (withIdentityHook.has(client)) return client
  withIdentityHook.add(client)
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const smithy = (context as { __smithy_context?: { selectedHttpAuthScheme?: { identity?: unknown } } })
        .__smithy_context
      const identity = smithy?.selectedHttpAuthScheme?.identity as (AwsCredentials & { token?: string }) | undefined
      registerSecret(identity?.accessKeyId)
      registerSecret(identity?.secretAccessKey)
      registerSecret(identity?.sessionToken)
      registerSecret(identity?.token)
      return next(args)
    },
    { step: 'finalizeRequest', name: IDENTITY_MIDDLEWARE, override: true },
  )
  return client
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
