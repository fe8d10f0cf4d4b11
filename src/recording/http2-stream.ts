// One recorded test's HTTP/2 request (node:http2 `session.request(headers)`), as the caller sees a ClientHttp2Stream:
// it takes the request body, then — once the body has ended, so the request can be matched on it — is answered from
// the recording (no socket at all), fails as a replay miss, or goes out on the real session and has its answer
// recorded as it streams back to the caller. Events the AWS SDK's NodeHttp2Handler reads: `response`, `data`, `end`,
// `error`, `aborted`, `frameError`, `close`, `trailers`; methods: `setTimeout`, `close`, `destroy`.
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2'
import { constants } from 'node:http2'
import { Duplex } from 'node:stream'
import type { RecordedCall } from './format'
import { headersOf, recordedCall } from './recorded-call'
import { noteReplayedCall } from './replay-timing'
import { registerHeaderCredentials, type StoredRequest, storedRequestBody, storedUrl } from './request'
import { servedChunks } from './response-body'
import type { Decision, RecordingSession } from './session'

/** The test a request belongs to (see intercept.ts's RequestOwner). */
export interface StreamOwner {
  session: RecordingSession
  test: string
  attempt: string
}

/** What a stream needs of the session it was opened on. */
export interface StreamHost {
  /** The real session, connected on first use. */
  live(): ClientHttp2Session
  /** The stream has closed (the session may finish closing). */
  done(stream: RecordedHttp2Stream): void
}

/** Methods whose request has no payload: Node's http2 ends their writable side at once (`endStream`). */
const NO_PAYLOAD = new Set(['GET', 'HEAD', 'DELETE'])
let nextId = 1

/**
 * A ClientHttp2Stream stand-in for a request a test makes on a recorded HTTP/2 session.
 *
 * @example
 * const stream = new RecordedHttp2Stream(host, owner, url, headers, options) // returned by session.request()
 */
export class RecordedHttp2Stream extends Duplex {
  readonly id = (nextId += 2)
  readonly sentHeaders: OutgoingHttpHeaders
  rstCode: number | undefined = undefined
  pending = false
  aborted = false
  readonly #host: StreamHost
  readonly #chunks: Buffer[] = []
  /** The replayed body still to serve, one chunk per read; `undefined` before the answer. */
  #served: Buffer[] | undefined
  #wanted = false
  #real: ClientHttp2Stream | undefined
  #timeout: number | undefined

