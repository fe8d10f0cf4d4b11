// The OpenAI client's transport for judge calls: one HTTP/1.1 request with node:http(s) on a keep-alive agent,
// the answer read whole. Node's fetch (undici) costs a test worker ~20 ms to load and a few ms of CPU per
// request in web streams, both on the path of an eval file's first judge request and of every wave of calls
// after it; a judge call needs none of what fetch adds (decision 0031). The SDK itself builds its request
// headers with Node's `Headers` (decision 0052: its source is not rewritten); replies come back as LightHeaders.
// Default imports (the modules' own objects), read at call time: request interceptors that patch
// `http.request` (msw in our tests, or a user's) see these calls too; agent recordings' patch alone is gone around.
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { transportAroundRecordings } from '../config/judge-traffic'
import { lenientReplyText, parseReplyObject, readReplyBody } from './reply-body'
import { REPLY_WATCH, type ReplyWatch, replyLimits } from './reply-watch'

/**
 * A Fetch-API `Headers` without Node's fetch implementation: case-insensitive names, values of one name joined
 * with `, `, iteration in insertion order. The headers of the replies this transport hands the SDK.
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
  /** The reply's size limit and progress, from the judge (src/judges/reply-body.ts); the default limit without. */
  [REPLY_WATCH]?: ReplyWatch
}

const agents = {
  'http:': handsOutParked(new http.Agent({ keepAlive: true }), 'http:'),
  'https:': handsOutParked(new https.Agent({ keepAlive: true }), 'https:'),
}

/**
 * Connections opened ahead of the first judge requests ({@link preconnect}), by origin, until a request takes one.
 * One registry per process, not per copy of this module: the plugin that opens them and the coordinator that
 * sends the calls may load the package twice (Vite runs a linked or workspace package as source).
 */
const parked: Map<string, Set<net.Socket>> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('agent-verdict.parked-connections')
] ??= new Map()) as Map<string, Set<net.Socket>>

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const

/** The TLS server name an https request sends for a host (none for an IP address), as Node's agent computes it. */
const serverNameFor = (host: string): string | undefined => (net.isIP(host) === 0 ? host : undefined)

const originKey = (protocol: string, host: string, port: number): string =>
  `${protocol}//${host.startsWith('[') ? host.slice(1, -1) : host}:${port}`

/**
 * The agent's own `createConnection`, except that a request to an origin with a parked connection gets that one
 * (connected, or still connecting) instead of a new socket. Node's `Agent` documents `createConnection` as the
 * method to override for this; everything else (keep-alive, the pool) stays the agent's.
 */
function handsOutParked<A extends http.Agent>(agent: A, protocol: 'http:' | 'https:'): A {
  const create = agent.createConnection.bind(agent)
  agent.createConnection = (options, callback) => {
    const host = String(options.host ?? options.hostname ?? 'localhost')
    const port = Number(options.port ?? DEFAULT_PORT[protocol])
    const servername = (options as { servername?: string }).servername
    const socket =
      protocol === 'https:' && servername !== undefined && servername !== '' && servername !== serverNameFor(host)
        ? undefined
        : takeParked(originKey(protocol, host, port))
    return socket ?? create(options, callback)
  }
  return agent
}

function takeParked(key: string): net.Socket | undefined {
  const sockets = parked.get(key)
  if (!sockets) return undefined
  for (const socket of sockets) {
    sockets.delete(socket)
    const release = (socket as ParkedSocket)[UNPARK]
    release?.()
    // A connection the server closed, or that failed, is never handed to a request: it would fail it.
    if (socket.destroyed || !socket.writable || socket.readableEnded) {
      socket.destroy()
      continue
    }
    if (sockets.size === 0) parked.delete(key)
    return socket
  }
  parked.delete(key)
  return undefined
}

const UNPARK = Symbol.for('agent-verdict.unpark-connection')
type ParkedSocket = net.Socket & { [UNPARK]?: () => void }

/**
 * How long a preconnected socket waits for a request before it is closed. 10 s: a loaded 2-core CI machine took over
 * 3 s (the first value) from the fork to a worker's first call, and the connections expired unused. A server may
 * close an idle connection sooner (header timeouts are usually 60 s); one it closes is dropped and the request
 * opens its own.
 */
export const PARK_MS = 10_000

/**
 * Opens up to `count` connections (TCP, and TLS for https) to the origin of `baseURL` ahead of the first judge
 * requests, for the transport's agent to hand to them: the first wave of calls then skips the connection's round
 * trips (and the TLS handshake) on the path to its answers. Nothing is written on them until a request takes
 * one; TLS is verified exactly as for a request (same defaults: a certificate the request would refuse fails
 * the parked connection, which is then dropped). A connection unused after `parkMs`, closed by the server or
 * failed is dropped; none keeps the process alive. Returns how many were opened (0 for a URL that is not
 * http(s)).
 *
 * @example
 * preconnect('https://api.openai.com/v1', 8) // while the test workers start
 */
