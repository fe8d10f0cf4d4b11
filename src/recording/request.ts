// A request as it is stored and matched: method, the URL with its query sorted and secrets redacted, and the body
// in a canonical form (JSON readable, form fields sorted, multipart and binary by digest). Headers are never part of
// it: the ones that matter to an answer (model, prompt) are in the body, the rest change per call or are credentials.
import { createHash } from 'node:crypto'
import { canonicalJson } from '../cassette/key'
import { registerSecret, scrubDeep, scrubSecrets, urlCredentials } from '../config/secrets'
import type { RecordedBody } from './format'

/** The request part of a recorded call. */
export interface StoredRequest {
  method: string
  url: string
  body?: RecordedBody
}

/** Query parameters that carry credentials: kept by name, their value redacted (so the match still sees them). */
const SECRET_PARAM =
  /^(key|api[-_]?key|apikey|token|access[-_]?token|id[-_]?token|auth|authorization|sig|signature|secret|client[-_]?secret|password|pass|session|code|subscription[-_]?key|x-amz-.*)$/i
/** Request headers whose values are credentials: registered as secrets so no echo of them reaches the file. */
export const CREDENTIAL_HEADERS =
  /^(authorization|proxy-authorization|x-api-key|api-key|cookie|x-amz-security-token|x-goog-api-key|ocp-apim-subscription-key|x-[\w-]*(token|key|secret|auth)[\w-]*)$/i
/** Text bodies above this are matched and kept by digest: a file is for reading. */
const MAX_TEXT_BODY = 256 * 1024

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')

/**
 * `url` as stored: no userinfo or fragment, query parameters sorted, credential-like values `[redacted]`. The
 * values of every query parameter are registered as secrets first, so an echo of them is scrubbed anywhere.
 *
 * @example
 * storedUrl('https://h/v1/x?b=2&key=abc123456789&a=1') // 'https://h/v1/x?a=1&b=2&key=%5Bredacted%5D'
 */
export function storedUrl(url: string): string {
  urlCredentials(url)
  const u = new URL(url)
  u.username = ''
  u.password = ''
  u.hash = ''
  const params = [...u.searchParams].map(([k, v]): [string, string] => [k, SECRET_PARAM.test(k) ? '[redacted]' : v])
  params.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
  u.search = params.length ? new URLSearchParams(params).toString() : ''
  return scrubSecrets(u.toString())
}

/** JSON fields whose string value is a credential, whatever it looks like (`{"access_token": "…"}`). */
const SECRET_FIELD =
  /^(api[-_]?key|apikey|x-api-key|token|access[-_]?token|refresh[-_]?token|id[-_]?token|session[-_]?token|secret|client[-_]?secret|password|passwd|authorization|private[-_]?key)$/i

/**
 * A copy of parsed JSON with credential-named fields `[redacted]` and every string scrubbed of known secrets.
 *
 * @example
 * redactJson({ access_token: 'abc', city: 'Oslo' }) // { access_token: '[redacted]', city: 'Oslo' }
 */
export function redactJson<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) && typeof x === 'string' ? '[redacted]' : walk(x)]),
    )
  }
  return scrubDeep(walk(value)) as T
}

/**
 * Registers the values of credential headers (`Bearer x` tokens and cookie values too) as secrets before anything
 * is written, so no echo of them (a gateway quoting its request) reaches a file.
 *
 * @example
 * registerHeaderCredentials(new Headers({ authorization: 'Bearer sk-…' }))
 */
export function registerHeaderCredentials(headers: Headers): void {
  for (const [name, value] of headers) {
    if (!CREDENTIAL_HEADERS.test(name)) continue
    registerSecret(value)
    if (/^cookie$/i.test(name))
      for (const pair of value.split(';')) registerSecret(pair.slice(pair.indexOf('=') + 1).trim())
  }
}

const isJsonType = (type: string) => /[/+]json\b/i.test(type)
const isTextType = (type: string) =>
  /^text\/|[/+](xml|x-www-form-urlencoded|javascript|graphql)\b|^application\/x-ndjson/i.test(type)

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * The body of a request as stored: JSON (secrets scrubbed) when it parses, a form with sorted fields, text, or the
 * digest of binary and multipart bodies (the multipart boundary, random per call, is left out of the digest).
 *
 * @example
 * storedRequestBody(new TextEncoder().encode('{"b":1,"a":2}'), 'application/json') // { json: { b: 1, a: 2 } }
 */
