// The OpenAI client's transport for judge calls: one HTTP/1.1 request with node:http(s) on a keep-alive agent,
// the answer read whole. Node's fetch (undici) costs a test worker ~20 ms to load and a few ms of CPU per
// request in web streams, both on the path of an eval file's first judge request and of every wave of calls
// after it; a judge call needs none of what fetch adds (decision 0031). The bundled SDK is built to use
// LightHeaders, isHeaders and isFormData below instead of the web globals that would load undici
// (tsup.config.ts); run from source, it uses the real ones, and this transport works with either.
// Default imports (the modules' own objects), read at call time: request interceptors that patch
// `http.request` (msw in our tests, or a user's) see these calls too.
import http from 'node:http'
import https from 'node:https'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/**
 * A Fetch-API `Headers` without Node's fetch implementation: case-insensitive names, values of one name joined
 * with `, `, iteration in insertion order. What the bundled OpenAI SDK builds its request headers with.
 *
 * @example
 * const h = new LightHeaders({ 'Content-Type': 'application/json' }); h.get('content-type') // 'application/json'
 */
export class LightHeaders {
  readonly #map = new Map<string, string>()

  constructor(init?: Iterable<readonly [string, string]> | Record<string, string>) {
    if (!init) return
    const pairs =
      typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function'
        ? (init as Iterable<readonly [string, string]>)
        : Object.entries(init as Record<string, string>)
    for (const [name, value] of pairs) this.append(name, value)
  }

  append(name: string, value: string): void {
    const key = String(name).toLowerCase()
    const old = this.#map.get(key)
    this.#map.set(key, old === undefined ? String(value) : `${old}, ${value}`)
  }
  set(name: string, value: string): void {
    this.#map.set(String(name).toLowerCase(), String(value))
  }
  get(name: string): string | null {
    return this.#map.get(String(name).toLowerCase()) ?? null
  }
  has(name: string): boolean {
    return this.#map.has(String(name).toLowerCase())
  }
  delete(name: string): void {
    this.#map.delete(String(name).toLowerCase())
  }
  entries(): IterableIterator<[string, string]> {
    return this.#map.entries()
  }
  keys(): IterableIterator<string> {
    return this.#map.keys()
  }
  values(): IterableIterator<string> {
    return this.#map.values()
  }
  forEach(callback: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#map) callback.call(thisArg, value, name, this)
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries()
  }
  get [Symbol.toStringTag](): string {
    return 'Headers'
  }
}

/**
 * True for a Fetch-API `Headers` or a {@link LightHeaders}, told by its tag: asking `x instanceof Headers`
 * would load Node's fetch implementation just to answer no.
 *
 * @example
 * isHeaders(new LightHeaders()) // true; isHeaders({ a: '1' }) // false
 */
export function isHeaders(value: unknown): value is LightHeaders {
  return Object.prototype.toString.call(value) === '[object Headers]'
}

/**
 * True for a `FormData`, told by its tag, without loading Node's fetch implementation (see {@link isHeaders}).
 *
 * @example
 * isFormData({ model: 'gpt-4.1' }) // false
 */
export function isFormData(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object FormData]'
}

/** What the OpenAI SDK reads of a fetch `Response` on a judge call. */
export interface TransportResponse {
  status: number
  statusText: string
  ok: boolean
  url: string
  headers: LightHeaders
  /** The body is read whole before the promise resolves: there is no stream to cancel. */
  body: null
  text(): Promise<string>
  json(): Promise<unknown>
  arrayBuffer(): Promise<ArrayBuffer>
}

interface TransportInit {
  method?: string
  headers?: unknown
  body?: unknown
  signal?: AbortSignal | null
}

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
}

function headerRecord(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (headers == null) return out
  const h = headers as { forEach?: (cb: (value: string, name: string) => void) => void }
  if (typeof h.forEach === 'function' && !Array.isArray(headers))
    h.forEach((value, name) => {
      out[name] = value
    })
  else {
    const pairs = Array.isArray(headers)
      ? (headers as Array<[string, string]>)
      : Object.entries(headers as Record<string, string>)
    for (const [name, value] of pairs) if (value !== undefined && value !== null) out[name] = String(value)
  }
  return out
}

function requestBody(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  throw new TypeError(`the judge transport sends string or byte bodies, not ${Object.prototype.toString.call(body)}`)
}

// As Node's fetch does: a network failure is a TypeError('fetch failed') with the socket's error as its cause. The
// wrapper is created in this module's realm, so the SDK keeps it whole even under Jest, whose test code runs in a
// vm context where a socket error from Node's own realm is no `instanceof Error` (the SDK would copy its message
// and lose its `code`, which classify-error reads along the cause chain).
function fetchFailed(err: unknown): TypeError {
  return new TypeError('fetch failed', { cause: err })
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason
  if (reason instanceof Error) return reason
  return new DOMException('This operation was aborted', 'AbortError')
}

/**
 * `fetch` for the OpenAI client of a judge: one request with node:http or node:https on a keep-alive agent,
 * resolved once the whole answer has arrived (decompressed if the server compressed it anyway). Rejects as fetch
 * does: a `TypeError('fetch failed')` whose cause is the socket's error (`ECONNREFUSED`, `ECONNRESET`, …), or
 * an `AbortError` when `signal` aborts (the SDK and src/judges/classify-error read both). Only string and byte
 * bodies: a judge request is JSON. A redirect is returned as it came, not followed.
 *
 * @example
 * const client = new OpenAI({ baseURL, apiKey, fetch: transportFetch as unknown as typeof fetch })
 */
export function transportFetch(url: string | URL, init: TransportInit = {}): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined
    if (signal?.aborted) return reject(abortError(signal))
    let target: URL
    let body: string | Uint8Array | undefined
    try {
      target = new URL(String(url))
      body = requestBody(init.body)
    } catch (err) {
      return reject(err)
    }
    const agent = agents[target.protocol as keyof typeof agents]
    if (!agent) return reject(new TypeError(`the judge transport speaks http and https, not ${target.protocol}`))
    const send = target.protocol === 'https:' ? https.request : http.request
    const headers = headerRecord(init.headers)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
    const onAbort = () => req.destroy(abortError(signal as AbortSignal))
    const req = send(target, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase()
      const decoder =
        encoding === 'gzip' || encoding === 'x-gzip'
          ? createGunzip()
          : encoding === 'deflate'
            ? createInflate()
            : encoding === 'br'
              ? createBrotliDecompress()
              : undefined
      const stream = decoder ? res.pipe(decoder) : res
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      const fail = (err: unknown) => {
        signal?.removeEventListener('abort', onAbort)
        reject(signal?.aborted ? abortError(signal) : fetchFailed(err))
      }
      stream.on('error', fail)
      res.on('error', fail)
      stream.on('end', () => {
        signal?.removeEventListener('abort', onAbort)
        const bytes = Buffer.concat(chunks)
        const responseHeaders = new LightHeaders()
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1])
        const status = res.statusCode ?? 0
        resolve({
          status,
          statusText: res.statusMessage ?? '',
          ok: status >= 200 && status < 300,
          url: target.href,
          headers: responseHeaders,
          body: null,
          text: async () => bytes.toString('utf8'),
          json: async () => JSON.parse(bytes.toString('utf8')),
          arrayBuffer: async () =>
            bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
        })
      })
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort)
      reject(signal?.aborted ? abortError(signal) : fetchFailed(err))
    })
    req.end(body)
  })
}
