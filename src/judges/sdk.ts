// The provider SDKs, each loaded once on first use: by its judge's first call, or earlier by prewarmJudge.
// Nothing else here, so the warm-up can import it without the judges' code.
let openaiModule: Promise<typeof import('openai')> | undefined
let bedrockModule: Promise<typeof import('@aws-sdk/client-bedrock-runtime')> | undefined

/** The OpenAI SDK (bundled into dist/, decision 0031), loaded once. */
export const loadOpenAI = (): Promise<typeof import('openai')> => (openaiModule ??= import('openai'))

/** The Bedrock runtime client, loaded once. */
export const loadBedrock = (): Promise<typeof import('@aws-sdk/client-bedrock-runtime')> =>
  (bedrockModule ??= import('@aws-sdk/client-bedrock-runtime'))
