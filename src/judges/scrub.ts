// Keeps credentials out of error messages, causes and excerpts: SDK errors can echo request headers.

/** Env vars whose values are credentials for the judge providers. */
const SECRET_ENV_VARS = [
  'OPENAI_API_KEY',
  'OPENAI_ADMIN_KEY',
  'AZURE_OPENAI_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
]

const registered = new Set<string>()

/** Token shapes that are credentials whatever their source (header dumps, URLs, SDK messages). */
const PATTERNS: Array<[RegExp, string]> = [
  [/(authorization|x-api-key|api-key|x-amz-security-token)(["']?\s*[:=]\s*["']?)(bearer\s+|basic\s+|aws4-hmac-sha256\s+)?[^\s"',;}]+/gi, '$1$2$3[redacted]'],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-[redacted]'],
  [/\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g, '$1[redacted]'],
  [/(Signature|Credential|X-Amz-Signature|X-Amz-Credential)=[^\s&"',]+/g, '$1=[redacted]'],
]

/**
 * Registers a credential value (e.g. an `apiKey` passed in code) so it is scrubbed like env keys.
 *
 * @example
 * registerSecret(myKey) // later error messages show [redacted] instead of the key
 */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 8) registered.add(value)
}

/**
 * Removes API keys, Authorization headers and AWS signatures from `text`.
 *
 * @example
 * scrubSecrets('401 Authorization: Bearer sk-abc123456789') // '401 Authorization: Bearer [redacted]'
 */
export function scrubSecrets(text: string): string {
  let out = text
  for (const secret of knownSecrets()) out = out.split(secret).join('[redacted]')
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement)
  return out
}

function knownSecrets(): string[] {
  const values = [...registered]
  for (const name of SECRET_ENV_VARS) {
    const value = process.env[name]
    if (value && value.length >= 8) values.push(value)
  }
  // Longest first so a key that contains another is removed whole.
  return values.sort((a, b) => b.length - a.length)
}
