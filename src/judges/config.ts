import * as z from 'zod'
import { replayCauseFromEnv } from '../config/cassette-mode'
import { SettingError } from '../config/env'
import { DEFAULT_BEDROCK_MODEL, JUDGE_ENV, readJudgeSpec, urlCredentialsProblem } from '../config/judge-spec'
import { bedrockJudge } from './bedrock'
import { ModelPriceSchema } from './cost'
import { JudgeConfigError } from './errors'
import { openaiJudge } from './openai'
import { registerHeaderSecrets } from '../config/secrets'
import type { Judge } from './types'

const ReliabilitySchema = z.object({
  timeoutMs: z.number().int().positive().optional(),
  maxWaitMs: z.number().int().nonnegative().optional(),
  maxAttempts: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  /** Bytes of a reply read at most, compressed and decompressed (default 8 MB). */
  maxReplyBytes: z.number().int().positive().optional(),
  /** Tokens a reply may hold at most (default: each metric's own bound, about 1k). */
  maxOutputTokens: z.number().int().min(16).optional(),
  /** The server's context window in tokens: diagnose fits its prompts and replies within it. */
  contextTokens: z.number().int().min(512).optional(),
  prices: ModelPriceSchema.optional(),
})

/** Extra HTTP headers for every judge request (API gateways: `x-gateway-token`, `Ocp-Apim-Subscription-Key`). Every value is scrubbed from all output. */
const HeadersSchema = z.record(z.string(), z.string())

/** A judge described as data: provider, model and options. Keys never go here: the SDKs read them from the environment. */
export const JudgeConfigSchema = z.discriminatedUnion('provider', [
  ReliabilitySchema.extend({
    provider: z.literal('openai'),
    model: z.string().min(1),
    headers: HeadersSchema.optional(),
  }),
  ReliabilitySchema.extend({
    provider: z.literal('openai-compatible'),
    baseURL: z.url(),
    model: z.string().min(1),
    headers: HeadersSchema.optional(),
  }),
  ReliabilitySchema.extend({
    provider: z.literal('bedrock'),
    model: z.string().min(1).default(DEFAULT_BEDROCK_MODEL),
    region: z.string().optional(),
  }),
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
  if (config && typeof config === 'object' && 'baseURL' in config && typeof config.baseURL === 'string')
    refuseUrlCredentials(config.baseURL, 'defineJudge({ baseURL })')
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
  const problem = urlCredentialsProblem(url, where)
  if (problem) throw new JudgeConfigError(problem)
}

/**
 * Parses an `AGENT_VERDICT_JUDGE` value: `openai:MODEL`, `bedrock:MODEL_ID` (or just `bedrock`) or
 * `openai-compatible:BASE_URL#MODEL`, each optionally followed by `;`-separated options:
 * `timeout=20s` (per-call timeout), `retry=30s` (total retry budget), `concurrency=4`,
 * `maxOutputTokens=2048` (reply bound), `context=8k` (the server's context window), `header.NAME=VALUE` (an extra request header, e.g. an API gateway token; never printed).
 * Durations take a unit: `ms`, `s` or `m`. Throws JudgeConfigError listing the accepted forms,
 * never echoing a credential. The parsing itself is `readJudgeSpec` in src/config, which reports use too.
 *
 * @example
 * parseJudgeSpec('openai-compatible:http://127.0.0.1:11434/v1#llama3.2-vision;timeout=20s')
 * // { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2-vision', timeoutMs: 20000 }
 */
export function parseJudgeSpec(spec: string): JudgeConfig {
  return asJudgeConfigError(() => readJudgeSpec(spec))
}

/** Runs a src/config parser, turning its SettingError into the JudgeConfigError judges throw. */
function asJudgeConfigError<T>(parse: () => T): T {
  try {
    return parse()
  } catch (err) {
    if (err instanceof SettingError) throw new JudgeConfigError(err.message)
    throw err
  }
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
  const spec = env[JUDGE_ENV]?.trim()
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

// The replay rule is src/config's, the one cassettes use: AGENT_VERDICT_MODE=replay, or CI set with no mode.
function replayNote(env: Record<string, string | undefined>): string {
  const cause = replayCauseFromEnv(env)
  if (!cause) return ''
  const why = cause === 'AGENT_VERDICT_MODE' ? 'AGENT_VERDICT_MODE=replay' : 'CI is set'
  return ` ${why}, so recorded verdicts are replayed and the judge is not called, but they are looked up by judge: set AGENT_VERDICT_JUDGE to the value the cassettes were recorded with (replaying needs no API key).`
}
