// The one parser of AGENT_VERDICT_JUDGE (and of a `--judge` value): provider, model and options.
// Judges build a judge from its result; reporters name the run's judge with it, so both agree.
import { redactUrl, registerHeaderSecrets, scrubSecrets, urlCredentials } from './secrets'
import { closestName } from './suggest'
import { type Env, SettingError } from './env'
import { parseByteSize } from './reply-limits'

/** Env var naming the judge. */
export const JUDGE_ENV = 'AGENT_VERDICT_JUDGE'

/** The Bedrock model used when `AGENT_VERDICT_JUDGE=bedrock` (or a Bedrock judge config) names none. */
export const DEFAULT_BEDROCK_MODEL = 'global.anthropic.claude-sonnet-4-6'

/** Options accepted after the model; each also exists as a judge config key. */
export interface JudgeSpecOptions {
  timeoutMs?: number
  maxWaitMs?: number
  concurrency?: number
  /** Bytes of a reply read at most, compressed and decompressed (`maxReply=SIZE`). */
  maxReplyBytes?: number
  /** Tokens a reply may hold at most (`maxOutputTokens=N`). */
  maxOutputTokens?: number
  /** The server's context window in tokens (`context=8k`): diagnose fits its prompts and replies within it. */
  contextTokens?: number
  headers?: Record<string, string>
}

/** A parsed `AGENT_VERDICT_JUDGE` value: always a valid judge config. */
export type JudgeSpec =
  | ({ provider: 'openai'; model: string } & JudgeSpecOptions)
  | ({ provider: 'openai-compatible'; baseURL: string; model: string } & JudgeSpecOptions)
  | ({ provider: 'bedrock'; model: string } & Omit<JudgeSpecOptions, 'headers'>)

/** Options accepted after the model in `AGENT_VERDICT_JUDGE`, e.g. `openai:gpt-4.1;timeout=20s;retry=30s`. */
const SPEC_OPTIONS =
  'timeout=DURATION (per call), retry=DURATION (total retry budget), concurrency=N, maxOutputTokens=N (reply bound), context=TOKENS (e.g. 8k: the server\u2019s context window), maxReply=SIZE (e.g. 16MB), header.NAME=VALUE (openai only)'

/** The option names, for "did you mean". */
const OPTION_NAMES = ['timeout', 'retry', 'concurrency', 'maxOutputTokens', 'context', 'maxReply']

/**
 * Why `url` cannot be a judge base URL because it carries credentials (`http://user:pass@host`), or
 * `undefined` when it carries none. The message shows the URL redacted; the credentials are
 * registered as secrets so any later echo is scrubbed.
 *
 * @example
 * urlCredentialsProblem('http://bob:pw@127.0.0.1/v1', 'baseURL') // 'baseURL "http://[redacted]@127.0.0.1/v1" contains credentials …'
 */
export function urlCredentialsProblem(url: string, where: string): string | undefined {
  if (!urlCredentials(url)) return undefined
  return (
    `${where} "${redactUrl(url)}" contains credentials (user:password@); they are not sent from a URL and would be echoed in errors. ` +
    'Remove them from the URL and pass the key as apiKey / OPENAI_API_KEY, or a gateway header with headers (in code) or ";header.NAME=VALUE" (in AGENT_VERDICT_JUDGE).'
  )
}

/**
 * Parses an `AGENT_VERDICT_JUDGE` value: `openai:MODEL`, `bedrock:MODEL_ID` (or just `bedrock`, the
 * default model) or `openai-compatible:BASE_URL#MODEL`, each optionally followed by `;`-separated
 * options: `timeout=20s`, `retry=30s`, `concurrency=4`, `maxOutputTokens=2048`, `context=8k`,
 * `header.NAME=VALUE` (registered as a secret,
 * never printed). Durations take a unit: `ms`, `s` or `m`. Throws a {@link SettingError} saying what
 * is wrong, never echoing a credential.
 *
 * @example
 * readJudgeSpec('bedrock') // { provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' }
 */
