// A judge call made by the run's coordinator on a worker's behalf (decision 0032): an OpenAI-compatible
// judge's request leaves from the runner's main process, which waits for the workers anyway, so a worker
// loads no provider SDK and spends no time on HTTP. What crosses the loopback socket, both ways, is here.
import {
  JudgeAbortError,
  JudgeAuthError,
  JudgeError,
  type JudgeErrorContext,
  type JudgeNetworkFailure,
  JudgeOutputError,
  JudgeRateLimitError,
  JudgeRequestError,
  JudgeServiceError,
  JudgeTimeoutError,
} from './errors'

/** The OpenAI client a call is made with, every value resolved in the worker (its env, its options). */
export interface RemoteClientOptions {
  apiKey: string
  baseURL?: string
  defaultHeaders?: Record<string, string>
  /** `null` keeps the main process's `OPENAI_ORG_ID` out of it. */
  organization: string | null
  /** `null` keeps the main process's `OPENAI_PROJECT_ID` out of it. */
  project: string | null
}

/** One chat-completions request, as the worker built it. */
export interface RemoteCall {
  client: RemoteClientOptions
  ctx: JudgeErrorContext
  body: unknown
  /** The judge's reply limit (`maxReplyBytes`), enforced where the reply is read; the default without. */
  maxReplyBytes?: number
}

/** A classified judge failure, as plain data. */
export interface WireJudgeError {
  name: string
  message: string
  provider: string
  model: string
  status?: number
  retryable: boolean
  network?: JudgeNetworkFailure
  retryAfterMs?: number
  cause?: { name: string; message: string; code?: string }
}

/**
 * What the coordinator answers: the completion, the classified error, or `refused` (wrong token, no
 * judge host there), on which the worker makes the call itself.
 */
export type RemoteResult =
  | { ok: true; completion: unknown }
  | { ok: false; error: WireJudgeError }
  | { ok: false; refused: true }

/** A message line stays under the socket reader's limit; a larger request (big images) is sent from the worker. */
export const MAX_REMOTE_LINE = 16 * 1024 * 1024

/**
 * The judge error a worker throws for a failure the coordinator classified: the same class, message,
 * status, `retryable`, `network` and `retry-after`, so the retry policy and the report treat it exactly as
 * if the worker had made the call.
 *
 * @example
 * throw judgeErrorFromWire(result.error)
 */
export function judgeErrorFromWire(wire: WireJudgeError): JudgeError {
  const ctx = { provider: String(wire.provider), model: String(wire.model) }
  const cause = wire.cause ? Object.assign(new Error(wire.cause.message), wire.cause) : undefined
  const base = {
    ...ctx,
    ...(typeof wire.status === 'number' ? { status: wire.status } : {}),
    ...(wire.network ? { network: wire.network } : {}),
    ...(cause ? { cause } : {}),
  }
  const message = String(wire.message)
  switch (wire.name) {
    case 'JudgeRateLimitError':
      return new JudgeRateLimitError(message, {
        ...base,
        ...(typeof wire.retryAfterMs === 'number' ? { retryAfterMs: wire.retryAfterMs } : {}),
      })
    case 'JudgeTimeoutError':
      return new JudgeTimeoutError(message, base)
    case 'JudgeServiceError':
      return new JudgeServiceError(message, base)
    case 'JudgeAuthError':
      return new JudgeAuthError(message, base)
    case 'JudgeRequestError':
      return new JudgeRequestError(message, base)
    case 'JudgeOutputError':
      // A reply refused in the coordinator (too large, corrupt, too deep): no excerpt crosses the socket.
      return new JudgeOutputError(message, { ...base, raw: '', retryable: wire.retryable === true })
    case 'JudgeAbortError':
      return new JudgeAbortError({ ...ctx, ...(cause ? { cause } : {}) })
    default:
      return new JudgeError(message, { ...base, retryable: wire.retryable === true })
  }
}

/**
 * A judge error as plain data for the socket (the inverse of {@link judgeErrorFromWire}).
 *
 * @example
 * send({ t: 'done', id, result: { ok: false, error: judgeErrorToWire(error) } })
 */
export function judgeErrorToWire(error: JudgeError): WireJudgeError {
  const cause = error.cause instanceof Error ? error.cause : undefined
  const code = (cause as { code?: unknown } | undefined)?.code
  return {
    name: error.name,
    message: error.message,
    provider: error.provider,
    model: error.model,
    ...(error.status !== undefined ? { status: error.status } : {}),
    retryable: error.retryable,
    ...(error.network ? { network: error.network } : {}),
    ...(error instanceof JudgeRateLimitError && error.retryAfterMs !== undefined
      ? { retryAfterMs: error.retryAfterMs }
      : {}),
    ...(cause
      ? { cause: { name: cause.name, message: cause.message, ...(typeof code === 'string' ? { code } : {}) } }
      : {}),
  }
}

/** What a worker rejects with when its caller aborts a remote call: what the SDK's abort is classified as. */
export function remoteAbortError(): Error {
  const err = new Error('Request was aborted.')
  err.name = 'AbortError'
  return err
}