export function storedRequestBody(bytes: Uint8Array, contentType: string): RecordedBody | undefined {
  if (bytes.byteLength === 0) return undefined
  const boundary = /^multipart\/[^;]+;.*boundary="?([^";]+)"?/i.exec(contentType)?.[1]
  if (boundary) {
    const text = Buffer.from(bytes).toString('latin1').split(boundary).join('<boundary>')
    return { digest: `sha256:${sha256(Buffer.from(text, 'latin1'))}` }
  }
  const text = bytes.byteLength <= MAX_TEXT_BODY ? utf8(bytes) : undefined
  if (text === undefined) return { digest: `sha256:${sha256(bytes)}` }
  const trimmed = text.trimStart()
  if (isJsonType(contentType) || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { json: redactJson(JSON.parse(text)) }
    } catch {
      // Not JSON after all: kept as text below.
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType)) {
    const params = [...new URLSearchParams(text)].map(([k, v]): [string, string] => [
      k,
      SECRET_PARAM.test(k) ? '[redacted]' : v,
    ])
    params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return { text: scrubSecrets(new URLSearchParams(params).toString()) }
  }
  if (isTextType(contentType) || contentType === '' || /^[\t\n\r\x20-\x7e]*$/.test(text.slice(0, 512)))
    return { text: scrubSecrets(text) }
  return { digest: `sha256:${sha256(bytes)}` }
}

/** One step of a field path: a key, an index, or `*` for every key or index. */
type Step = string | number
const pathCache = new Map<string, Step[]>()

/**
 * `messages[*].id`, `$.metadata.request_id`, `input.0.id` → steps. Throws for an empty path.
 *
 * @example
 * parseFieldPath('$.messages[*].id') // ['messages', '*', 'id']
 */
export function parseFieldPath(path: string): Step[] {
  let steps = pathCache.get(path)
  if (steps) return steps
  steps = []
  for (const m of path.replace(/^\$\.?/, '').matchAll(/([^.[\]]+)|\[(\*|\d+|"[^"]*"|'[^']*')\]/g)) {
    const raw = m[1] ?? m[2]
    if (/^\d+$/.test(raw)) steps.push(Number(raw))
    else steps.push(raw.replace(/^["']|["']$/g, ''))
  }
  if (steps.length === 0)
    throw new TypeError(
      `agent recordings: ignoreBodyFields has an empty path "${path}" — name a field, e.g. "metadata.request_id"`,
    )
  pathCache.set(path, steps)
  return steps
}

function removePath(value: unknown, steps: Step[], i = 0): void {
  if (value === null || typeof value !== 'object') return
  const step = steps[i]
  const last = i === steps.length - 1
  const keys = step === '*' ? Object.keys(value) : [String(step)].filter((k) => Object.hasOwn(value as object, k))
  for (const k of keys) {
    if (last) {
      if (Array.isArray(value)) (value as unknown[])[Number(k)] = null
      else delete (value as Record<string, unknown>)[k]
    } else removePath((value as Record<string, unknown>)[k], steps, i + 1)
  }
}

/**
 * The form a request is matched on: method, stored URL and body, with the named volatile body fields removed.
 *
 * @example
 * matchForm({ method: 'POST', url, body: { json: { id: 'x', q: 1 } } }, ['id']) // { method: 'POST', url, body: { json: { q: 1 } } }
 */
export function matchForm(request: StoredRequest, ignoreBodyFields: readonly string[]): StoredRequest {
  if (!request.body || !('json' in request.body) || ignoreBodyFields.length === 0) return request
  const json = structuredClone(request.body.json)
  for (const path of ignoreBodyFields) removePath(json, parseFieldPath(path))
  return { ...request, body: { json } }
}

/**
 * The key a request is matched by: sha256 of the canonical JSON of its {@link matchForm}.
 *
 * @example
 * requestKey({ method: 'GET', url: 'http://127.0.0.1:4011/weather?city=Oslo' }, [])
 */
export function requestKey(request: StoredRequest, ignoreBodyFields: readonly string[]): string {
  return sha256(canonicalJson(matchForm(request, ignoreBodyFields)))
}
