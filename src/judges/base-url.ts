// A gateway can take its key in the base URL's query (`…/v1?api-key=K`). The OpenAI SDK appends each path
// to the base URL as a string, which would send `/v1?api-key=K/chat/completions`: the query is moved to
// `defaultQuery`, which the SDK adds to every request it makes (chat, responses, batches, files, models).
import type { ClientOptions } from 'openai'

/**
 * Client options with the query of `baseURL` (or of `OPENAI_BASE_URL` when no base URL is given) moved to
 * `defaultQuery`, so every request URL keeps it; options without a query are returned as they are.
 *
 * @example
 * withBaseQuery({ baseURL: 'http://127.0.0.1:8080/v1?api-key=K' })
 * // { baseURL: 'http://127.0.0.1:8080/v1', defaultQuery: { 'api-key': 'K' } }
 */
export function withBaseQuery<T extends ClientOptions>(options: T, env: NodeJS.ProcessEnv = process.env): T {
  const base = options.baseURL ?? env.OPENAI_BASE_URL
  if (!base || !base.includes('?')) return options
  let url: URL
  try {
    url = new URL(base)
  } catch {
    return options
  }
  if (url.search === '') return options
  const query: Record<string, string> = {}
  for (const [key, value] of url.searchParams) query[key] = value
  url.search = ''
  url.hash = ''
  return {
    ...options,
    baseURL: url.toString().replace(/\/$/, ''),
    defaultQuery: { ...query, ...(options.defaultQuery ?? {}) },
  }
}
