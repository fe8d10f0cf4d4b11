import { z } from 'zod'
import { bedrockJudge, DEFAULT_BEDROCK_MODEL } from './bedrock'
import { ModelPriceSchema } from './cost'
import { JudgeConfigError } from './errors'
import { openaiJudge } from './openai'
import { redactUrl, registerHeaderSecrets, urlCredentials } from '../config/secrets'
import type { Judge } from './types'

const ReliabilitySchema = z.object({
  timeoutMs: z.number().int().positive().optional(),
  maxWaitMs: z.number().int().nonnegative().optional(),
  maxAttempts: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  prices: ModelPriceSchema.optional(),
})

/** Extra HTTP headers for every judge request (API gateways: `x-gateway-token`, `Ocp-Apim-Subscription-Key`). Every value is scrubbed from all output. */
const HeadersSchema = z.record(z.string(), z.string())

/** A judge described as data: provider, model and options. Keys never go here: the SDKs read them from the environment. */
export const JudgeConfigSchema = z.discriminatedUnion('provider', [
  ReliabilitySchema.extend({ provider: z.literal('openai'), model: z.string().min(1), headers: HeadersSchema.optional() }),
  ReliabilitySchema.extend({ provider: z.literal('openai-compatible'), baseURL: z.url(), model: z.string().min(1), headers: HeadersSchema.optional() }),
  ReliabilitySchema.extend({ provider: z.literal('bedrock'), model: z.string().min(1).default(DEFAULT_BEDROCK_MODEL), region: z.string().optional() }),
])
export type JudgeConfig = z.input<typeof JudgeConfigSchema>

/**
 * Builds a judge from a plain config (e.g. in `vitest.config.ts` or a setup file).
 *
 * @example
 * const judge = defineJudge({ provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6', concurrency: 4 })
 * const local = defineJudge({ provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2-vision' })
 */
export function defineJudge(config: JudgeConfig): Judge {
  // Registered before validation, so even a config that is refused below cannot leak them.
  if (config && typeof config === 'object' && 'headers' in config) registerHeaderSecrets(config.headers)
  if (config && typeof config === 'object' && 'baseURL' in config && typeof config.baseURL === 'string') refuseUrlCredentials(config.baseURL, 'defineJudge({ baseURL })')
  const parsed = JudgeConfigSchema.safeParse(config)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new JudgeConfigError(`invalid judge config at ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  const c = parsed.data
  if (c.provider === 'bedrock') return bedrockJudge(c)
  const { headers, ...rest } = c
  return openaiJudge({ ...rest, ...(headers ? { defaultHeaders: headers } : {}) })
}

/**
 * Refuses a base URL that carries credentials (`http://user:pass@host`): the SDKs would send them
 * nowhere useful, every error would echo them, and retrying cannot fix it. The message never
 * repeats them; they are also registered as secrets in case the URL shows up elsewhere.
 *
 * @example
 * refuseUrlCredentials('http://bob:pw@127.0.0.1/v1', 'baseURL') // throws JudgeConfigError naming http://[redacted]@127.0.0.1/v1
 */
export function refuseUrlCredentials(url: string, where: string): void {
  if (!urlCredentials(url)) return
  throw new JudgeConfigError(
    `${where} "${redactUrl(url)}" contains credentials (user:password@); they are not sent from a URL and would be echoed in errors. ` +
      'Remove them from the URL and pass the key as apiKey / OPENAI_API_KEY, or a gateway header with headers (in code) or ";header.NAME=VALUE" (in AGENT_VERDICT_JUDGE).',
  )
}

/** Options accepted after the model in `AGENT_VERDICT_JUDGE`, e.g. `openai:gpt-4.1;timeout=20s;retry=30s`. */
const SPEC_OPTIONS = 'timeout=DURATION (per call), retry=DURATION (total retry budget), concurrency=N, header.NAME=VALUE (openai only)'

/**
 * Parses an `AGENT_VERDICT_JUDGE` value: `openai:MODEL`, `bedrock:MODEL_ID` (or just `bedrock`) or
 * `openai-compatible:BASE_URL#MODEL`, each optionally followed by `;`-separated options:
 * `timeout=20s` (per-call timeout), `retry=30s` (total retry budget), `concurrency=4`,
 * `header.NAME=VALUE` (an extra request header, e.g. an API gateway token; never printed).
 * Durations take a unit: `ms`, `s` or `m`. Throws JudgeConfigError listing the accepted forms,
 * never echoing a credential.
 *
 * @example
 * parseJudgeSpec('openai-compatible:http://127.0.0.1:11434/v1#llama3.2-vision;timeout=20s')
 * // { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2-vision', timeoutMs: 20000 }
 */
export function parseJudgeSpec(spec: string): JudgeConfig {
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
  const shown = redactUrl(value.replace(/(;\s*header\.[^=;]+=)[^;]*/gi, '$1[redacted]'))
  const bad = (why: string) => new JudgeConfigError(`AGENT_VERDICT_JUDGE="${shown}" is invalid: ${why}.`)
  const options = parseSpecOptions(optionText, bad)
  if (options.headers) registerHeaderSecrets(options.headers)
  if (provider === 'bedrock') {
    if (options.headers) throw bad('header.NAME=VALUE is for openai and openai-compatible judges; Bedrock signs its requests with AWS credentials')
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
    refuseUrlCredentials(baseURL, 'AGENT_VERDICT_JUDGE base URL')
    if (!model) throw bad('openai-compatible needs "#MODEL" after the base URL')
    return { provider, baseURL, model, ...options }
  }
  throw bad(`unknown provider "${redactUrl(provider)}"`)
}

interface SpecOptions {
  timeoutMs?: number
  maxWaitMs?: number
  concurrency?: number
  headers?: Record<string, string>
}

function parseSpecOptions(text: string, bad: (why: string) => JudgeConfigError): SpecOptions {
  const options: SpecOptions = {}
  for (const item of text.split(';')) {
    const part = item.trim()
    if (!part) continue
    const eq = part.indexOf('=')
    const key = (eq < 0 ? part : part.slice(0, eq)).trim()
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim()
    if (/^header\./i.test(key)) {
      const name = key.slice('header.'.length)
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) || !raw) throw bad(`option "${key}=…" needs a header name and a value`)
      ;(options.headers ??= {})[name] = raw
    } else if (key === 'timeout' || key === 'retry') {
      const ms = parseDuration(raw)
      if (ms === undefined || ms <= 0) throw bad(`option ${key}=${raw} needs a duration with a unit, e.g. ${key}=20s or ${key}=1500ms`)
      if (key === 'timeout') options.timeoutMs = ms
      else options.maxWaitMs = ms
    } else if (key === 'concurrency') {
      const n = Number(raw)
      if (!Number.isInteger(n) || n < 1) throw bad(`option concurrency=${raw} needs a positive integer`)
      options.concurrency = n
    } else {
      throw bad(`unknown option "${key}"; accepted: ${SPEC_OPTIONS}`)
    }
  }
  return options
}

