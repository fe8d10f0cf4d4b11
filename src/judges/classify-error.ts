import {
  JudgeAbortError,
  JudgeAuthError,
  JudgeConfigError,
  JudgeError,
  type JudgeErrorContext,
  JudgeOutputError,
  JudgeRateLimitError,
  JudgeRequestError,
  JudgeServiceError,
  JudgeTimeoutError,
} from './errors'
import { headerValue, parseRetryAfter, type HeaderSource } from './retry-after'
import { replyBodyErrorIn } from './reply-body'
import { redactUrl, scrubSecrets } from '../config/secrets'
import { contextOverflowAdvice, isContextOverflow } from './output-limit'

/**
 * The one retry policy for HTTP statuses (the same rules as the official OpenAI SDK).
 *
 * @example
 * isRetryableStatus(429) // true
 * isRetryableStatus(400) // false
 */
export function isRetryableStatus(status: number): boolean {
  if (status === 408) return true // request timeout: the server gave up waiting; a new attempt usually succeeds
  if (status === 409) return true // conflict/lock timeout: transient contention on the server side
  if (status === 429) return true // rate limit: wait as told (retry-after) and try again
  if (status >= 500) return true // server error: the service's fault and usually transient
  return false // any other 4xx: the same request fails the same way again
}

/** Socket-level failures worth another attempt: the request may never have reached the server. */
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_INVALID_SESSION',
])
/** Nothing took the connection: retrying for a minute cannot start a server (a few quick tries cover a restart). */
const REFUSED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EADDRNOTAVAIL'])
/** Certificate and handshake failures: the same server fails the same way again. */
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'HOSTNAME_MISMATCH',
])
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** Bedrock (smithy) exception names → what they mean for us. */
const BEDROCK_RATE_LIMIT = new Set(['ThrottlingException', 'TooManyRequestsException'])
const BEDROCK_SERVICE = new Set([
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelNotReadyException',
  'InternalFailure',
])
const BEDROCK_TIMEOUT = new Set(['ModelTimeoutException', 'RequestTimeout', 'RequestTimeoutException'])
const BEDROCK_REQUEST = new Set([
  'ValidationException',
  'ResourceNotFoundException',
  'ServiceQuotaExceededException',
  'ModelErrorException',
  'ConflictException',
])
const AUTH_NAMES = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'ExpiredTokenException',
  'InvalidSignatureException',
  'IncompleteSignature',
  'AuthenticationError',
  'PermissionDeniedError',
])
const CONFIG_NAMES = new Set(['CredentialsProviderError'])

/**
 * Maps any error from a provider SDK, fetch or the socket layer to a JudgeError with the right
 * subclass and `retryable` flag. Duck-typed (names, status, codes) so it works whichever copy of an
 * SDK raised it. Messages and causes are scrubbed of API keys and Authorization headers.
 *
 * @example
 * try { await client.chat.completions.create(body) }
 * catch (err) { throw classifyJudgeError(err, { provider: 'openai', model: 'gpt-4.1' }) }
 */
