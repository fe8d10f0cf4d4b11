// What a local judge server says about its context window, read before judging: llama.cpp's `GET /props`
// (`default_generation_settings.n_ctx`) and Ollama's `POST /api/show` (`num_ctx` in `parameters`, else the
// model's `*.context_length`). A server that answers neither is simply not asked again.

/** A context size as a server reported it. */
export interface ServerContext {
  tokens: number
  /** Where the number came from, for messages (`llama.cpp /props n_ctx`). */
  source: string
  /**
   * True when it is the size calls really get (llama.cpp's n_ctx, Ollama's num_ctx); false when it is only the
   * model's maximum (Ollama without num_ctx runs a smaller default and cuts longer prompts without a word).
   */
  exact: boolean
}

const PROBE_TIMEOUT_MS = 3000

/**
 * The server's root for a chat-completions base URL: `http://127.0.0.1:8080/v1` → `http://127.0.0.1:8080`.
 *
 * @example
 * serverRoot('http://127.0.0.1:11434/v1/') // 'http://127.0.0.1:11434'
 */
export function serverRoot(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '')
}

async function getJson(url: string, init: RequestInit, fetchImpl: typeof fetch): Promise<unknown> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
    if (!res.ok) return undefined
    return await res.json()
  } catch {
    return undefined // not this kind of server, or not reachable: judging will say so with the real call
  }
}

const positive = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined

/**
 * Asks an OpenAI-compatible judge server for its context window: llama.cpp's `/props`, then Ollama's `/api/show`.
 * `undefined` when neither answers with a size (vLLM, LM Studio, a gateway) or the URL is HTTPS (a hosted service).
 *
 * @example
 * await probeServerContext('http://127.0.0.1:8080/v1', 'qwen') // { tokens: 8192, source: 'llama.cpp /props n_ctx', exact: true }
 */
export async function probeServerContext(
  baseURL: string,
  model: string,
  fetchImpl: typeof fetch = fetch,
): Promise<ServerContext | undefined> {
  // Local servers speak plain HTTP; a hosted gateway over HTTPS is not asked (it would only answer 404s).
  if (!/^http:\/\//i.test(baseURL)) return undefined
  const root = serverRoot(baseURL)
  const props = (await getJson(`${root}/props`, {}, fetchImpl)) as {
    default_generation_settings?: { n_ctx?: unknown }
  } | null
  const nCtx = positive(props?.default_generation_settings?.n_ctx)
  if (nCtx) return { tokens: nCtx, source: 'llama.cpp /props n_ctx', exact: true }
  const show = (await getJson(
    `${root}/api/show`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) },
    fetchImpl,
  )) as { parameters?: unknown; model_info?: Record<string, unknown> } | null
  if (!show || typeof show !== 'object') return undefined
  const numCtx = typeof show.parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters) : null
  if (numCtx) return { tokens: Number(numCtx[1]), source: 'Ollama /api/show num_ctx', exact: true }
  const info = show.model_info && typeof show.model_info === 'object' ? show.model_info : {}
  const key = Object.keys(info).find((k) => k.endsWith('.context_length'))
  const max = key ? positive(info[key]) : undefined
  return max ? { tokens: max, source: `Ollama /api/show ${key}`, exact: false } : undefined
}
