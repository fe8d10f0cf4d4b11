// The agent's HTTP/2 calls (node:http2, which @mswjs/interceptors does not see): the AWS SDK's default
// NodeHttp2Handler (BedrockRuntimeClient), and any client on `http2.connect`. While a file records, `http2.connect`
// returns a session that connects only when a request must go out: a replayed call opens no socket at all. Requests
// of a recorded test are matched and stored as HTTP/1 ones are (http2-stream.ts); any other request (outside a test,
// a judge call, a skipped host) goes out untouched on the real session.
import { EventEmitter } from 'node:events'
import http2, {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type ClientSessionOptions,
  type ClientSessionRequestOptions,
  type OutgoingHttpHeaders,
  type SecureClientSessionOptions,
  type Settings,
} from 'node:http2'
import { syncBuiltinESMExports } from 'node:module'
import { Duplex } from 'node:stream'
import { isJudgeTraffic } from '../config/judge-traffic'
import { RecordedHttp2Stream, type StreamOwner } from './http2-stream'
import type { RecordingMissError } from './miss'
import { storedUrl } from './request'

/** The test a request belongs to, and whether its host is recorded (intercept.ts's RequestOwner). */
export type Http2Owner = StreamOwner & { records(url: URL): boolean }

type Connect = typeof http2.connect
type Options = ClientSessionOptions | SecureClientSessionOptions

let native: Connect | undefined
let ours: Connect | undefined
let resolveOwner: () => Http2Owner | undefined = () => undefined

/**
 * Patches `http2.connect` (idempotent) so requests made on sessions it opens are recorded for the test `owner` names.
 *
 * @example
 * patchHttp2(() => ({ session, test: 'a', attempt: '0.0', records: () => true }))
 */
export function patchHttp2(owner: () => Http2Owner | undefined): void {
  resolveOwner = owner
  if (ours) return
  const before = http2.connect
  native = before
  ours = function connect(this: unknown, authority: string | URL, ...rest: unknown[]) {
    const options = typeof rest[0] === 'object' ? (rest[0] as Options | undefined) : undefined
    // A client that brings its own connection (@grpc/grpc-js) manages the session itself and reads its socket once
    // connected: it gets Node's own session, as gRPC is not recorded. So does a judge's client (a Bedrock judge): its
    // calls are verdicts, and its sessions stay as they are without recordings.
    if (options?.createConnection || isJudgeTraffic())
      return (before as (...args: unknown[]) => ClientHttp2Session)(authority, ...rest)
    const listener = typeof rest[rest.length - 1] === 'function' ? (rest[rest.length - 1] as () => void) : undefined
    return new ReplayableHttp2Session(before, authority, options, listener)
  } as Connect
  http2.connect = ours
  syncBuiltinESMExports()
}

/**
 * Gives `http2.connect` back (unless someone patched it after us). Sessions opened while patched stay usable: their
 * requests go out untouched from now on.
 *
 * @example
 * unpatchHttp2()
 */
export function unpatchHttp2(): void {
  resolveOwner = () => undefined
  if (!ours || !native) return
  if (http2.connect === ours) {
    http2.connect = native
    syncBuiltinESMExports()
  }
  ours = undefined
  native = undefined
}

/**
 * The request body's type when it streams while the answer does (Bedrock's bidirectional event stream, gRPC): such a
 * body never ends before the answer starts, so it cannot be matched, and its frames carry per-call signatures.
 */
function streamedBody(headers: OutgoingHttpHeaders): string | undefined {
  const type = String(headers['content-type'] ?? headers['Content-Type'] ?? '').toLowerCase()
  return /^application\/(vnd\.amazon\.eventstream|grpc)\b/.test(type) ? type : undefined
}

