// The run's judge limits from the environment. AGENT_VERDICT_CONCURRENCY is the one setting where env
// beats code: it overrides a judge's `concurrency` option (one knob caps every judge of a CI run); only
// startCoordinator({ concurrency }) ranks above it. Both the coordinator and a judge's own limiter read it here.
import { type Env, parsePositive } from './env'

/** Env var setting the whole run's judge concurrency (overrides the judge's `concurrency` option). */
export const CONCURRENCY_ENV = 'AGENT_VERDICT_CONCURRENCY'
/** Env var capping judge requests per minute across the run (optional). */
export const RPM_ENV = 'AGENT_VERDICT_RPM'
/** Judge concurrency when neither code nor env sets one. */
export const DEFAULT_JUDGE_CONCURRENCY = 8

/**
 * `AGENT_VERDICT_CONCURRENCY` as a positive integer, `undefined` when unset; a bad value throws a RangeError naming it.
 *
 * @example
 * concurrencyFromEnv({ AGENT_VERDICT_CONCURRENCY: '4' }) // 4
 */
export function concurrencyFromEnv(env: Env = process.env): number | undefined {
  return parsePositive(env[CONCURRENCY_ENV], CONCURRENCY_ENV)
}

/**
 * `AGENT_VERDICT_RPM` as a positive integer, `undefined` when unset; a bad value throws a RangeError naming it.
 *
 * @example
 * requestsPerMinuteFromEnv({ AGENT_VERDICT_RPM: '600' }) // 600
 */
export function requestsPerMinuteFromEnv(env: Env = process.env): number | undefined {
  return parsePositive(env[RPM_ENV], RPM_ENV)
}
