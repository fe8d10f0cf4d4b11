// Every judge call carries a bound on its reply's length: a local model that loops otherwise runs to the end of
// its server's context (issue 35: 51 s for one call, then a context error). What a cut-off or an overflow says
// names the setting to change, on the server or in the judge spec.

/** The bound of a request that names none (a custom metric's): a verdict is reasoning plus a score, well within. */
export const DEFAULT_OUTPUT_TOKENS = 1024

/**
 * The bound for OpenAI's reasoning models (o-series, gpt-5) when the user set none: their hidden reasoning counts
 * against `max_completion_tokens`, so a verdict's own bound would cut the reply before it starts.
 */
export const REASONING_OUTPUT_TOKENS = 16_384

/**
 * The output bound a call sends: the judge's `maxOutputTokens` when the user set one (spec or config), else the
 * request's (each metric's default), else {@link DEFAULT_OUTPUT_TOKENS}; a reasoning model without a user bound
 * gets at least {@link REASONING_OUTPUT_TOKENS}.
 *
 * @example
 * outputTokensFor({ maxOutputTokens: 1200 }, undefined, false) // 1200
 * outputTokensFor({ maxOutputTokens: 1200 }, 4000, false) // 4000
 */
export function outputTokensFor(
  request: { maxOutputTokens?: number },
  configured: number | undefined,
  reasoning: boolean,
): number {
  if (configured !== undefined) return configured
  const own = request.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS
  return reasoning ? Math.max(own, REASONING_OUTPUT_TOKENS) : own
}

/**
 * Why a reply ended at the length limit and what to change: on a local server whose own cap stopped it first
 * (fewer tokens than the request allowed), the server's setting; otherwise the spec's `maxOutputTokens`.
 *
 * @example
 * cutOffAdvice({ limit: 1024, produced: 256, compatible: true }) // '… the server stopped it first: its own cap is lower …'
 */
export function cutOffAdvice(options: { limit: number; produced: number | undefined; compatible: boolean }): string {
  const { limit, produced, compatible } = options
  const raise = `a larger bound: ";maxOutputTokens=${limit * 2}" in AGENT_VERDICT_JUDGE (maxOutputTokens in defineJudge)`
  if (!compatible)
    return `after ${produced ?? 'an unknown number of'} tokens of the ${limit} allowed; the model kept writing — give it ${raise}`
  const server =
    'the server\u2019s own cap: llama.cpp `llama-server -n N` (-1 = none), Ollama `num_predict` (PARAMETER num_predict N in a Modelfile)'
  if (produced !== undefined && produced < limit)
    return `after ${produced} tokens, before the ${limit} the request allowed: the server stopped it first — raise ${server}, or its context is full (llama.cpp -c, Ollama num_ctx / OLLAMA_CONTEXT_LENGTH, vLLM --max-model-len)`
  return `after ${produced ?? limit} tokens, the ${limit} the request allowed: a model that loops or thinks at length runs to the bound — give it ${raise}, and check ${server} is at least that; a model that keeps looping needs a different model or quantization`
}

/** What servers say when a prompt (plus its reply) does not fit their context window. */
const CONTEXT_OVERFLOW =
  /context size has been exceeded|exceed_context_size_error|exceeds the available context size|context_length_exceeded|maximum context length|context window (?:is )?(?:full|exceeded)|prompt is too long|input (?:is too long|length exceeds)/i

/**
 * True when an error text is a server's "the context window is full" (llama.cpp's 500 "Context size has been
 * exceeded" and 400 `exceed_context_size_error`, OpenAI's and vLLM's `context_length_exceeded` / "maximum context
 * length"). Retrying the same request cannot make it fit.
 *
 * @example
 * isContextOverflow('500 Context size has been exceeded.') // true
 */
export function isContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW.test(text)
}

/**
 * What to do about a context overflow, for the error message.
 *
 * @example
 * contextOverflowAdvice() // 'the prompt and its reply do not fit the server's context window: …'
 */
export function contextOverflowAdvice(): string {
  return (
    'the prompt and its reply do not fit the server\u2019s context window (not retried: the same request fails the same way). ' +
    'Lower the calls in flight (";concurrency=1" in AGENT_VERDICT_JUDGE: llama.cpp splits -c across its --parallel slots), ' +
    'start the server with a larger context (llama.cpp -c 16384, Ollama num_ctx / OLLAMA_CONTEXT_LENGTH), ' +
    'or tell agent-verdict the context it has (";context=8k") so diagnose fits its span prompts to it'
  )
}
