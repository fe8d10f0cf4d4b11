import type { ReplyProgress } from './reply-watch'
import type { JudgeUsage } from './types'
import { scrubSecrets } from '../config/secrets'

/** Which judge failed; every JudgeError carries it so a report can say who to blame. */
export interface JudgeErrorContext {
  provider: string
  model: string
  /** Where the judge is (base URL without credentials), named in network and timeout errors. */
  endpoint?: string
}

export interface JudgeErrorOptions extends JudgeErrorContext {
  status?: number
  retryable: boolean
  cause?: unknown
  /** The connection never carried a request: refused, DNS or TLS. Retried only a few quick times. */
  network?: JudgeNetworkFailure
}

/** Why no request reached the judge: nothing listens (`refused`), the host is unknown (`dns`), the TLS handshake failed (`tls`). */
export type JudgeNetworkFailure = 'refused' | 'dns' | 'tls'

/** The forms `AGENT_VERDICT_JUDGE` accepts, quoted in every configuration error. */
export const JUDGE_ENV_FORMS = [
  'openai:MODEL                      e.g. openai:gpt-4.1',
  'bedrock:MODEL_ID                  e.g. bedrock:global.anthropic.claude-sonnet-4-6',
  'openai-compatible:BASE_URL#MODEL  e.g. openai-compatible:http://127.0.0.1:11434/v1#llama3.2-vision',
] as const

/**
 * Base of every judge failure. `retryable` says whether the retry policy may try again; `cause` is a
 * scrubbed copy of the underlying error (never the SDK object, which can hold request headers).
 *
 * @example
 * try { await judge.evaluate(request) } catch (err) {
 *   if (err instanceof JudgeError && !err.retryable) console.error(err.provider, err.model, err.message)
 * }
 */
export class JudgeError extends Error {
  override name = 'JudgeError'
  readonly provider: string
  readonly model: string
  readonly status?: number
  readonly retryable: boolean
  /** Set when no request reached the judge (refused, DNS, TLS). */
  readonly network?: JudgeNetworkFailure
  /** HTTP attempts made before this error was final (set by the retry loop). */
  attempts?: number
  /** Of those attempts, the re-asks after an invalid reply (set by the retry loop). */
  reasks?: number
  /** Replayed from a cassette that recorded this failure: no request was made (decision 0043). */
  replayed?: boolean

  constructor(message: string, options: JudgeErrorOptions) {
    super(scrubSecrets(message), options.cause === undefined ? undefined : { cause: safeCause(options.cause) })
    this.provider = options.provider
    this.model = options.model
    this.status = options.status
    this.retryable = options.retryable
    if (options.network) this.network = options.network
  }
}

/**
 * The judge service is throttling (HTTP 429, Bedrock ThrottlingException). Retried; `retryAfterMs`
 * holds the server's requested wait when it sent one.
 *
 * @example
 * if (err instanceof JudgeRateLimitError) console.log(`server asked to wait ${err.retryAfterMs} ms`)
 */
export class JudgeRateLimitError extends JudgeError {
  override name = 'JudgeRateLimitError'
  readonly retryAfterMs?: number

  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'> & { retryAfterMs?: number }) {
    super(message, { ...options, retryable: true })
    this.retryAfterMs = options.retryAfterMs
  }
}

/**
 * A judge call took longer than its per-call timeout (or the model timed out). Retried.
 *
 * @example
 * if (err instanceof JudgeTimeoutError) console.log('raise timeoutMs or check the server')
 */
export class JudgeTimeoutError extends JudgeError {
  override name = 'JudgeTimeoutError'
  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'>) {
    super(message, { ...options, retryable: true })
  }
}

/**
 * The judge service failed on its side (5xx, 408, 409, connection reset/refused). Retried.
 *
 * @example
 * if (err instanceof JudgeServiceError) console.log(`judge service error ${err.status ?? '(network)'}`)
 */
export class JudgeServiceError extends JudgeError {
  override name = 'JudgeServiceError'
  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'>) {
    super(message, { ...options, retryable: true })
  }
}

/**
 * Credentials were rejected (401/403, AccessDeniedException). Not retried: the same key fails again.
 *
 * @example
 * if (err instanceof JudgeAuthError) console.error('check OPENAI_API_KEY or your AWS credentials')
 */
export class JudgeAuthError extends JudgeError {
  override name = 'JudgeAuthError'
  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'>) {
    super(message, { ...options, retryable: false })
  }
}

/**
 * The service rejected the request itself (400/404/422, ValidationException): wrong model id, input
 * too large, unsupported option. Not retried: the same request fails again.
 *
 * @example
 * if (err instanceof JudgeRequestError) console.error(`fix the request: ${err.message}`)
 */
export class JudgeRequestError extends JudgeError {
  override name = 'JudgeRequestError'
  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'>) {
    super(message, { ...options, retryable: false })
  }
}