export function classifyJudgeError(err: unknown, ctx: JudgeErrorContext): JudgeError {
  if (err instanceof JudgeError) return err
  // biome-ignore lint/suspicious/noExplicitAny: errors of two SDKs and of fetch, read field by field
  const e = (err ?? {}) as Record<string, any>
  const names = classNames(err)
  const codes = findCodes(err)
  const code =
    codes.find((c) => CONNECTION_CODES.has(c) || TIMEOUT_CODES.has(c) || TLS_CODES.has(c) || c === 'ENOTFOUND') ??
    codes[0]
  const status = httpStatus(e)
  const detail = scrubSecrets(describe(err))
  const who = `${ctx.provider}:${ctx.model}`
  // Network and timeout failures are about a place: name it (never with credentials).
  const whoAt = ctx.endpoint ? `${who} at ${ctx.endpoint}` : who
  const base = { ...ctx, status, cause: err }

  if (names.has('APIUserAbortError') || e.name === 'AbortError' || code === 'ABORT_ERR')
    return new JudgeAbortError({ ...ctx, cause: err })
  // A reply refused as it was read (too large, corrupt compression, too deep, …): the judge answered, with no
  // verdict, and the message says why; never "is the server reachable?".
  const refusedReply = replyBodyErrorIn(err)
  if (refusedReply)
    return new JudgeOutputError(`${who} ${refusedReply.message}`, {
      ...ctx,
      raw: '',
      retryable: refusedReply.retryable,
      cause: refusedReply,
    })
  if (CONFIG_NAMES.has(e.name) || /region is missing|missing credentials/i.test(detail)) {
    return new JudgeConfigError(`${who} is not configured: ${detail}`, { ...ctx, cause: err })
  }
  // Bedrock throttling is the SDK's own name for a 429: retry after backing off.
  if (BEDROCK_RATE_LIMIT.has(e.name) || status === 429) {
    const retryAfterMs = parseRetryAfter(headersOf(e))
    return new JudgeRateLimitError(`${who} rate limited${status ? ` (${status})` : ''}: ${detail}`, {
      ...base,
      retryAfterMs,
    })
  }
  // Timeouts (ours, the SDK's, the model's, the socket's) are transient: try again.
  if (
    names.has('APIConnectionTimeoutError') ||
    BEDROCK_TIMEOUT.has(e.name) ||
    (code && TIMEOUT_CODES.has(code)) ||
    (e.name === 'TimeoutError' && !(code && CONNECTION_CODES.has(code)))
  ) {
    return new JudgeTimeoutError(`${whoAt} timed out: ${detail}; raise timeoutMs if the model is slow`, base)
  }
  if (
    AUTH_NAMES.has(e.name) ||
    names.has('AuthenticationError') ||
    names.has('PermissionDeniedError') ||
    status === 401 ||
    status === 403
  ) {
    return new JudgeAuthError(
      `${who} rejected the credentials${status ? ` (${status})` : ''}: ${detail}; check OPENAI_API_KEY / apiKey, or the AWS credentials and model access`,
      base,
    )
  }
  // Bedrock server-side failures and model warm-up are transient.
  if (BEDROCK_SERVICE.has(e.name))
    return new JudgeServiceError(`${who} service error${status ? ` (${status})` : ''}: ${detail}`, base)
  if (BEDROCK_REQUEST.has(e.name))
    return new JudgeRequestError(
      `${who} rejected the request${status ? ` (${status})` : ''}: ${detail}; check the model id and the input size`,
      base,
    )
  // A full context window (llama.cpp answers 500 or 400, OpenAI and vLLM 400): the same request overflows again,
  // so it is not retried, and the message says what to change.
  if (status !== undefined && status >= 400 && isContextOverflow(detail))
    return new JudgeRequestError(`${who} answered ${status}: ${detail}; ${contextOverflowAdvice()}`, base)
  // Redirects are not followed (a judge request is a POST with credentials): say where it points.
  if (status !== undefined && status >= 300 && status < 400)
    return new JudgeRequestError(
      redirectMessage(who, status, headerValue(headersOf(e), 'location'), ctx.endpoint),
      base,
    )
  if (status !== undefined) {
    if (isRetryableStatus(status)) return new JudgeServiceError(`${who} service error (${status}): ${detail}`, base)
    return new JudgeRequestError(
      `${who} rejected the request (${status}): ${detail}; check the model id, options and input size`,
      base,
    )
  }
  // An unknown host does not appear by waiting: a wrong region or base URL, or no network.
  if (codes.includes('ENOTFOUND')) {
    return new JudgeError(
      `${whoAt} cannot resolve the judge's host (DNS, ENOTFOUND): ${detail}; check the region or base URL, and the network`,
      { ...base, retryable: false, network: 'dns' },
    )
  }
  // A temporary DNS failure may clear in a moment: a few quick tries only.
  if (codes.includes('EAI_AGAIN')) {
    return new JudgeServiceError(
      `${whoAt} cannot resolve the judge's host right now (DNS, EAI_AGAIN): ${detail}; check the network and the base URL`,
      { ...base, network: 'dns' },
    )
  }
  // A certificate the client rejects is rejected again on the next try.
  const tls =
    codes.find((c) => TLS_CODES.has(c)) ??
    (/certificate|ssl routines|tls handshake|wrong version number/i.test(detail) ? 'TLS' : undefined)
  if (tls) {
    return new JudgeError(
      `${whoAt} TLS handshake failed (${tls}): ${detail}; check the base URL's scheme (http vs https) and the server's certificate (NODE_EXTRA_CA_CERTS for a private CA)`,
      { ...base, retryable: false, network: 'tls' },
    )
  }
  // Nothing listens there: a few quick tries cover a restarting server, a minute of retries does not help.
  const refused = codes.find((c) => REFUSED_CODES.has(c))
  if (refused) {
    return new JudgeServiceError(
      `${whoAt} connection refused (${refused}): ${detail}; is the judge server running at that address?`,
      { ...base, network: 'refused' },
    )
  }
  // A connection that failed or was reset may succeed on a fresh socket.
  if (
    names.has('APIConnectionError') ||
    (code && CONNECTION_CODES.has(code)) ||
    /fetch failed|socket hang up|other side closed/i.test(detail)
  ) {
    return new JudgeServiceError(
      `${whoAt} connection failed${code ? ` (${code})` : ''}: ${detail}; is the judge server reachable?`,
      base,
    )
  }
  return new JudgeError(`${who} failed unexpectedly: ${detail}`, { ...base, retryable: false })
}