function unrecordable(owner: Http2Owner, headers: OutgoingHttpHeaders, url: URL, type: string): RecordingMissError {
  const method = String(headers[http2.constants.HTTP2_HEADER_METHOD] ?? 'GET')
  return owner.session.refuse(
    owner,
    `agent recording: ${method} ${storedUrl(url.href)} in test "${owner.test}" sends a streamed HTTP/2 body (${type}) while its answer streams back; agent recordings cannot record or replay such a call, and in replay mode it does not go out. To let it reach ${url.host} in CI too, add the host to skipHosts (agentVerdict({ recordings: { skipHosts: ['${url.host}'] } })); or mock it in the test.`,
  )
}

/** A stream that fails with `error` as soon as the caller can listen. */
function refused(error: Error): Duplex {
  const stream = new Duplex({ read() {}, write: (_chunk, _encoding, callback) => callback() })
  process.nextTick(() => stream.destroy(error))
  return stream
}

const ERR_SESSION = (destroyed: boolean) =>
  Object.assign(
    new Error(destroyed ? 'The session has been destroyed' : 'New streams cannot be created after receiving a GOAWAY'),
    {
      code: destroyed ? 'ERR_HTTP2_INVALID_SESSION' : 'ERR_HTTP2_GOAWAY_SESSION',
    },
  )

/**
 * A ClientHttp2Session that connects on first need. Settings, ref/unref and timeouts asked of it before then are
 * kept and applied to the real session when it opens; its `goaway`, `error`, `frameError`, `timeout` and `close`
 * reach the caller's listeners.
 */
class ReplayableHttp2Session extends EventEmitter {
  readonly type = http2.constants.NGHTTP2_SESSION_CLIENT
  readonly encrypted: boolean
  readonly alpnProtocol: string
  connecting = true
  closed = false
  destroyed = false
  readonly #url: URL
  readonly #connect: Connect
  readonly #options: Options | undefined
  #real: ClientHttp2Session | undefined
  #realGone = false
  #settings: Settings = {}
  #refed = true
  #timeout: number | undefined
  readonly #streams = new Set<RecordedHttp2Stream>()