/**
 * The judge answered, but not with a valid verdict: unparseable JSON, a schema violation, an
 * out-of-range score, a refusal or a truncated reply. `excerpt` keeps a trimmed copy of the raw output.
 *
 * @example
 * if (err instanceof JudgeOutputError) console.error(`judge said: ${err.excerpt}`)
 */
export class JudgeOutputError extends JudgeError {
  override name = 'JudgeOutputError'
  /** At most ~300 characters of the raw reply, head and tail. */
  readonly excerpt: string
  /** Tokens the failed reply still cost, so retries are counted in the bill. */
  readonly usage?: JudgeUsage

  constructor(
    message: string,
    options: Omit<JudgeErrorOptions, 'retryable'> & { raw: string; usage?: JudgeUsage; retryable?: boolean },
  ) {
    super(message, { ...options, retryable: options.retryable ?? true })
    // Scrubbed before it is cut: a cut through a key would leave a part no scrub recognises.
    this.excerpt = excerptOf(scrubSecrets(options.raw))
    this.usage = options.usage
  }
}

/**
 * No judge is configured, or the configuration is invalid. Never retried, never turned into an
 * "unjudgeable" verdict: it fails loudly so the user fixes the setup.
 *
 * @example
 * throw new JudgeConfigError('no judge configured') // message lists the AGENT_VERDICT_JUDGE forms
 */
export class JudgeConfigError extends JudgeError {
  override name = 'JudgeConfigError'
  /** `listForms: false` when a judge is configured and the problem is elsewhere (a cassette miss). */
  constructor(message: string, options: Partial<JudgeErrorContext> & { cause?: unknown; listForms?: boolean } = {}) {
    const forms = JUDGE_ENV_FORMS.map((f) => `  AGENT_VERDICT_JUDGE=${f}`).join('\n')
    super(
      options.listForms === false
        ? message
        : `${message}\nSet AGENT_VERDICT_JUDGE to one of:\n${forms}\nor pass { judge } in code.`,
      {
        provider: options.provider ?? 'none',
        model: options.model ?? 'none',
        retryable: false,
        cause: options.cause,
      },
    )
  }
}

/**
 * The caller's AbortSignal fired. Not retried and not an "unjudgeable" verdict: the run was cancelled.
 *
 * @example
 * const ac = new AbortController(); setTimeout(() => ac.abort(), 1000)
 * await judge.evaluate(request, ac.signal) // rejects with JudgeAbortError after 1 s
 */
export class JudgeAbortError extends JudgeError {
  override name = 'JudgeAbortError'
  /** The last failed attempt before the abort, when there was one (set by the retry loop). */
  lastError?: JudgeError
  /** When the attempt in flight at the abort started (ms since epoch), if one was in flight. */
  inFlightSince?: number
  /** What had arrived of the in-flight attempt's reply (status, bytes), when its headers had. */
  inFlightReply?: ReplyProgress
  constructor(options: JudgeErrorContext & { cause?: unknown }) {
    super(`judge call to ${options.provider}:${options.model} was aborted by the caller`, {
      ...options,
      retryable: false,
    })
  }
}

/**
 * The judge could not give a verdict before the running test's timeout: the matcher gave up early
 * enough to fail the test with this message instead of the runner's bare "Test timed out". The
 * message names the judge (endpoint without credentials), what happened, and what to do. Not retried.
 *
 * @example
 * if (err instanceof JudgeDeadlineError) console.error(err.message) // "…did not answer within 4.5 s: connection refused…"
 */
export class JudgeDeadlineError extends JudgeError {
  override name = 'JudgeDeadlineError'
  /** Milliseconds the matcher had for the judge. */
  readonly budgetMs: number
  constructor(message: string, options: Omit<JudgeErrorOptions, 'retryable'> & { budgetMs: number }) {
    super(message, { ...options, retryable: false })
    this.budgetMs = options.budgetMs
  }
}

/** Head and tail of a long reply: enough to see what went wrong without flooding a report. */
export function excerptOf(raw: string, max = 300): string {
  const flat = raw.replace(/\s+/g, ' ').trim()
  if (flat.length <= max) return flat
  const half = Math.floor((max - 5) / 2)
  return `${flat.slice(0, half)} … ${flat.slice(-half)}`
}

/** A plain Error with the scrubbed name, message and code: SDK errors can embed request headers. */
function safeCause(cause: unknown): Error {
  if (cause instanceof JudgeError) return cause
  const source = cause instanceof Error ? cause : new Error(String(cause))
  const copy = new Error(scrubSecrets(source.message))
  copy.name = source.name
  const code = (source as { code?: unknown }).code
  if (typeof code === 'string') Object.assign(copy, { code })
  copy.stack = `${copy.name}: ${copy.message}`
  return copy
}
