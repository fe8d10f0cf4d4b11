// OpenAI wire shapes the fake judge sends: chat.completion bodies, error bodies and usage estimates.

/** Token usage in OpenAI's shape. */
export interface WireUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

/** Usage from counted prompt and completion tokens. */
export function usageOf(prompt: number, completion: number): WireUsage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

/** Rough OpenAI-like count: ~4 characters a token, 85 tokens per (low-detail) image. */
export function estimateUsage(promptChars: number, imageCount: number, completionChars: number): WireUsage {
  const prompt = Math.ceil(promptChars / 4) + 85 * imageCount
  const completion = Math.ceil(completionChars / 4)
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

/** A non-streaming `chat.completion` object; `content` null with `choices` empty for the empty-choices fault. */
export function chatCompletion(options: {
  n: number
  model: string
  content: string | null
  usage: WireUsage
}): Record<string, unknown> {
  return {
    id: `chatcmpl-fake-${options.n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: options.model,
    choices:
      options.content === null
        ? []
        : [
            {
              index: 0,
              message: { role: 'assistant', content: options.content, refusal: null, annotations: [] },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
    usage: options.usage,
    system_fingerprint: 'fake-judge',
  }
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function errorBody(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param, code } }
}

const ERROR_TEXT: Record<number, [string, string, string]> = {
  429: [
    'Rate limit reached for fake-judge (injected rate-limit fault). Retry after the retry-after delay.',
    'requests',
    'rate_limit_exceeded',
  ],
  500: [
    'The server had an error while processing your request (injected server-error fault).',
    'server_error',
    'internal_error',
  ],
  502: ['Bad gateway (injected server-error fault).', 'server_error', 'bad_gateway'],
  503: [
    'The engine is currently overloaded, please try again later (injected server-error fault).',
    'server_error',
    'service_unavailable',
  ],
  504: ['Gateway timeout (injected server-error fault).', 'server_error', 'gateway_timeout'],
}

/** The error body for an injected HTTP-status fault. */
export function faultErrorBody(status: number): Record<string, unknown> {
  const [message, type, code] = ERROR_TEXT[status] ?? [
    `Injected server-error fault (HTTP ${status}).`,
    'server_error',
    'server_error',
  ]
  return errorBody(message, type, code)
}

/** Malformed judge output: the reply cut off mid-way, as a truncated generation looks; never parses as JSON. */
export function malformedContent(reply: string): string {
  return `${reply.slice(0, Math.max(1, Math.floor(reply.length / 2)))}… (fake judge: malformed-json fault, output cut off`
}
