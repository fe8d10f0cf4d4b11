// Warming the judge client of a file that will call it: an eval file's first judge call would otherwise
// pay for loading the provider SDK before its request leaves. Started by the
// runner entry in the background while the runner is still loading the test file (decision 0031).
import { readCassetteSettings } from '../config/cassette-mode'
import { JUDGE_ENV, readJudgeSpec } from '../config/judge-spec'
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

/**
 * Loads the judge host's SDK in the runner's main process, where the run's coordinator makes the calls of
 * an OpenAI-compatible judge (decision 0032). The Vitest plugin calls it when the first worker is forked,
 * while this process waits for that worker to start; otherwise the first call would wait for it.
 *
 * @example
 * void prewarmJudgeHost()
 */
export async function prewarmJudgeHost(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    if (env.AGENT_VERDICT_REMOTE_JUDGE === '0') return false
    const raw = env[JUDGE_ENV]
    if (!raw?.trim()) return false
    const cassettes = readCassetteSettings(env)
    if (cassettes.mode === 'replay' && !cassettes.update) return false
    if (readJudgeSpec(raw).provider === 'bedrock') return false
    await (await import('./judge-host')).warmJudgeHost()
    return true
  } catch {
    return false
  }
}
