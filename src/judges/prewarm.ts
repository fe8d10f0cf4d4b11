// Warming the judge client of a file that will call it: an eval file's first judge call would otherwise
// pay for loading the provider SDK before its request leaves. Started by the
// runner entry in the background while the runner is still loading the test file (decision 0031).
import { readCassetteSettings } from '../config/cassette-mode'
import { JUDGE_ENV, readJudgeSpec } from '../config/judge-spec'
import { concurrencyFromEnv, DEFAULT_JUDGE_CONCURRENCY } from '../config/limits'
import { ownTransportUsable, requestsInterceptedHere } from './fetch-choice'
import { remoteJudgeCaller } from './run-limit'
import { loadBedrock, loadOpenAI } from './sdk'

/**
 * Loads what the judge named by `AGENT_VERDICT_JUDGE` needs for its first call: the OpenAI SDK for
 * `openai`/`openai-compatible` (which send without Node's fetch, src/judges/http-transport.ts), the Bedrock
 * runtime client for `bedrock`. Does nothing when the
 * run replays (no judge is called), when no judge is set or the setting is invalid (the first call then
 * says what is wrong), and never rejects: a failed warm-up leaves the first call to load it as before.
 * Returns what it loaded.
 *
 * @example
 * void prewarmJudge() // in an eval file's setup, not awaited
 */
export async function prewarmJudge(env: NodeJS.ProcessEnv = process.env): Promise<'openai' | 'bedrock' | 'none'> {
  try {
    const raw = env[JUDGE_ENV]
    if (!raw?.trim()) return 'none'
    const cassettes = readCassetteSettings(env)
    if (cassettes.mode === 'replay' && !cassettes.update) return 'none'
    const spec = readJudgeSpec(raw)
    if (spec.provider === 'bedrock') {
      await loadBedrock()
      return 'bedrock'
    }
    // With a run coordinator the calls leave from the runner's main process (decision 0032): it loads the
    // SDK there, and this process only opens its connection.
    const remote = ownTransportUsable() && !requestsInterceptedHere() ? remoteJudgeCaller(env) : undefined
    if (remote) {
      remote.warm()
      return 'openai'
    }
    // Node's fetch implementation is not needed: a judge's client sends with src/judges/http-transport.ts.
    await loadOpenAI()
    return 'openai'
  } catch {
    return 'none'
  }
}

/** Options of {@link prewarmJudgeHost}. */
export interface PrewarmHostOptions {
  /**
   * Connections to open to the judge ahead of its first requests (`preconnect`): the run's judge limit by default
   * (`AGENT_VERDICT_CONCURRENCY` or 8), so the first wave of calls finds them open; 0 opens none, as does
   * `AGENT_VERDICT_PRECONNECT=0` in the environment.
   */
  connections?: number
}

/** At most this many connections are opened ahead, whatever the limit: the first wave is what they are for. */
const MAX_PRECONNECT = 16

/**
 * Loads the judge host's SDK in the runner's main process, where the run's coordinator makes the calls of
 * an OpenAI-compatible judge (decision 0032), and opens the judge's connections ahead of the first wave of
 * calls (`preconnect`, decision 0033). The Vitest plugin calls it when the first worker is forked, while this
 * process waits for that worker to start; otherwise the first calls would wait for both. Nothing is opened when
 * the run replays, when no judge or a Bedrock judge is set, when this process's requests go through a proxy
 * dispatcher or an interceptor (the calls would not use them), or with `AGENT_VERDICT_PRECONNECT=0`. Never rejects.
 *
 * @example
 * void prewarmJudgeHost()
 */
export async function prewarmJudgeHost(
  env: NodeJS.ProcessEnv = process.env,
  options: PrewarmHostOptions = {},
): Promise<boolean> {
  try {
    if (env.AGENT_VERDICT_REMOTE_JUDGE === '0') return false
    const raw = env[JUDGE_ENV]
    if (!raw?.trim()) return false
    const cassettes = readCassetteSettings(env)
    if (cassettes.mode === 'replay' && !cassettes.update) return false
    const spec = readJudgeSpec(raw)
    if (spec.provider === 'bedrock') return false
    const connections =
      env.AGENT_VERDICT_PRECONNECT === '0'
        ? 0
        : Math.min(MAX_PRECONNECT, options.connections ?? concurrencyFromEnv(env) ?? DEFAULT_JUDGE_CONCURRENCY)
    // The URL the calls will use: the spec's, or the SDK's own default (its OPENAI_BASE_URL, else OpenAI's).
    const baseURL =
      spec.provider === 'openai-compatible' ? spec.baseURL : env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1'
    if (connections > 0 && ownTransportUsable() && !requestsInterceptedHere())
      (await import('./http-transport')).preconnect(baseURL, connections)
    await (await import('./judge-host')).warmJudgeHost()
    return true
  } catch {
    return false
  }
}