export function readJudgeSpec(spec: string, setting: string = JUDGE_ENV): JudgeSpec {
  const value = spec.trim()
  // `bedrock;timeout=20s` has options but no colon: the provider ends at whichever comes first.
  const end = value.search(/[:;]/)
  const provider = end < 0 ? value : value.slice(0, end)
  const tail = end < 0 ? '' : value[end] === ';' ? value.slice(end) : value.slice(end + 1).trim()
  // Options start after the model; for openai-compatible the model follows the last '#'.
  const modelStart = provider === 'openai-compatible' ? Math.max(0, tail.lastIndexOf('#')) : 0
  const semi = tail.indexOf(';', modelStart)
  const rest = (semi < 0 ? tail : tail.slice(0, semi)).trim()
  const optionText = semi < 0 ? '' : tail.slice(semi + 1)
  const head = semi < 0 ? value : value.slice(0, value.length - optionText.length - 1)
  const shown = redactUrl(head) + (semi < 0 ? '' : `;${shownOptions(optionText)}`)
  const bad = (why: string) => new SettingError(`AGENT_VERDICT_JUDGE="${shown}" is invalid: ${why}.`, setting)
  const options = parseSpecOptions(optionText, bad)
  // Registered before any refusal below, so a refused spec cannot leak them either.
  if (options.headers) registerHeaderSecrets(options.headers)
  if (provider === 'bedrock') {
    if (options.headers)
      throw bad(
        'header.NAME=VALUE is for openai and openai-compatible judges; Bedrock signs its requests with AWS credentials',
      )
    return { provider, model: rest || DEFAULT_BEDROCK_MODEL, ...options }
  }
  if (provider === 'openai') {
    if (!rest) throw bad('openai needs a model after the colon')
    return { provider, model: rest, ...options }
  }
  if (provider === 'openai-compatible') {
    const hash = rest.lastIndexOf('#')
    const baseURL = hash < 0 ? rest : rest.slice(0, hash)
    const model = hash < 0 ? '' : rest.slice(hash + 1)
    if (!/^https?:\/\/\S+$/.test(baseURL)) throw bad('openai-compatible needs an http(s) base URL after the colon')
    const credentials = urlCredentialsProblem(baseURL, 'AGENT_VERDICT_JUDGE base URL')
    if (credentials) throw new SettingError(credentials, setting)
    if (!model) throw bad('openai-compatible needs "#MODEL" after the base URL')
    return { provider, baseURL, model, ...options }
  }
  throw bad(`unknown provider "${redactUrl(provider)}"`)
}

/**
 * The judge spec named by `AGENT_VERDICT_JUDGE`, or `undefined` when it is unset or blank; an invalid
 * value throws a {@link SettingError}.
 *
 * @example
 * judgeSpecFromEnv({ AGENT_VERDICT_JUDGE: 'openai:gpt-4.1-mini' }) // { provider: 'openai', model: 'gpt-4.1-mini' }
 */
export function judgeSpecFromEnv(env: Env = process.env): JudgeSpec | undefined {
  const value = env[JUDGE_ENV]?.trim()
  return value ? readJudgeSpec(value) : undefined
}

/**
 * The id of the judge a spec builds (`provider:model`, as `Judge.id`): base URLs, which may carry
 * credentials, and options are not part of it.
 *
 * @example
 * judgeSpecId(readJudgeSpec('openai-compatible:http://127.0.0.1:4010/v1#fake')) // 'openai-compatible:fake'
 */
export function judgeSpecId(spec: JudgeSpec): string {
  return `${spec.provider}:${spec.model}`
}

/**
 * The judge of the run as a report records it: {@link judgeSpecId} of `AGENT_VERDICT_JUDGE`, or
 * `null` when it is unset or invalid (the run's judge tests already failed on it; the report is
 * still written and names the judges its verdicts carry).
 *
 * @example
 * judgeIdForReport({ AGENT_VERDICT_JUDGE: 'bedrock' }) // 'bedrock:global.anthropic.claude-sonnet-4-6'
 */
export function judgeIdForReport(env: Env = process.env): string | null {
  try {
    const spec = judgeSpecFromEnv(env)
    return spec ? judgeSpecId(spec) : null
  } catch (err) {
    if (err instanceof SettingError) return null
    throw err
  }
}

/** Options whose values are settings, never credentials: shown as written in an error. */
const PLAIN_OPTIONS = new Set(OPTION_NAMES)

/**
 * A short word is a (mistyped) option name; anything else may be a value cut off at a `;` (a header value holding
 * one), so an error does not echo it.
 */
const OPTION_NAME = /^[A-Za-z][\w.-]{0,31}$/

