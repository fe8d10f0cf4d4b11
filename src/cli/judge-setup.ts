// The judge of `diagnose`, fitted to its server: a local server that says its context size (llama.cpp /props,
// Ollama /api/show) gets its prompts fitted to it, and a spec that claims more context than the server has is
// refused before any call.
import { defineJudge, parseJudgeSpec, type JudgeConfig } from '../judges/config'
import { JudgeConfigError } from '../judges/errors'
import { probeServerContext, type ServerContext } from '../judges/server-context'
import type { Judge } from '../judges/types'
import { JUDGE_ENV } from '../config/judge-spec'

/**
 * The judge named by `--judge` (else `AGENT_VERDICT_JUDGE`), or `undefined` when neither is set. An
 * OpenAI-compatible judge's server is asked for its context first; what was learned is written to `note`.
 * Throws JudgeConfigError for a bad spec or a context the server does not have.
 *
 * @example
 * const judge = await fittedJudge(args.judge, process.env, (line) => stderr.write(line))
 */
export async function fittedJudge(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  note: (line: string) => void,
  probe: (baseURL: string, model: string) => Promise<ServerContext | undefined> = probeServerContext,
): Promise<Judge | undefined> {
  const text = flag ?? env[JUDGE_ENV]?.trim()
  if (!text) return undefined
  const config = parseJudgeSpec(text)
  if (config.provider !== 'openai-compatible') return defineJudge(config)
  return defineJudge(await fitToServer(config, await probe(config.baseURL, config.model), note))
}

type CompatibleConfig = Extract<JudgeConfig, { provider: 'openai-compatible' }>

function fitToServer(config: CompatibleConfig, server: ServerContext | undefined, note: (line: string) => void) {
  if (!server) return config
  const claimed = config.contextTokens
  const grow = `start the server with a larger context (llama.cpp -c ${claimed ?? 16384}, Ollama num_ctx ${claimed ?? 16384})`
  if (claimed !== undefined && claimed > server.tokens)
    throw new JudgeConfigError(
      `the judge spec says context=${claimed}, but the server ${server.exact ? 'runs' : 'can run'} ${config.model} with ${server.tokens} tokens (${server.source}): set context=${server.tokens} in the judge spec, or ${grow}`,
    )
  if (!server.exact) {
    if (claimed === undefined)
      note(
        `the judge server does not say the context it runs ${config.model} with (${server.source} is the model's maximum, ${server.tokens}; no num_ctx): Ollama's default context (OLLAMA_CONTEXT_LENGTH, 4096 on small GPUs) cuts longer prompts without an error. Set num_ctx on the server (PARAMETER num_ctx 16384 in a Modelfile) or give the context you run with as ";context=…" in the judge spec.\n`,
      )
    return config
  }
  if (claimed !== undefined) return config
  note(
    `the judge server runs ${config.model} with a context of ${server.tokens} tokens (${server.source}): prompts are fitted to it.\n`,
  )
  return { ...config, contextTokens: server.tokens }
}