export function preconnect(baseURL: string, count: number, parkMs: number = PARK_MS): number {
  let url: URL
  try {
    url = new URL(baseURL)
  } catch {
    return 0
  }
  const protocol = url.protocol
  if (protocol !== 'http:' && protocol !== 'https:') return 0
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const port = url.port ? Number(url.port) : DEFAULT_PORT[protocol]
  const key = originKey(protocol, host, port)
  let sockets = parked.get(key)
  if (!sockets) parked.set(key, (sockets = new Set()))
  const wanted = Math.max(0, Math.floor(count)) - sockets.size
  for (let i = 0; i < wanted; i++) {
    const socket: ParkedSocket =
      protocol === 'https:' ? tls.connect({ host, port, servername: serverNameFor(host) }) : net.connect({ host, port })
    socket.unref()
    const drop = () => {
      parked.get(key)?.delete(socket)
      if (parked.get(key)?.size === 0) parked.delete(key)
      release()
      socket.destroy()
    }
    // Bytes before any request (a server's goodbye) mean the connection is not fresh: drop it.
    const onData = () => drop()
    const timer = setTimeout(drop, parkMs)
    timer.unref()
    const release = () => {
      clearTimeout(timer)
      socket.off('error', drop)
      socket.off('end', drop)
      socket.off('close', drop)
      socket.off('data', onData)
      delete socket[UNPARK]
      // In a request's hands the agent decides: a socket in use keeps the process alive, as any request does.
      socket.ref()
    }
    socket.on('error', drop)
    socket.on('end', drop)
    socket.on('close', drop)
    socket.on('data', onData)
    socket[UNPARK] = release
    sockets.add(socket)
  }
  return Math.max(0, wanted)
}

/**
 * Connections parked for `baseURL`'s origin right now, not yet taken by a request.
 *
 * @example
 * preconnect(base, 3); parkedConnections(base) // 3 once opened, 0 after three requests took them
 */
export function parkedConnections(baseURL: string): number {
  const url = new URL(baseURL)
  const protocol = url.protocol as 'http:' | 'https:'
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const port = url.port ? Number(url.port) : DEFAULT_PORT[protocol]
  return parked.get(originKey(protocol, host, port))?.size ?? 0
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

const isReplyBodyError = (err: unknown): boolean =>
  typeof (err as { replyBodyProblem?: unknown } | null)?.replyBodyProblem === 'string'

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason
  if (reason instanceof Error) return reason
  return new DOMException('This operation was aborted', 'AbortError')
}

/**
 * `fetch` for the OpenAI client of a judge: one request with node:http or node:https on a keep-alive agent,
 * resolved once the whole answer has arrived (decompressed if the server compressed it anyway), read no further
 * than the judge's reply limit (src/judges/reply-body.ts: a `ReplyBodyError` past it). Rejects as fetch
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
    // Around agent recordings' patch when it is the only one: it would never record a judge call, and in its hands
    // the request would not get the agent's parked or kept-alive connections.
    const send =
      transportAroundRecordings()?.[target.protocol as 'http:' | 'https:'] ??
      (target.protocol === 'https:' ? https.request : http.request)
    const headers = headerRecord(init.headers)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
    const onAbort = () => req.destroy(abortError(signal as AbortSignal))
    const watch = init[REPLY_WATCH]
    const req = send(target, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const status = res.statusCode ?? 0
      if (watch?.progress) {
        watch.progress.status = status
        watch.progress.headersAt = Date.now()
      }
      // Capped as it arrives, compressed and decompressed: a reply never holds more memory than the limit.
      readReplyBody(
        res,
        res.headers['content-encoding'],
        watch?.limits ?? replyLimits(undefined),
        watch?.progress,
      ).then(
        (bytes) => {
          signal?.removeEventListener('abort', onAbort)
          const responseHeaders = new LightHeaders()
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
            responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1])
          resolve({
            status,
            statusText: res.statusMessage ?? '',
            ok: status >= 200 && status < 300,
            url: target.href,
            headers: responseHeaders,
            body: null,
            text: async () => lenientReplyText(bytes),
            // Checked before the SDK or anything after it touches the reply (size, depth, keys, UTF-8).
            json: async () => parseReplyObject(bytes),
            arrayBuffer: async () =>
              bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
          })
        },
        (err: unknown) => {
          signal?.removeEventListener('abort', onAbort)
          // A refused reply is no network failure: it goes through as it is, for the classifier to name.
          reject(signal?.aborted ? abortError(signal) : isReplyBodyError(err) ? err : fetchFailed(err))
        },
      )
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort)
      reject(signal?.aborted ? abortError(signal) : fetchFailed(err))
    })
    req.end(body)
  })
}