  constructor(connect: Connect, authority: string | URL, options: Options | undefined, listener?: () => void) {
    super()
    this.#connect = connect
    this.#url = new URL(String(authority))
    this.#options = options
    this.encrypted = this.#url.protocol === 'https:'
    this.alpnProtocol = this.encrypted ? 'h2' : 'h2c'
    if (listener) this.once('connect', listener)
    process.nextTick(() => {
      this.connecting = false
      if (!this.destroyed) this.emit('connect', this, this.#real?.socket)
    })
  }

  get socket() {
    return this.#real?.socket
  }
  get state() {
    return this.#real?.state ?? {}
  }
  get localSettings() {
    return this.#real?.localSettings ?? this.#settings
  }
  get remoteSettings() {
    return this.#real?.remoteSettings ?? {}
  }
  get pendingSettingsAck() {
    return this.#real?.pendingSettingsAck ?? false
  }
  get originSet() {
    return this.#real?.originSet
  }

  request(headers: OutgoingHttpHeaders = {}, options?: ClientSessionRequestOptions): ClientHttp2Stream {
    if (this.destroyed || this.closed) throw ERR_SESSION(this.destroyed)
    const owner = isJudgeTraffic() ? undefined : resolveOwner()
    const url = this.#requestUrl(headers)
    if (!owner || !owner.records(url)) return this.#live().request(headers, options)
    const streamed = streamedBody(headers)
    if (streamed) {
      const { mode, update } = owner.session.options
      if (mode !== 'replay' || update) return this.#live().request(headers, options)
      return refused(unrecordable(owner, headers, url, streamed)) as unknown as ClientHttp2Stream
    }
    const stream = new RecordedHttp2Stream(
      { live: () => this.#live(), done: (s) => this.#streamDone(s) },
      owner,
      url,
      headers,
      options,
    )
    this.#streams.add(stream)
    return stream as unknown as ClientHttp2Stream
  }

  settings(settings: Settings, callback?: (err: Error | null, settings: Settings, duration: number) => void): void {
    this.#settings = { ...this.#settings, ...settings }
    if (this.#real) return void this.#real.settings(settings, callback)
    if (callback) process.nextTick(callback, null, this.#settings, 0)
  }

  ref(): void {
    this.#refed = true
    this.#real?.ref()
  }

  unref(): void {
    this.#refed = false
    this.#real?.unref()
  }

  setTimeout(ms: number, callback?: () => void): void {
    if (callback) this.on('timeout', callback)
    this.#timeout = ms
    this.#real?.setTimeout(ms)
  }

  ping(...args: unknown[]): boolean {
    if (this.#real) return (this.#real.ping as (...a: unknown[]) => boolean)(...args)
    const callback = args.find((a) => typeof a === 'function') as ((...a: unknown[]) => void) | undefined
    const payload = args.find((a) => ArrayBuffer.isView(a)) ?? Buffer.alloc(8)
    if (callback) process.nextTick(callback, null, 0, payload)
    return true
  }

  goaway(...args: unknown[]): void {
    ;(this.#real?.goaway as ((...a: unknown[]) => void) | undefined)?.(...args)
  }

  setLocalWindowSize(size: number): void {
    this.#real?.setLocalWindowSize(size)
  }

  close(callback?: () => void): void {
    if (callback) this.once('close', callback)
    if (this.closed) return
    this.closed = true
    this.#real?.close()
    this.#finishIfIdle()
  }

  destroy(error?: Error, code?: number): void {
    if (this.destroyed) return
    this.destroyed = true
    this.closed = true
    if (this.#real && !this.#real.destroyed) this.#real.destroy(error, code)
    for (const stream of this.#streams) stream.destroy(error)
    process.nextTick(() => {
      if (error && this.listenerCount('error') > 0) this.emit('error', error)
      this.emit('close')
    })
  }

  /** The URL a request goes to: `:scheme`, `:authority` and `:path`, defaulting to the session's origin. */
  #requestUrl(headers: OutgoingHttpHeaders): URL {
    const scheme = String(headers[http2.constants.HTTP2_HEADER_SCHEME] ?? this.#url.protocol.replace(/:$/, ''))
    const authority = String(headers[http2.constants.HTTP2_HEADER_AUTHORITY] ?? this.#url.host)
    const path = String(headers[http2.constants.HTTP2_HEADER_PATH] ?? '/')
    return new URL(`${scheme}://${authority}${path.startsWith('/') ? path : `/${path}`}`)
  }

  /** The real session, connected now if it is not yet. */
  #live(): ClientHttp2Session {
    if (this.#real) return this.#real
    if (this.#realGone || this.destroyed) throw ERR_SESSION(true)
    const settings = Object.keys(this.#settings).length
      ? { settings: { ...this.#options?.settings, ...this.#settings } }
      : {}
    const real = this.#connect(this.#url, { ...this.#options, ...settings })
    this.#real = real
    if (!this.#refed) real.unref()
    if (this.#timeout !== undefined) real.setTimeout(this.#timeout)
    for (const event of ['goaway', 'frameError', 'timeout', 'remoteSettings', 'localSettings', 'origin', 'altsvc'])
      real.on(event, (...args: unknown[]) => this.emit(event, ...args))
    real.on('error', (error) => {
      if (this.listenerCount('error') > 0) this.emit('error', error)
    })
    real.on('close', () => {
      this.#realGone = true
      if (this.destroyed) return
      // The connection is gone (the server closed it, an error): this session is done, as a real one would be.
      this.closed = true
      this.#finishIfIdle()
    })
    return real
  }

  #streamDone(stream: RecordedHttp2Stream): void {
    this.#streams.delete(stream)
    this.#finishIfIdle()
  }

  /** A closing session ends once its replayed streams and its real session (if it opened one) are done. */
  #finishIfIdle(): void {
    if (!this.closed || this.destroyed || this.#streams.size > 0) return
    if (this.#real && !this.#realGone) return
    this.destroy()
  }
}
