// Keeps credentials out of error messages, causes, excerpts, judge reasons, cassettes and reports:
// SDK errors can echo request headers, and a judge can quote whatever it was sent.
// It lives in src/config, the leaf that knows the configured credentials, so judges, cassettes, the CLI and
// the reporters can all scrub without importing judge code (DESIGN.md arrows).

import { decodedViews, ESCAPE_CHAR, mapView } from './decoded-views'
import { compileTargets, Readings, type Targets } from './spelled-spans'

/** Env vars whose values are credentials for the judge providers. */
const SECRET_ENV_VARS = [
  'OPENAI_API_KEY',
  'OPENAI_ADMIN_KEY',
  'AZURE_OPENAI_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_BEARER_TOKEN_BEDROCK',
]

/** Shorter values are not scrubbed by value: replacing every "abc" in a report would wreck it. */
const MIN_SECRET_LENGTH = 8

const registered = new Set<string>()

/** Token shapes that are credentials whatever their source (header dumps, URLs, SDK messages). */
const PATTERNS: Array<[RegExp, string]> = [
  // Any scheme word (`Bearer`, `Basic`, `token`, `AWS4-HMAC-SHA256`…) is kept and the token after it redacted.
  [
    /(authorization|x-api-key|api-key|x-amz-security-token)(["']?\s*[:=]\s*["']?)([A-Za-z][\w.-]*\s+)?[^\s"',;}]+/gi,
    '$1$2$3[redacted]',
  ],
  // Gateway headers such as x-gateway-token or Ocp-Apim-Subscription-Key, when a dump names them.
  [
    /\b(x-[\w-]*(?:token|key|secret|auth)|ocp-apim-subscription-key|[\w-]+-(?:token|secret|password)|password|client_secret|api_?key|access_token|refresh_token|session_token|secret_access_key)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;}&]{6,}/gi,
    '$1$2[redacted]',
  ],
  [/\bbearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer [redacted]'],
  // A scheme word in prose: the token must look like one (a digit or base64 padding), so "basic usage" stays.
  [/\b(basic|token)(\s+)(?!\[redacted\])(?=[A-Za-z0-9._~+/-]*[0-9=])[A-Za-z0-9._~+/-]{12,}={0,2}/gi, '$1$2[redacted]'],
  ...keyShapes().map((re): [RegExp, string] => [re, '$1[redacted]']),
  [/(Signature|Credential|X-Amz-Signature|X-Amz-Credential)=[^\s&"',]+/g, '$1=[redacted]'],
  // URL userinfo: scheme://user:pass@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, '$1[redacted]@'],
]

/**
 * Well-known key shapes, each with its prefix as group 1 (kept, so a reader sees what kind of key it was):
 * OpenAI/Anthropic `sk-`, GitHub `ghp_`/`gho_`/… and `github_pat_`, AWS key ids, Slack `xox?-`, Google `AIza`.
 */
function keyShapes(): RegExp[] {
  return [
    /\b(sk-)(?!\[redacted\])[A-Za-z0-9_-]{8,}/g,
    /\b(gh[pousr]_)[A-Za-z0-9]{20,}/g,
    /\b(github_pat_)[A-Za-z0-9_]{20,}/g,
    /\b(AKIA|ASIA)[A-Z0-9]{12,}\b/g,
    /\b(xox[abposr]-)[A-Za-z0-9-]{10,}/g,
    /\b(AIza)[0-9A-Za-z_-]{30,}/g,
  ]
}

/** Matches wherever one of PATTERNS could: their distinctive parts, in one alternation. */
const TRIGGER =
  /authorization|api[-_]?key|x-amz|x-[\w-]*(?:token|key|secret|auth)|ocp-apim|token|secret|password|bearer|basic|sk-|gh[pousr]_|github_pat_|xox[abposr]-|AIza|AKIA|ASIA|Signature=|Credential=|:\/\/[^\s/?#@"'<>]+@/i

/**
 * The same shapes for decoded text (a key written as escapes): the group to redact, found in a decoded view
 * and mapped back to the original characters, which are replaced whole.
 */
const DECODED_PATTERNS: Array<[RegExp, number]> = [
  [
    /(authorization|x-api-key|api-key|x-amz-security-token)["']?\s*[:=]\s*["']?(?:[A-Za-z][\w.-]*\s+)?([^\s"',;}]+)/dgi,
    2,
  ],
  [
    /\b(?:x-[\w-]*(?:token|key|secret|auth)|ocp-apim-subscription-key|[\w-]+-(?:token|secret|password)|password|client_secret|api_?key|access_token|refresh_token|session_token|secret_access_key)["']?\s*[:=]\s*["']?([^\s"',;}&]{6,})/dgi,
    1,
  ],
  [/\bbearer\s+([A-Za-z0-9._~+/=-]{8,})/dgi, 1],
  ...keyShapes().map((re): [RegExp, number] => [new RegExp(`(${re.source})`, 'dg'), 1]),
]

