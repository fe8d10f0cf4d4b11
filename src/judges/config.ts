import { z } from 'zod'
import { bedrockJudge, DEFAULT_BEDROCK_MODEL } from './bedrock'
import { ModelPriceSchema } from './cost'
import { JudgeConfigError } from './errors'
import { openaiJudge } from './openai'
import type { Judge } from './types'

const ReliabilitySchema = z.object({
  timeoutMs: z.number().int().positive().optional(),
  maxWaitMs: z.number().int().nonnegative().optional(),
  maxAttempts: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  prices: ModelPriceSchema.optional(),
})

/** A judge described as data: provider, model and options. Keys never go here: the SDKs read them from the environment. */
export const JudgeConfigSchema = z.discriminatedUnion('provider', [
  ReliabilitySchema.extend({ provider: z.literal('openai'), model: z.string().min(1) }),
  ReliabilitySchema.extend({ provider: z.literal('openai-compatible'), baseURL: z.url(), model: z.string().min(1) }),
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
  const parsed = JudgeConfigSchema.safeParse(config)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new JudgeConfigError(`invalid judge config at ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  const c = parsed.data
  if (c.provider === 'bedrock') return bedrockJudge(c)
  if (c.provider === 'openai-compatible') return openaiJudge(c)
  return openaiJudge(c)
}

/**
 * Parses an `AGENT_VERDICT_JUDGE` value: `openai:MODEL`, `bedrock:MODEL_ID` (or just `bedrock`) or
 * `openai-compatible:BASE_URL#MODEL`. Throws JudgeConfigError listing the accepted forms.
 *
 * @example
 * parseJudgeSpec('openai-compatible:http://127.0.0.1:11434/v1#llama3.2-vision')
 * // { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2-vision' }
 */
export function parseJudgeSpec(spec: string): JudgeConfig {
  const value = spec.trim()
  const colon = value.indexOf(':')
  const provider = colon < 0 ? value : value.slice(0, colon)
  const rest = colon < 0 ? '' : value.slice(colon + 1).trim()
  const bad = (why: string) => new JudgeConfigError(`AGENT_VERDICT_JUDGE="${spec}" is invalid: ${why}.`)
  if (provider === 'bedrock') return { provider, model: rest || DEFAULT_BEDROCK_MODEL }
  if (provider === 'openai') {
    if (!rest) throw bad('openai needs a model after the colon')
    return { provider, model: rest }
  }
  if (provider === 'openai-compatible') {
    const hash = rest.lastIndexOf('#')
    const baseURL = hash < 0 ? rest : rest.slice(0, hash)
    const model = hash < 0 ? '' : rest.slice(hash + 1)
    if (!/^https?:\/\/\S+$/.test(baseURL)) throw bad('openai-compatible needs an http(s) base URL after the colon')
    if (!model) throw bad('openai-compatible needs "#MODEL" after the base URL')
    return { provider, baseURL, model }
  }
  throw bad(`unknown provider "${provider}"`)
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
  throw new JudgeConfigError('no judge configured: set AGENT_VERDICT_JUDGE or pass { judge }.')
}