/** `1500ms`, `20s`, `1.5s`, `2m` → milliseconds; a bare number is refused (seconds or milliseconds?). */
function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)$/i.exec(text)
  if (!match) return undefined
  const factor = { ms: 1, s: 1000, m: 60_000 }[match[2].toLowerCase() as 'ms' | 's' | 'm']
  return Math.round(Number(match[1]) * factor)
}

// One judge per spec value, so every metric using the env judge shares its limiter.
const envJudges = new Map<string, Judge>()

/**
 * The judge named by `AGENT_VERDICT_JUDGE`, or `undefined` when it is unset. The same value always
 * yields the same instance (one shared concurrency limiter). Keys come from the SDKs' own env vars
 * (`OPENAI_API_KEY`, the AWS chain) and are never logged.
 *
 * @example
 * process.env.AGENT_VERDICT_JUDGE = 'openai:gpt-4.1-mini'
 * const judge = judgeFromEnv() // openai:gpt-4.1-mini
 */
export function judgeFromEnv(env: Record<string, string | undefined> = process.env): Judge | undefined {
  const spec = env.AGENT_VERDICT_JUDGE?.trim()
  if (!spec) return undefined
  let judge = envJudges.get(spec)
  if (!judge) {
    judge = defineJudge(parseJudgeSpec(spec))
    envJudges.set(spec, judge)
  }
  return judge
}

/**
 * The explicit judge if given, else the env judge; throws JudgeConfigError naming
 * `AGENT_VERDICT_JUDGE` (with examples) when neither exists.
 *
 * @example
 * const judge = resolveJudge(options.judge) // throws "no judge configured: set AGENT_VERDICT_JUDGE=… or pass { judge }"
 */
export function resolveJudge(explicit?: Judge, env: Record<string, string | undefined> = process.env): Judge {
  if (explicit) return explicit
  const fromEnv = judgeFromEnv(env)
  if (fromEnv) return fromEnv
  throw new JudgeConfigError(`no judge configured: set AGENT_VERDICT_JUDGE or pass { judge }.${replayNote(env)}`)
}

// Judges may not import cassette/ (it sits above them), so the replay rule of cassette/modes.ts is read here
// again, for the message only: AGENT_VERDICT_MODE=replay, or CI set with no mode.
function replayNote(env: Record<string, string | undefined>): string {
  const mode = env.AGENT_VERDICT_MODE?.trim().toLowerCase()
  const ci = env.CI !== undefined && !['', '0', 'false', 'no', 'off'].includes(env.CI.trim().toLowerCase())
  const why = mode === 'replay' ? 'AGENT_VERDICT_MODE=replay' : !mode && ci ? 'CI is set' : undefined
  if (!why) return ''
  return ` ${why}, so recorded verdicts are replayed and the judge is not called, but they are looked up by judge: set AGENT_VERDICT_JUDGE to the value the cassettes were recorded with (replaying needs no API key).`
}
