import type OpenAI from 'openai'
import { ownTransportUsable, requestsInterceptedHere } from './fetch-choice'
import { newOpenAIClient } from './sdk'
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions'
import { JudgeConfigError, JudgeOutputError, type JudgeErrorContext } from './errors'
import { replyJsonSchema, strictJsonSchema } from './json-schema'
import { agreedVerdict, parseJudgeText } from './parse-output'
import { createReliableJudge, type JudgeReliabilityOptions, type ReliableJudge } from './reliable-judge'
import { judgeErrorFromWire, type RemoteClientOptions } from './remote-call'
import { checkReplyValue, ReplyBodyError } from './reply-body'
import { REPLY_WATCH, replyLimits, replyProgressOf } from './reply-watch'
import { attemptPermit, remoteJudgeCaller } from './run-limit'
import { presentKey, redactUrl, registerHeaderSecrets, registerSecret, urlCredentials } from '../config/secrets'
import type { ContentPart, JudgeRequest, JudgeUsage } from './types'
import { readUsage } from './read-usage'
import { cutOffAdvice, outputTokensFor } from './output-limit'

/** finish_reason values that end a whole reply: OpenAI's, and the end-of-sequence spellings of compatible servers. */
const NORMAL_FINISH = new Set(['stop', 'eos', 'eos_token', 'stop_sequence', 'end_turn'])

/**
 * The part of an OpenAI SDK client a judge uses: an `OpenAI` or `AzureOpenAI` instance of your own `openai`
 * package fits. Stated here, not imported: the SDK agent-verdict calls with is bundled, not a dependency (decision 0052).
 *
 * @example
 * const client: OpenAIClientLike = new OpenAI({ baseURL: 'https://gateway.example/v1' })
 */
export interface OpenAIClientLike {
  apiKey: string | null
  baseURL: string
  chat: { completions: { create(body: never, options?: never): unknown } }
}

export interface OpenAIJudgeOptions extends JudgeReliabilityOptions {
  model: string
  /** A ready client (tests, Azure, custom fetch). Its own retries are disabled per request. */
  client?: OpenAIClientLike
  /** Defaults to `OPENAI_API_KEY`; optional with `baseURL` (local servers ignore it). */
  apiKey?: string
  /** An OpenAI-compatible server (Ollama, vLLM, LM Studio): e.g. `http://127.0.0.1:11434/v1`. Never with `user:pass@`. */
  baseURL?: string
  /** Headers sent with every request (API gateways: `x-gateway-token`, `Ocp-Apim-Subscription-Key`). Every value is scrubbed from all output. */
  defaultHeaders?: Record<string, string>
  /** Judge id prefix; default `openai`, or `openai-compatible` when `baseURL` is set. */
  provider?: string
  /** Default 0; `null` omits it (automatic for reasoning models such as o3, o4-mini, gpt-5). */
  temperature?: number | null
  /**
   * Bytes of a reply read at most, compressed and decompressed (default 8 MB): a larger reply is unjudgeable.
   * Applies to requests this judge sends; a `client` of your own reads replies with its own fetch.
   */
  maxReplyBytes?: number
}

// The SDK loads on the first judge call, not when the setup file imports the matchers: a replayed run,
// a Bedrock judge or a file without judge assertions never pays for it (docs/decisions/0021).

/** Reasoning models reject `temperature`; they are asked without it. */
export function isReasoningModel(model: string): boolean {
  return /^(openai\/)?(o\d|gpt-5)/i.test(model)
}

/**
 * A judge backed by OpenAI chat completions (or any OpenAI-compatible server via `baseURL`), with
 * JSON-schema structured output (`strict: true`), images as data URLs, the shared retry policy and
 * an adaptive concurrency limiter. The client is created on first use, so configuring a judge
 * without a key (e.g. cassette replay in CI) is fine.
 *
 * @example
 * const judge = openaiJudge({ model: 'gpt-4.1' })
 * const local = openaiJudge({ model: 'llama3.2-vision', baseURL: 'http://127.0.0.1:11434/v1' })
 */
