// The provider SDKs, each loaded once on first use: by its judge's first call, or earlier by prewarmJudge.
// Nothing else here, so the warm-up can import it without the judges' code.
import type { ClientOptions, OpenAI } from 'openai'
import { withBaseQuery } from './base-url'
import { transportAroundRecordings } from '../config/judge-traffic'
import { ownTransportUsable } from './fetch-choice'
import { cappedFetch } from './capped-fetch'

let openaiModule: Promise<typeof import('openai')> | undefined
let bedrockModule: Promise<typeof import('@aws-sdk/client-bedrock-runtime')> | undefined

/** The OpenAI SDK (bundled into dist/, decision 0031), loaded once. */
export const loadOpenAI = (): Promise<typeof import('openai')> => (openaiModule ??= import('openai'))

/** The Bedrock runtime client, loaded once. */
export const loadBedrock = (): Promise<typeof import('@aws-sdk/client-bedrock-runtime')> =>
  (bedrockModule ??= import('@aws-sdk/client-bedrock-runtime'))

/**
 * A judge's OpenAI client, wherever the call is made (the worker, or the run's coordinator): the SDK's own
 * retries off (the judge's retry policy decides), and our transport as its fetch unless this process routes
 * fetch through a proxy dispatcher (src/judges/http-transport.ts), when Node's fetch is used under the same
 * reply limits (src/judges/reply-body.ts).
 *
 * @example
 * const client = await newOpenAIClient({ apiKey, baseURL: 'http://127.0.0.1:11434/v1' })
 */
export async function newOpenAIClient(options: ClientOptions): Promise<OpenAI> {
  const { default: OpenAIClient } = await loadOpenAI()
  // Node's fetch (a proxy dispatcher applies) is wrapped so its replies are held to the same limits.
  const fetch = ownTransportUsable()
    ? ((await import('./http-transport')).transportFetch as unknown as typeof globalThis.fetch)
    : (cappedFetch((url, init) =>
        (transportAroundRecordings()?.fetch ?? globalThis.fetch)(url, init),
      ) as unknown as typeof globalThis.fetch)
  return new OpenAIClient({ ...withBaseQuery(options), maxRetries: 0, fetch })
}