/**
 * "answered 302, redirecting to …; set the base URL to …": the Location resolved against the endpoint, and the
 * base URL it implies (the API path the request was sent to taken off), both without credentials.
 */
function redirectMessage(who: string, status: number, location: string | undefined, endpoint: string | undefined) {
  const todo = 'redirects are not followed (the request carries credentials)'
  if (!location) return `${who} answered ${status} (a redirect) without a Location header; ${todo}: check the base URL`
  let target: URL
  try {
    target = new URL(location, endpoint)
  } catch {
    return `${who} answered ${status}, redirecting to "${redactUrl(location).slice(0, 200)}" (not a URL); ${todo}: check the base URL`
  }
  const base = new URL(target.href)
  base.pathname = base.pathname.replace(/\/(chat\/completions|model\/.*)$/, '') || '/'
  return `${who} answered ${status}, redirecting to ${redactUrl(target.href)}; ${todo}: set the base URL to ${redactUrl(base.href.replace(/\/(\?|$)/, '$1'))}`
}

function classNames(err: unknown): Set<string> {
  const names = new Set<string>()
  let proto = err && typeof err === 'object' ? Object.getPrototypeOf(err) : null
  while (proto && proto !== Object.prototype) {
    const name = proto.constructor?.name
    if (typeof name === 'string') names.add(name)
    proto = Object.getPrototypeOf(proto)
  }
  return names
}

// biome-ignore lint/suspicious/noExplicitAny: a foreign error's fields, checked before use
function httpStatus(e: Record<string, any>): number | undefined {
  const status = typeof e.status === 'number' ? e.status : e.$metadata?.httpStatusCode
  return typeof status === 'number' && status >= 100 ? status : undefined
}

// biome-ignore lint/suspicious/noExplicitAny: a foreign error's fields, checked before use
function headersOf(e: Record<string, any>): HeaderSource {
  return e.headers ?? e.$response?.headers
}

/** Error codes along the cause chain, outermost first (undici and http2 nest the socket error under `cause`). */
function findCodes(err: unknown): string[] {
  const codes: string[] = []
  let current = err as { code?: unknown; cause?: unknown } | undefined
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string' && /^[A-Z0-9_]+$/.test(current.code)) codes.push(current.code)
    current = current.cause as typeof current
  }
  return codes
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const parts = [err.message || err.name]
  const cause = (err as { cause?: unknown }).cause
  if (cause instanceof Error && cause.message && !err.message.includes(cause.message))
    parts.push(`(cause: ${cause.message})`)
  return parts.join(' ')
}
