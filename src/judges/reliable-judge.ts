import { concurrencyFromEnv, DEFAULT_JUDGE_CONCURRENCY } from '../config/limits'
import { costOf, type ModelPrice } from './cost'
import { JudgeOutputError } from './errors'
import { asJudgeTraffic } from '../config/judge-traffic'
import { scrubDeep } from '../config/secrets'
import { AdaptiveLimiter } from './limiter'
import { withRetry, type RetryOptions } from './retry'
import { runWidePermits } from './run-limit'
import type { Judge, JudgeRequest, JudgeResponse, JudgeUsage } from './types'

/** What a provider does once: one HTTP call, parsed and validated. Throws on any failure. */
export type ProviderAttempt = <T>(
  request: JudgeRequest<T>,
  signal: AbortSignal,
) => Promise<{ output: T; usage: JudgeUsage }>

/** Reliability and billing options every provider shares. */
export interface JudgeReliabilityOptions {
  /** Per-call timeout in ms (default 60 000). */
  timeoutMs?: number
  /** Total time a call may spend failing and waiting before it gives up, in ms (default 60 000). */
  maxWaitMs?: number
  /** Safety net on attempts per call (default 50). */
  maxAttempts?: number
  /**
   * Calls in flight at once (default 8); shrinks under sustained throttling. Under the agent-verdict
   * reporter this is the whole run's limit, shared by all workers (`AGENT_VERDICT_CONCURRENCY` overrides it).
   */
  concurrency?: number
  /**
   * Tokens a reply may hold at most, sent with every call (`max_tokens` / `max_completion_tokens` / Bedrock
   * `maxTokens`). Default: each metric's own bound (about 1k; 16k for OpenAI reasoning models). Raise it for a
   * model that thinks at length; `;maxOutputTokens=N` in `AGENT_VERDICT_JUDGE`.
   */
  maxOutputTokens?: number
  /**
   * The context window of the judge's server in tokens, when it is small (a local server): `diagnose` fits its
   * prompts and their replies within it. `;context=8k` in `AGENT_VERDICT_JUDGE`.
   */
  contextTokens?: number
  /** USD per 1M tokens, overriding the built-in price table. */
  prices?: ModelPrice
  /** Share a limiter between judges (e.g. two metrics' judges on one account). */
  limiter?: AdaptiveLimiter
  /** Test hooks for the retry loop (sleep, clock, jitter). */
  retry?: Pick<
    RetryOptions,
    'sleep' | 'now' | 'random' | 'baseDelayMs' | 'maxDelayMs' | 'outputRetries' | 'networkAttempts' | 'networkDelayMs'
  >
}

/** A Judge with retries, an adaptive limiter, latency and cost; what every provider factory returns. */
export interface ReliableJudge extends Judge {
  /** The limiter all calls through this judge share. */
  readonly limiter: AdaptiveLimiter
}

/**
 * Wraps a provider's single attempt with the shared retry policy and a per-judge adaptive limiter,
 * and fills in latency, attempts, summed usage (rejected replies cost tokens too) and cost.
 *
 * @example
 * const judge = createReliableJudge('my-provider', 'my-model', async (req, signal) => callMyApi(req, signal), { concurrency: 4 })
 */
export function createReliableJudge(
  provider: string,
  model: string,
  attempt: ProviderAttempt,
  options: JudgeReliabilityOptions & {
    /** Where the judge is, without credentials, for messages. */ endpoint?: string
    /** The run's coordinator may make this judge's calls: its permits travel with them (decision 0033). */
    remoteCalls?: boolean
  } = {},
): ReliableJudge {
  // AGENT_VERDICT_CONCURRENCY wins over the option, as it does in the run coordinator: one knob for CI.
  const limiter =
    options.limiter ??
    new AdaptiveLimiter({ concurrency: concurrencyFromEnv() ?? options.concurrency ?? DEFAULT_JUDGE_CONCURRENCY })
  const ctx = { provider, model, ...(options.endpoint ? { endpoint: options.endpoint } : {}) }
  // Run-wide permits when the run has a coordinator, else this process's limiter.
  const permits = runWidePermits(`${provider}:${model}`, limiter, { remoteCalls: options.remoteCalls })
  return {
    id: `${provider}:${model}`,
    provider,
    model,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.contextTokens ? { contextTokens: options.contextTokens } : {}),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
    limiter,
    async evaluate<T>(request: JudgeRequest<T>, signal?: AbortSignal): Promise<JudgeResponse<T>> {
      const started = performance.now()
      const wasted: JudgeUsage = { inputTokens: 0, outputTokens: 0 }
      const { value, attempts, reasks } = await withRetry(
        // A judge call is a verdict: agent recordings never record or replay it.
        (attemptSignal) => asJudgeTraffic(() => attempt(request, attemptSignal)),
        ctx,
        {
          ...options.retry,
          timeoutMs: options.timeoutMs,
          maxWaitMs: options.maxWaitMs,
          maxAttempts: options.maxAttempts,
          signal,
          limiter: permits,
          onAttemptError: (error) => {
            if (error instanceof JudgeOutputError && error.usage) {
              wasted.inputTokens += error.usage.inputTokens
              wasted.outputTokens += error.usage.outputTokens
              if (error.usage.invalid) wasted.invalid = error.usage.invalid
            }
          },
        },
      )
      // Counts a provider sent that were not counts stay marked (the cost is then unknown, not the 0s' price).
      const invalid = value.usage.invalid ?? wasted.invalid
      const usage: JudgeUsage = {
        inputTokens: value.usage.inputTokens + wasted.inputTokens,
        outputTokens: value.usage.outputTokens + wasted.outputTokens,
        ...(invalid ? { invalid } : {}),
      }
      return {
        // A judge can quote a credential it was sent (a header dump, a key in the judged text's context).
        output: scrubDeep(value.output),
        usage,
        latencyMs: Math.round(performance.now() - started),
        provider,
        model,
        costUsd: costOf(model, usage, options.prices),
        cached: false,
        attempts,
        ...(reasks > 0 ? { reasks } : {}),
      }
    },
  }
}