/**
 * Registers a credential value (e.g. an `apiKey` passed in code) so it is scrubbed like env keys.
 *
 * @example
 * registerSecret(myKey) // later error messages show [redacted] instead of the key
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string') return
  const trimmed = value.trim()
  if (trimmed.length >= MIN_SECRET_LENGTH) registered.add(trimmed)
  // A header value "Bearer xyz" (or "Token xyz", "Key xyz": any scheme word) is also echoed as its bare token.
  const token = /^[A-Za-z][\w.-]*\s+(\S+)$/.exec(trimmed)?.[1]
  if (token && token.length >= MIN_SECRET_LENGTH) registered.add(token)
}

/**
 * Registers every value of a header map (`defaultHeaders`, custom gateway headers): any of them may
 * be a credential, and a gateway may echo all of them.
 *
 * @example
 * registerHeaderSecrets({ 'x-gateway-token': token, 'Ocp-Apim-Subscription-Key': key })
 */
export function registerHeaderSecrets(headers: Record<string, unknown> | undefined | null): void {
  if (!headers || typeof headers !== 'object') return
  for (const value of Object.values(headers)) {
    if (typeof value === 'string') registerSecret(value)
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') registerSecret(v)
  }
}

/**
 * The user name and password of a URL (`http://user:pass@host`), or `undefined` when it has none.
 * Registers both as secrets so that any later echo is scrubbed, and so are the values of its query
 * string (`?subscription-key=…`, `?key=…`: gateways take keys there).
 *
 * @example
 * urlCredentials('http://bob:s3cret-pass@127.0.0.1:8080/v1') // { username: 'bob', password: 's3cret-pass' }
 */
export function urlCredentials(url: string): { username: string; password: string } | undefined {
  for (const value of queryValues(url)) {
    registerSecret(value)
    registerSecret(decodeSafely(value))
  }
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url.trim())
  if (!match) return undefined
  const userinfo = match[1]
  const colon = userinfo.indexOf(':')
  const username = colon < 0 ? userinfo : userinfo.slice(0, colon)
  const password = colon < 0 ? '' : userinfo.slice(colon + 1)
  for (const part of [username, password, userinfo]) {
    registerSecret(part)
    registerSecret(decodeSafely(part))
  }
  return { username: decodeSafely(username), password: decodeSafely(password) }
}

/**
 * `url` with any userinfo and every query value replaced by `[redacted]`, for messages that name an endpoint.
 *
 * @example
 * redactUrl('http://bob:pw@host/v1?subscription-key=abc') // 'http://[redacted]@host/v1?subscription-key=[redacted]'
 */