  constructor(
    host: StreamHost,
    owner: StreamOwner,
    url: URL,
    headers: OutgoingHttpHeaders,
    readonly options: { endStream?: boolean } | undefined,
  ) {
    super()
    this.#host = host
    this.sentHeaders = headers
    const method = String(headers[constants.HTTP2_HEADER_METHOD] ?? 'GET').toUpperCase()
    let bodyEnded: () => void = () => {}
    const ended = new Promise<void>((resolve) => {
      bodyEnded = resolve
    })
    this.once('finish', bodyEnded)
    // Chained here, in the caller's async context: the decision and the replay timing belong to its test.
    void ended.then(() => this.#answer(owner, method, url, headers)).catch((err: unknown) => this.destroy(err as Error))
    this.once('close', () => host.done(this))
    if (options?.endStream ?? NO_PAYLOAD.has(method)) this.end()
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#chunks.push(chunk)
    callback()
  }

  override _read(): void {
    if (this.#real) {
      this.#real.resume()
      return
    }
    this.#wanted = true
    this.#pump()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.rstCode ??= error ? constants.NGHTTP2_INTERNAL_ERROR : constants.NGHTTP2_NO_ERROR
    if (this.#real && !this.#real.destroyed) this.#real.close(this.rstCode)
    callback(error)
  }

  /** Like ClientHttp2Stream#setTimeout: idle time on the real stream (a replayed stream is never idle). */
  setTimeout(ms: number, callback?: () => void): this {
    if (callback) this.on('timeout', callback)
    this.#timeout = ms
    this.#real?.setTimeout(ms)
    return this
  }

  /** Like ClientHttp2Stream#close: resets the stream with `code`. */
  close(code: number = constants.NGHTTP2_NO_ERROR, callback?: () => void): void {
    if (callback) this.once('close', callback)
    this.rstCode ??= code
    this.destroy()
  }

  /** Serves the next replayed chunk when the reader wants one: streams arrive piece by piece, as they were sent. */
  #pump(): void {
    if (!this.#served || !this.#wanted) return
    this.#wanted = false
    this.push(this.#served.shift() ?? null)
  }

  async #answer(owner: StreamOwner, method: string, url: URL, headers: OutgoingHttpHeaders): Promise<void> {
    const sent = headersOf(headers)
    // Before anything can be written: a credential header's value is a secret wherever it shows up.
    registerHeaderCredentials(sent)
    const bytes = Buffer.concat(this.#chunks)
    const body = storedRequestBody(bytes, sent.get('content-type') ?? '')
    const stored: StoredRequest = { method, url: storedUrl(url.href), ...(body ? { body } : {}) }
    const started = performance.now()
    const decision = await owner.session.decide(owner, stored)
    if (this.destroyed) {
      if (decision.kind === 'record') decision.forget()
      return
    }
    if (decision.kind === 'replay') return this.#replay(stored.url, decision.call)
    if (decision.kind === 'miss') return void this.destroy(decision.error)
    this.#goLive(decision, stored, started, bytes)
  }

  #replay(url: string, call: RecordedCall): void {
    noteReplayedCall({ url, recordedMs: call.durationMs })
    const { status, headers, body } = call.response
    this.#served = servedChunks(body).map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))
    this.emit('response', { [constants.HTTP2_HEADER_STATUS]: status, ...headers }, constants.NGHTTP2_FLAG_END_HEADERS)
    this.#pump()
  }

  /** Sends the request on the real session; the caller reads the answer as it streams, and it is recorded. */
  #goLive(
    decision: Extract<Decision, { kind: 'record' }>,
    request: StoredRequest,
    started: number,
    body: Buffer,
  ): void {
    let real: ClientHttp2Stream
    try {
      real = this.#host.live().request(this.sentHeaders, this.options)
    } catch (err) {
      decision.forget()
      this.destroy(err as Error)
      return
    }
    this.#real = real
    if (this.#timeout !== undefined) real.setTimeout(this.#timeout)
    let head: IncomingHttpHeaders | undefined
    let ended = false
    const raw: Buffer[] = []
    let resolveReading: () => void = () => {}
    decision.track(
      new Promise<void>((resolve) => {
        resolveReading = resolve
      }),
    )
    const forget = () => {
      decision.forget()
      resolveReading()
    }
    real.on('response', (headers, flags) => {
      head = headers
      this.emit('response', headers, flags)
    })
    for (const event of ['headers', 'continue', 'trailers', 'timeout', 'frameError'])
      (real as NodeJS.EventEmitter).on(event, (...args: unknown[]) => this.emit(event, ...args))
    real.on('data', (chunk: Buffer) => {
      raw.push(chunk)
      if (!this.push(chunk)) real.pause()
    })
    real.on('end', () => {
      ended = true
      this.push(null)
      if (!head) return forget()
      const status = Number(head[constants.HTTP2_HEADER_STATUS])
      const call = recordedCall(request, started, {
        status,
        headers: headersOf(head),
        raw: Buffer.concat(raw),
        encoded: true,
      })
      void decision.save(call).finally(resolveReading)
    })
    real.on('aborted', () => {
      this.aborted = true
      this.emit('aborted')
    })
    real.on('error', (err) => {
      forget()
      this.destroy(err)
    })
    real.on('close', () => {
      // Closed before its body ended (reset, session gone): no answer to record, and the caller's stream ends too.
      if (ended) return
      this.rstCode ??= real.rstCode
      forget()
      if (!this.destroyed) this.destroy()
    })
    if (!real.writableEnded) real.end(body)
  }
}
