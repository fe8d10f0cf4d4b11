// The provider SDKs, each loaded once on first use: by its judge's first call, or earlier by prewarmJudge.
// Nothing else here, so the warm-up can import it without the judges' code.
import type { ClientOptions, OpenAI } from 'openai'
import { withBaseQuery } from './base-url'
import { transportAroundRecordings } from '../config/judge-traffic'
import { ownTransportUsable } from './fetch-choice'
import { cappedFetch } from './capped-fetch'
import { JudgeConfigError } from './errors'

let openaiModule: Promise<typeof import('openai')> | undefined
let bedrockModule:
  | {
      load: () => Promise<typeof import('@aws-sdk/client-bedrock-runtime')>
      module: Promise<typeof import('@aws-sdk/client-bedrock-runtime')>
    }
  | undefined

/** The OpenAI SDK (bundled into dist/, decision 0031), loaded once. */
export const loadOpenAI = (): Promise<typeof import('openai')> => (openaiModule ??= import('openai'))

/** How the optional Bedrock SDK is imported: a seam, so a test can see what a project without it gets. */
export const sdkImports = { bedrock: () => import('@aws-sdk/client-bedrock-runtime') }

/** The install command a Bedrock judge needs (the SDK is an optional peer dependency: only Bedrock users pay for it). */
export const BEDROCK_INSTALL = 'npm install -D @aws-sdk/client-bedrock-runtime'

/**
 * The Bedrock runtime SDK, loaded once. Not installed: a {@link JudgeConfigError} naming the install command
 * (a setup error fails loudly, never an unjudgeable verdict); a later call tries again, so installing it mid-watch works.
 *
 * @example
 * const { ConverseCommand } = await loadBedrock()
 */
export function loadBedrock(): Promise<typeof import('@aws-sdk/client-bedrock-runtime')> {
  const load = sdkImports.bedrock
  // Loaded once per loader: a test that swaps the seam gets its own load, not an earlier test's module.
  if (bedrockModule?.load === load) return bedrockModule.module
  const module = load().catch((err: unknown) => {
    bedrockModule = undefined
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err
    throw new JudgeConfigError(
      `a Bedrock judge is configured but @aws-sdk/client-bedrock-runtime is not installed — install it: ${BEDROCK_INSTALL}`,
      { provider: 'bedrock', cause: err, listForms: false },
    )
  })
  bedrockModule = { load, module }
  return module
}

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