export function redactUrl(url: string): string {
  return url
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1[redacted]@')
    .replace(/([?&][^=&#\s;]*=)[^&#\s;]*/g, (_, key: string) => `${key}[redacted]`)
}

/** The values of a URL's query string, as written (`?a=1&b=2` → `['1', '2']`). */
function queryValues(url: string): string[] {
  const query = /\?([^#\s;]*)/.exec(url)?.[1]
  if (!query) return []
  return query.split('&').flatMap((pair) => {
    const eq = pair.indexOf('=')
    return eq < 0 ? [] : [pair.slice(eq + 1)]
  })
}

function decodeSafely(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * Removes API keys, Authorization headers, registered header values, URL userinfo and AWS
 * signatures from `text`.
 *
 * @example
 * scrubSecrets('401 Authorization: Bearer sk-abc123456789') // '401 Authorization: Bearer [redacted]'
 */
export function scrubSecrets(text: string): string {
  return scrubWith(text, knownSecrets())
}

/**
 * `text` scrubbed of `secrets` (in every form: literal, JSON-escaped, percent-encoded, HTML entities, layers of
 * these, each character its own way) and of credential shapes; the registry is not consulted. For tests and
 * callers with their own list.
 *
 * @example
 * scrubText('key \\u0073k-abc123456789', ['sk-abc123456789']) // 'key [redacted]'
 */
export function scrubText(text: string, secrets: readonly string[]): string {
  return scrubWith(text, secretSet(secrets.map((s) => s.trim()).filter((s) => s.length >= MIN_SECRET_LENGTH)))
}

/** The values to redact, and the copies of them found by a plain search (written literally or by one encoder). */
interface SecretSet {
  values: Targets
  forms: readonly string[]
  spaced: boolean
}

function scrubWith(text: string, secrets: SecretSet): string {
  let out = text
  for (const secret of secrets.forms) if (out.includes(secret)) out = out.split(secret).join('[redacted]')
  // Only a text holding an escape character is decoded: most strings (ids, names, prose) hold none.
  if (ESCAPE_CHAR.test(out) || (secrets.spaced && out.includes('+'))) out = scrubDecoded(out, secrets)
  // One scan decides whether any shape pattern can match: most strings (ids, names, prose) cannot.
  if (!TRIGGER.test(out)) return out
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement)
  return out
}

/**
 * Lower-case words one of which every DECODED_PATTERNS match holds: a text that spells none of them, in any
 * mixture of forms, has no credential shape in any decoded form, and its decoded forms need not be built.
 */
const SHAPE_KEYWORDS = compileTargets(
  [
    'auth',
    'key',
    'token',
    'secret',
    'password',
    'bearer',
    'sk-',
    'github_pat_',
    'akia',
    'asia',
    'aiza',
    ...[...'pousr'].map((c) => `gh${c}_`),
    ...[...'abposr'].map((c) => `xox${c}-`),
  ],
  true,
)

/**
 * Redacts the original characters of every secret the text spells with its characters written in any forms
 * (`Readings`), and of every key shape found in a decoded form of the text.
 */
function scrubDecoded(text: string, secrets: SecretSet): string {
  const readings = new Readings(text)
  const spans = readings.spans(secrets.values)
  if (readings.spellsAny(SHAPE_KEYWORDS)) spans.push(...shapeSpans(text))
  if (spans.length === 0) return text
  spans.sort((a, b) => a[0] - b[0])
  let out = ''
  let pos = 0
  for (const [from, to] of spans) {
    if (to <= pos) continue
    if (from >= pos) out += `${text.slice(pos, from)}[redacted]`
    pos = to
  }
  return out + text.slice(pos)
}

/** The spans of `text` whose decoded form (a layered reading, decoded-views.ts) matches a credential shape. */
function shapeSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = []
  let literal: Array<[number, number]> | undefined
  for (const lazy of decodedViews(text)) {
    if (!TRIGGER.test(lazy.text)) continue
    const shapes: Array<[number, number]> = []
    for (const [pattern, group] of DECODED_PATTERNS) {
      for (const m of lazy.text.matchAll(pattern)) {
        const [from, to] = m.indices?.[group] ?? [0, 0]
        if (to > from) shapes.push([from, to])
      }
    }
    if (shapes.length === 0) continue
    // The map back to the original is built only for a form that holds a match.
    const view = mapView(lazy)
    for (const [from, to] of shapes) {
      const span: [number, number] = [view.starts[from], view.ends[to - 1]]
      // Written without escapes and matched by PATTERNS in the original, the shape is theirs to redact (they keep
      // the key's prefix); when only its context is escaped (`x-api-key&#58; K`, `token%20ghp_…`) PATTERNS miss it.
      if (text.slice(span[0], span[1]) !== view.text.slice(from, to)) spans.push(span)
      else if (!(literal ??= literalRanges(text)).some(([a, b]) => a <= span[0] && span[1] <= b)) spans.push(span)
    }
  }
  return spans
}

/** The spans of `text` that PATTERNS match as written. */
function literalRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = []
  for (const [pattern] of PATTERNS)
    for (const m of text.matchAll(pattern)) ranges.push([m.index, m.index + m[0].length])
  return ranges
}

/**
 * A copy of `value` with every string (keys excepted) passed through `scrubSecrets`: for judge
 * replies before they become reasons, cassette entries and report artifacts. Iterative, so deep data
 * cannot overflow the stack; non-plain objects (Buffers, Dates) are kept as they are.
 *
 * @example
 * scrubDeep({ reasoning: 'the header was x-gateway-token: abc123456789', score: 1 })
 */
export function scrubDeep<T>(value: T): T {
  if (typeof value === 'string') return scrubSecrets(value) as T
  if (!isContainer(value)) return value
  // Looked up once per call: a report can hold 100k strings.
  const secrets = knownSecrets()
  const root: { v: unknown } = { v: value }
  const stack: Array<[Record<string | number, unknown>, string | number, unknown]> = [
    [root as Record<string, unknown>, 'v', value],
  ]
  while (stack.length > 0) {
    const [parent, key, current] = stack.pop()!
    if (typeof current === 'string') {
      parent[key] = scrubWith(current, secrets)
    } else if (Array.isArray(current)) {
      const copy = current.slice()
      parent[key] = copy
      for (let i = 0; i < copy.length; i++) stack.push([copy as unknown as Record<number, unknown>, i, copy[i]])
    } else if (isContainer(current)) {
      const copy: Record<string, unknown> = { ...(current as Record<string, unknown>) }
      parent[key] = copy
      for (const k of Object.keys(copy)) stack.push([copy, k, copy[k]])
    }
  }
  return root.v as T
}

function isContainer(value: unknown): boolean {
  if (Array.isArray(value)) return true
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function knownSecrets(): SecretSet {
  const values = [...registered]
  for (const name of SECRET_ENV_VARS) {
    const value = process.env[name]?.trim()
    if (value && value.length >= MIN_SECRET_LENGTH) values.push(value)
  }
  // Header values and URL userinfo in AGENT_VERDICT_JUDGE count in every process (reporters included).
  // A gateway key in the query of OPENAI_BASE_URL (`…/v1?api-key=K`) is a credential in every process too.
  for (const part of queryValues(process.env.OPENAI_BASE_URL ?? ''))
    for (const v of [part, decodeSafely(part)]) if (v.length >= MIN_SECRET_LENGTH) values.push(v)
  const spec = process.env.AGENT_VERDICT_JUDGE
  if (spec) {
    for (const m of spec.matchAll(/;\s*header\.[^=;]+=([^;]*)/gi))
      if (m[1].trim().length >= MIN_SECRET_LENGTH) values.push(m[1].trim())
    const userinfo = /:\/\/([^/?#\s]*)@/.exec(spec)?.[1]
    if (userinfo)
      for (const part of [userinfo, ...userinfo.split(':')]) if (part.length >= MIN_SECRET_LENGTH) values.push(part)
    for (const part of queryValues(spec))
      for (const v of [part, decodeSafely(part)]) if (v.length >= MIN_SECRET_LENGTH) values.push(v)
  }
  return secretSet(values)
}

let lastSet: { key: string; set: SecretSet } | undefined

/**
 * The values (each once), and each with its JSON-escaped and URL-encoded copies (found fast, literally), longest
 * first so a key that contains another is removed whole.
 */
function secretSet(values: readonly string[]): SecretSet {
  const unique = [...new Set(values)]
  // scrubSecrets runs on every message and the values rarely change: the last set is reused while they match.
  const key = unique.join('\u0000')
  if (lastSet && lastSet.key === key) return lastSet.set
  const forms = new Set<string>()
  for (const value of unique) forms.add(value).add(encodeURIComponent(value)).add(JSON.stringify(value).slice(1, -1))
  const set: SecretSet = {
    values: compileTargets(unique),
    forms: [...forms].sort((a, b) => b.length - a.length),
    spaced: unique.some((v) => v.includes(' ')),
  }
  lastSet = { key, set }
  return set
}

/**
 * The key, or undefined when it is missing, empty or blank.
 *
 * @example
 * presentKey(process.env.OPENAI_API_KEY) ?? 'not-needed'
 */
export function presentKey(key: string | undefined): string | undefined {
  const trimmed = key?.trim()
  return trimmed ? trimmed : undefined
}