export function openaiJudge(options: OpenAIJudgeOptions): ReliableJudge {
  const { model, baseURL } = options
  if (!model) throw new JudgeConfigError('openaiJudge needs a model, e.g. { model: "gpt-4.1" }', { provider: 'openai' })
  const provider = options.provider ?? (baseURL ? 'openai-compatible' : 'openai')
  const ctx = { provider, model }
  registerSecret(options.apiKey)
  registerHeaderSecrets(options.defaultHeaders)
  if (options.client) registerClientSecrets(options.client)
  // The SDK falls back to OPENAI_BASE_URL: check (and name) the URL it will really use.
  const endpoint = baseURL ?? options.client?.baseURL ?? process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'
  if (urlCredentials(endpoint)) {
    throw new JudgeConfigError(
      `${provider}:${model} base URL "${redactUrl(endpoint)}" contains credentials (user:password@); remove them and pass the key as apiKey / OPENAI_API_KEY or a gateway header with defaultHeaders`,
      ctx,
    )
  }
  // Adapted per judge instance when a compatible server rejects an option (see the 400 handling below).
  const features = { jsonSchema: true, temperature: options.temperature !== null && !isReasoningModel(model) }
  let client = options.client as OpenAI | undefined
  const limits = replyLimits(options.maxReplyBytes)

  // An empty or blank key (`OPENAI_API_KEY=` in a .env file or CI secret that is not set) counts as no key: a
  // local server then gets the placeholder, and OpenAI itself a configuration error rather than a 401.
  const apiKeyOrThrow = (): string => {
    const apiKey =
      presentKey(options.apiKey) ?? presentKey(process.env.OPENAI_API_KEY) ?? (baseURL ? 'not-needed' : undefined)
    if (!apiKey) {
      const blank = process.env.OPENAI_API_KEY !== undefined || options.apiKey !== undefined
      throw new JudgeConfigError(
        `${provider}:${model} has no API key: ${blank ? 'OPENAI_API_KEY (or apiKey) is set but empty; put the key in it' : 'set OPENAI_API_KEY (or pass apiKey)'}`,
        ctx,
      )
    }
    return apiKey
  }

  const getClient = async (): Promise<OpenAI> => {
    if (client) return client
    const apiKey = apiKeyOrThrow()
    const created = await newOpenAIClient({
      apiKey,
      baseURL,
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    })
    client ??= created
    return client
  }

  // In a test run with a coordinator, the request leaves from the runner's main process (decision 0032);
  // not with a client of the caller's, nor when this process routes fetch through a proxy dispatcher or
  // intercepts HTTP requests (msw, nock), which would not see a request sent from another process.
  const createCompletion = async (
    body: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion> => {
    const remote =
      options.client || !ownTransportUsable() || requestsInterceptedHere() ? undefined : remoteJudgeCaller()
    // The attempt's permit, when its source deferred it to travel with the call (decision 0033).
    const permit = attemptPermit()
    if (remote) {
      // Resolved here, so a key or base URL a setup file put in this process's env is the one used.
      const base = baseURL ?? process.env.OPENAI_BASE_URL
      const target: RemoteClientOptions = {
        apiKey: apiKeyOrThrow(),
        ...(base ? { baseURL: base } : {}),
        ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
        organization: process.env.OPENAI_ORG_ID ?? null,
        project: process.env.OPENAI_PROJECT_ID ?? null,
      }
      const result = await remote.call(
        {
          client: target,
          ctx: { ...ctx, endpoint: redactUrl(endpoint) },
          body,
          ...(options.maxReplyBytes ? { maxReplyBytes: options.maxReplyBytes } : {}),
        },
        signal,
        permit?.carry(),
      )
      if (result?.ok) return result.completion as OpenAI.Chat.Completions.ChatCompletion
      if (result && 'error' in result) throw judgeErrorFromWire(result.error)
    }
    // Made here: take the attempt's slot first.
    await permit?.hold(signal)
    const openai = await getClient()
    return openai.chat.completions.create(body, {
      signal,
      maxRetries: 0,
      // Our transport reads the reply within the limit and notes its progress; another fetch ignores this.
      fetchOptions: { [REPLY_WATCH]: { limits, progress: replyProgressOf(signal) } } as never,
    })
  }

  return createReliableJudge(
    provider,
    model,
    async (request, signal) => {
      for (let adjustments = 0; ; adjustments++) {
        const body = buildBody(
          request,
          model,
          features,
          options.temperature ?? 0,
          Boolean(baseURL),
          options.maxOutputTokens,
        )
        try {
          const completion = completionOf(await createCompletion(body, signal))
          const who = `${provider}:${model}`
          const usage = readUsage(
            {
              inputTokens: ['usage.prompt_tokens', completion.usage?.prompt_tokens],
              outputTokens: ['usage.completion_tokens', completion.usage?.completion_tokens],
            },
            { ...ctx, metric: request.metric, raw: JSON.stringify(completion.usage) },
          )
          // A 200 that also carries an error (some gateways put one beside `choices`) is no verdict.
          const error = (completion as { error?: unknown }).error
          if (error !== undefined && error !== null)
            throw new JudgeOutputError(`${who} answered with an error beside its choices for ${request.metric}`, {
              ...ctx,
              raw: JSON.stringify(error),
              usage,
            })
          const choices = completion.choices ?? []
          if (choices.length === 0 || !choices[0])
            throw new JudgeOutputError(`${who} returned no choices for ${request.metric}`, {
              ...ctx,
              raw: JSON.stringify(completion),
              usage,
            })
          // One choice is asked for; a server that sends more gets every one checked, never "the first one".
          for (const choice of choices) {
            const text = typeof choice?.message?.content === 'string' ? choice.message.content : ''
            const offContract = offContractPart(choice)
            if (offContract)
              throw new JudgeOutputError(
                `${who} replied with ${offContract} for ${request.metric}; no tool was offered, so a reply carrying one is no verdict, whatever its content says`,
                { ...ctx, raw: JSON.stringify(choice.message ?? choice), usage },
              )
            if (choice?.message?.refusal) {
              throw new JudgeOutputError(`${who} refused to judge ${request.metric}: ${choice.message.refusal}`, {
                ...ctx,
                raw: choice.message.refusal,
                usage,
                retryable: false,
              })
            }
            if (choice?.finish_reason === 'length') {
              const limit = body.max_tokens ?? body.max_completion_tokens ?? 0
              throw new JudgeOutputError(
                `${who} reply for ${request.metric} was cut off at its length limit (finish_reason "length") ${cutOffAdvice({ limit, produced: completion.usage?.completion_tokens, compatible: Boolean(baseURL) })}`,
                { ...ctx, raw: text, usage, retryable: false },
              )
            }
            if (choice?.finish_reason === 'content_filter') {
              throw new JudgeOutputError(`${who} reply for ${request.metric} was blocked by the content filter`, {
                ...ctx,
                raw: text,
                usage,
                retryable: false,
              })
            }
            // Any other end than a normal stop (a gateway's "error", a safety stop, tool calls nobody asked for, a
            // reason added later) cut or replaced the reply: no verdict. Absent or null reads as a stop, as many
            // compatible servers send it; the end-of-sequence spellings of those servers are stops too.
            const finish = choice?.finish_reason as string | null | undefined
            if (finish !== undefined && finish !== null && !NORMAL_FINISH.has(finish)) {
              throw new JudgeOutputError(
                `${who} reply for ${request.metric} ended with finish_reason ${JSON.stringify(finish)}, not a normal stop`,
                { ...ctx, raw: text, usage, retryable: false },
              )
            }
          }
          const parse = { ...ctx, metric: request.metric, usage }
          const texts = choices.map((c) => replyText(c?.message, who, request.metric, { ...ctx, usage }))
          if (texts.length === 1) return { output: parseJudgeText(texts[0], request.schema, parse), usage }
          return {
            output: agreedVerdict(
              texts.map((t) => parseJudgeText(t, request.schema, parse)),
              request.schema,
              { ...parse, raw: texts.join('\n') },
            ),
            usage,
          }
        } catch (err) {
          if (adjustments < 2 && adapt(err, body, features, Boolean(baseURL))) continue
          throw err
        }
      }
    },
    // A judge on the user's own client never has its calls made by the coordinator: its permits are not deferred.
    { ...options, endpoint: redactUrl(endpoint), remoteCalls: !options.client },
  )
}

/**
 * The reply as a chat completion, or a `ReplyBodyError` naming what it is instead: nothing (a 204 or an empty
 * body), text (a non-JSON content type), or an object whose `choices` is no array. Whatever client read it, the
 * value is held to the reply rules first (depth, keys, strings): a client of the user's parses replies itself.
 */
function completionOf(reply: unknown): OpenAI.Chat.Completions.ChatCompletion {
  if (reply === null || reply === undefined)
    throw new ReplyBodyError(
      'empty',
      'answered with no content (HTTP 204 or an empty body), not a chat completion; the server failed to produce a reply',
    )
  if (typeof reply === 'string')
    throw new ReplyBodyError(
      'not-json',
      `answered with text, not a JSON chat completion: "${reply.replace(/\s+/g, ' ').trim().slice(0, 80)}" — check the base URL points at a chat-completions API`,
    )
  if (typeof reply !== 'object' || Array.isArray(reply))
    throw new ReplyBodyError(
      'not-object',
      `answered with ${Array.isArray(reply) ? 'a JSON array' : `a ${typeof reply}`}, not a chat completion object`,
    )
  checkReplyValue(reply)
  const choices = (reply as { choices?: unknown }).choices
  if (choices !== undefined && choices !== null && !Array.isArray(choices))
    throw new ReplyBodyError(
      'not-object',
      `sent "choices" as ${typeof choices === 'object' ? 'an object' : `a ${typeof choices}`}, not an array of choices; the server does not speak the chat-completions format`,
    )
  return reply as OpenAI.Chat.Completions.ChatCompletion
}

/**
 * What a choice carries besides its text verdict, if anything: tool calls, a legacy `function_call`, or an
 * error. None was asked for (no tools are offered), so each is a second, disagreeing or broken, candidate.
 */
function offContractPart(choice: unknown): string | undefined {
  const c = choice as { error?: unknown; message?: { tool_calls?: unknown; function_call?: unknown } } | null
  if (c?.error !== undefined && c.error !== null) return 'an error in its choice'
  const calls = c?.message?.tool_calls
  if (calls !== undefined && calls !== null && !(Array.isArray(calls) && calls.length === 0))
    return 'tool calls (tool_calls)'
  const legacy = c?.message?.function_call
  if (legacy !== undefined && legacy !== null) return 'a function call (function_call)'
  return undefined
}

/** A client built elsewhere still holds our credentials: its key and every default header value. */
function registerClientSecrets(client: OpenAIClientLike): void {
  registerSecret(client.apiKey)
  // The SDK keeps constructor options on `_options`; read defensively, it is not public API.
  const headers = (client as unknown as { _options?: { defaultHeaders?: Record<string, unknown> } })._options
    ?.defaultHeaders
  registerHeaderSecrets(headers)
}

/**
 * Drops an option a server rejected with a 400 that names it; true when a retry is worth it. Looks at
 * the body that was sent, so concurrent calls that all hit the same 400 all retry.
 */
function adapt(
  err: unknown,
  sent: ChatCompletionCreateParamsNonStreaming,
  features: { jsonSchema: boolean; temperature: boolean },
  compatible: boolean,
): boolean {
  const e = err as { status?: unknown; message?: unknown }
  if (e?.status !== 400 || typeof e.message !== 'string') return false
  if (sent.temperature !== undefined && /temperature/i.test(e.message)) {
    features.temperature = false
    return true
  }
  // Only compatible servers fall back: on OpenAI itself a json_schema 400 is our bug and must surface.
  if (compatible && sent.response_format?.type === 'json_schema' && /response_format|json_schema/i.test(e.message)) {
    features.jsonSchema = false
    return true
  }
  return false
}

/**
 * The chat-completions body a judge request is sent as (also the body of a batch line). It always carries an
 * output bound: the judge's `maxOutputTokens`, else the request's (see outputTokensFor).
 */
export function buildBody(
  request: JudgeRequest<unknown>,
  model: string,
  features: { jsonSchema: boolean; temperature: boolean },
  temperature: number,
  compatible: boolean,
  maxOutputTokens?: number,
): ChatCompletionCreateParamsNonStreaming {
  const name = request.schemaName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'verdict'
  const system = features.jsonSchema
    ? request.system
    : `${request.system}\n\nReply with one JSON object that matches this JSON schema, and nothing else:\n${JSON.stringify(replyJsonSchema(request.schema))}`
  const body: ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: request.content.map(toOpenAIPart) },
    ],
    response_format: features.jsonSchema
      ? { type: 'json_schema', json_schema: { name, strict: true, schema: strictJsonSchema(request.schema) } }
      : { type: 'json_object' },
  }
  if (features.temperature) body.temperature = temperature
  // OpenAI deprecated max_tokens (reasoning models reject it); compatible servers still expect it.
  const limit = outputTokensFor(request, maxOutputTokens, !compatible && isReasoningModel(model))
  if (compatible) body.max_tokens = limit
  else body.max_completion_tokens = limit
  return body
}

function toOpenAIPart(part: ContentPart): ChatCompletionContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text }
  const base64 = Buffer.from(part.bytes).toString('base64')
  return { type: 'image_url', image_url: { url: `data:image/${part.format};base64,${base64}` } }
}

/**
 * A choice's reply as text: the string content, or the text parts of a content array (some OpenAI-compatible
 * servers send `[{ type: 'text', text }]`). Content of another type is no verdict, said as such (tool calls are
 * refused before, see offContractPart).
 */
function replyText(
  message: { content?: unknown } | undefined,
  who: string,
  metric: string,
  ctx: JudgeErrorContext & { usage?: JudgeUsage },
): string {
  const content = message?.content
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    const parts = content as Array<{ type?: unknown; text?: unknown }>
    if (parts.every((p) => p && typeof p === 'object' && p.type === 'text' && typeof p.text === 'string'))
      return parts.map((p) => p.text as string).join('')
  }
  if (content === null || content === undefined) return ''
  throw new JudgeOutputError(
    `${who} replied with message content of type ${Array.isArray(content) ? 'array (not only text parts)' : typeof content} for ${metric}; a verdict is text`,
    { ...ctx, raw: JSON.stringify(content) },
  )
}