/**
 * True when a key reads as a misspelt option name: a short word the secret scrubber leaves alone, without the
 * long digit runs of a token. Anything else may be a credential cut off at a `;` and is never echoed.
 */
function looksLikeName(key: string): boolean {
  return OPTION_NAME.test(key) && scrubSecrets(key) === key && !/\d{4,}/.test(key)
}

function shownKey(key: string): string {
  if (!looksLikeName(key)) return '(not shown: it looks like a value or a credential, not a name)'
  const match = closestName(key, OPTION_NAMES)
  return match ? `"${key}" (did you mean ${match}?)` : `"${key}"`
}

/** The options as an error shows them: every value redacted but timeout, retry and concurrency's. */
function shownOptions(text: string): string {
  return text
    .split(';')
    .map((item) => {
      const eq = item.indexOf('=')
      const key = (eq < 0 ? item : item.slice(0, eq)).trim()
      if (!key) return item
      const name = /^header\./i.test(key) || looksLikeName(key) ? key : '[redacted]'
      if (eq < 0) return name
      return PLAIN_OPTIONS.has(key) ? item.trim() : `${name}=[redacted]`
    })
    .join(';')
}

function parseSpecOptions(text: string, bad: (why: string) => SettingError): JudgeSpecOptions {
  const options: JudgeSpecOptions = {}
  for (const item of text.split(';')) {
    const part = item.trim()
    if (!part) continue
    const eq = part.indexOf('=')
    const key = (eq < 0 ? part : part.slice(0, eq)).trim()
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim()
    if (/^header\./i.test(key)) {
      const name = key.slice('header.'.length)
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || !raw)
        throw bad(`option "${key}=…" needs a header name and a value`)
      ;(options.headers ??= {})[name] = raw
    } else if (key === 'timeout' || key === 'retry') {
      const ms = parseDuration(raw)
      if (ms === undefined || ms <= 0)
        throw bad(`option ${key}=${raw} needs a duration with a unit, e.g. ${key}=20s or ${key}=1500ms`)
      if (key === 'timeout') options.timeoutMs = ms
      else options.maxWaitMs = ms
    } else if (key === 'concurrency') {
      const n = Number(raw)
      if (!Number.isInteger(n) || n < 1) throw bad(`option concurrency=${raw} needs a positive integer`)
      options.concurrency = n
    } else if (key === 'maxOutputTokens') {
      const n = Number(raw)
      if (!Number.isInteger(n) || n < 16 || n > 1_000_000)
        throw bad(`option maxOutputTokens=${raw} needs a whole number of tokens from 16, e.g. maxOutputTokens=2048`)
      options.maxOutputTokens = n
    } else if (key === 'context') {
      const n = parseTokenCount(raw)
      if (n === undefined || n < 512)
        throw bad(
          `option context=${raw} needs the server\u2019s context window in tokens, e.g. context=8k or context=8192`,
        )
      options.contextTokens = n
    } else if (key === 'maxReply') {
      const bytes = parseByteSize(raw)
      if (bytes === undefined)
        throw bad(`option maxReply=${raw} needs a size with a unit, e.g. maxReply=16MB or maxReply=512KB`)
      options.maxReplyBytes = bytes
    } else {
      throw bad(`unknown option ${shownKey(key)}; accepted: ${SPEC_OPTIONS}`)
    }
  }
  return options
}

/**
 * `8192`, `8k`, `32K`, `1m` → tokens (k = 1024, as servers count contexts: llama.cpp `-c 8192` is "8k").
 *
 * @example
 * parseTokenCount('8k') // 8192
 */
export function parseTokenCount(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([km]?)$/i.exec(text.trim())
  if (!match) return undefined
  const factor = { '': 1, k: 1024, m: 1024 * 1024 }[match[2].toLowerCase() as '' | 'k' | 'm']
  const n = Math.round(Number(match[1]) * factor)
  return Number.isSafeInteger(n) ? n : undefined
}

/**
 * `1500ms`, `20s`, `1.5s`, `2m` → milliseconds; a bare number is refused (seconds or milliseconds?).
 *
 * @example
 * parseDuration('1.5s') // 1500; parseDuration('20') // undefined
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)$/i.exec(text)
  if (!match) return undefined
  const factor = { ms: 1, s: 1000, m: 60_000 }[match[2].toLowerCase() as 'ms' | 's' | 'm']
  return Math.round(Number(match[1]) * factor)
}
