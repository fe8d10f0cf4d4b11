// An OTLP/HTTP trace endpoint on loopback for tests: an agent in another process (or language) exports its
// spans here with its standard exporter, and the test awaits the complete trace.
import { createHash } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { writeAtomic } from '../../files/atomic'
import { TraceFormatError } from '../errors'
import { tracesFromValue } from '../parse'
import { ReadContext } from '../readers/context'
import { isOtlpRequest, readOtlp } from '../readers/otlp'
import { isObject } from '../readers/otlp-values'
import type { Trace } from '../trace'
import { encodingOf, HttpRefusal, type OtlpEncoding, readBody } from './body'
import { TraceCollector } from './collector'
import { checkLimits, checkTraceId, resolveLimits, type TraceReceiverLimits, traceFileName } from './limits'
import type { TraceWaitOptions } from './wait'
import { decodeTraceRequest, encodeRpcStatus, encodeTraceResponse } from './otlp-proto'

export interface TraceReceiverOptions {
  /** Port on 127.0.0.1; default 0 (a free one: read `receiver.port` / `receiver.url`). */
  port?: number
  /** How long a trace with its root must go without new spans to count as complete; default 200 ms. */
  quietMs?: number
  /** Largest request body accepted, before and after gunzip; default 16 MiB (larger → 413). */
  maxBodyBytes?: number
  /** Caps on spans, trace ids (files) and bytes per request (over → 413) and per run (over → 429). */
  limits?: TraceReceiverLimits
  /**
   * Directory to write each trace to as OTLP JSON (`<traceId>.json`) once no span of it arrived for `quietMs`
   * (with or without its root, so a trace whose root is elsewhere is kept too), rewritten if more spans arrive.
   * Only a valid trace id (32 hex digits, not all zero) names a file, and nothing is written outside it.
   */
  out?: string
  /** Called each time a trace goes quiet (after it is written, with `out`). */
  onTrace?: (event: { traceId: string; spans: number; file?: string; error?: Error }) => void
}

/** Counters of what the receiver got. */
export interface TraceReceiverStats {
  /** POST requests to /v1/traces and every other request. */
  requests: number
  /** Requests answered 200 and stored. */
  accepted: number
  /** Requests answered 4xx. */
  refused: number
  /** Identical bodies sent again (exporter retries), answered 200 and not stored twice. */
  retried: number
  /** Accepted requests that came gzip-compressed. */
  gzipped: number
  /** Spans stored. */
  spans: number
  /** Distinct trace ids among them. */
  traces: number
  /** Bytes of OTLP JSON the stored traces hold (about the size of the `out` files). */
  bytes: number
  /** The last refusal, to say why an exporter's data is missing. */
  lastRefusal?: { status: number; message: string }
}

/** A running receiver; {@link startTraceReceiver} returns it. */
export interface TraceReceiver {
  /** `http://127.0.0.1:PORT`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT` for the agent under test. */
  readonly url: string
  /** `http://127.0.0.1:PORT/v1/traces`: the value of `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (or an exporter's `url`). */
  readonly tracesUrl: string
  readonly port: number
  /** Environment variables that point a standard OTLP exporter here (endpoint, traces endpoint, `http/protobuf`). */
  readonly env: Record<string, string>
  readonly stats: TraceReceiverStats
  /**
   * Waits for a complete trace: one with a root span (or a span named `where.rootName` whose parent is in
   * another process) and no new span for `quietMs`. Each call returns a trace no earlier call returned,
   * unless `where.traceId` names it. Rejects with a `TraceReceiverTimeoutError` listing what arrived.
   */
  trace(opts?: TraceWaitOptions): Promise<Trace>
  /** Every trace received so far, complete or not. */
  traces(): Trace[]
  /** Stops listening, drops open connections, frees the port and rejects pending waits. Idempotent. */
  close(): Promise<void>
}

const DEFAULT_MAX_BODY = 16 * 1024 * 1024
const DEFAULT_QUIET_MS = 200
/** Digests of accepted bodies kept to recognize an exporter's retry of a request that did get through. */
const MAX_DIGESTS = 10_000

// google.rpc.Code values for the Status body of each HTTP refusal.
const RPC_CODE: Record<HttpRefusal['status'], number> = { 400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 429: 8 }
/** Open sockets at most: each costs a file descriptor, and a slow client holds one for up to 30 s. */
const MAX_CONNECTIONS = 256

/**
 * Starts an OTLP/HTTP trace receiver on 127.0.0.1 (`POST /v1/traces`, protobuf or JSON, optionally gzip).
 * Point the agent under test at it with `OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url` (or spread
 * `receiver.env` into its environment), then await its trace.
 *
 * @example
 * const receiver = await startTraceReceiver()
 * const agent = spawn('python', ['agent.py'], { env: { ...process.env, ...receiver.env } })
 * const trace = await receiver.trace({ where: { rootName: 'invoke_agent support' }, timeout: 30_000 })
 * await expect(trace).toHaveNoFailingSpans()
 * await receiver.close()
 */
export async function startTraceReceiver(opts: TraceReceiverOptions = {}): Promise<TraceReceiver> {
  const port = opts.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TypeError(`port must be an integer 0-65535, got ${String(opts.port)}`)
  const quietMs = opts.quietMs ?? DEFAULT_QUIET_MS
  if (!Number.isFinite(quietMs) || quietMs < 0)
    throw new TypeError(`quietMs must be a number of milliseconds ≥ 0, got ${String(opts.quietMs)}`)
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new TypeError(`maxBodyBytes must be a positive integer, got ${String(opts.maxBodyBytes)}`)
  const limits = resolveLimits(opts.limits)

  const stats: TraceReceiverStats = {
    requests: 0,
    accepted: 0,
    refused: 0,
    retried: 0,
    gzipped: 0,
    spans: 0,
    traces: 0,
    bytes: 0,
  }
  let inFlight = 0
  const digests = new Set<string>()
  let source = 'OTLP receiver'
  const collector = new TraceCollector({ quietMs })
  /** The last write of each trace: writes of one trace run one after another, and close() waits for them. */
  const writes = new Map<string, Promise<void>>()
  if (opts.out !== undefined || opts.onTrace) {
    collector.onSettled = (traceId) => {
      const done = (writes.get(traceId) ?? Promise.resolve())
        .then(() => settled(traceId))
        // A throwing onTrace callback must not become an unhandled rejection that ends the test process.
        .catch((error: unknown) => process.emitWarning(`agent-verdict trace receiver: onTrace threw: ${String(error)}`))
      writes.set(traceId, done)
      void done.finally(() => writes.get(traceId) === done && writes.delete(traceId))
    }
  }

  async function settled(traceId: string): Promise<void> {
    const request = collector.request(traceId)
    if (!request) return
    const spans = countSpans(request)
    if (opts.out === undefined) return opts.onTrace?.({ traceId, spans })
    const file = join(opts.out, traceFileName(traceId))
    let failure: Error | undefined
    // writeAtomic creates its temp file exclusively, so a symlink planted in the folder is never followed; the
    // rename replaces a link at `file` itself rather than writing through it.
    try {
      await mkdir(opts.out, { recursive: true })
      await writeAtomic(file, `${JSON.stringify(request)}\n`)
    } catch (error) {
      failure = error as Error
    }
    opts.onTrace?.(failure ? { traceId, spans, file, error: failure } : { traceId, spans, file })
  }

  function accept(doc: Record<string, unknown>, digest: string): void {
    // Read through the JSON reader first: a request it refuses is refused whole (400), never half stored.
    if (!isOtlpRequest(doc)) readOtlp(doc, new ReadContext(source))
    tracesFromValue(doc, source)
    const plan = collector.plan(doc)
    // A trace id names a file: one that could not be a trace id refuses the request before anything is stored.
    for (const traceId of plan.traceIds) checkTraceId(traceId)
    checkLimits(plan, { spans: collector.spanCount, traces: collector.traceCount, bytes: collector.byteCount }, limits)
    collector.commit(plan)
    digests.add(digest)
    if (digests.size > MAX_DIGESTS) digests.delete(digests.values().next().value as string)
    stats.accepted++
    stats.spans = collector.spanCount
    stats.traces = collector.traceCount
    stats.bytes = collector.byteCount
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++
    let encoding: OtlpEncoding = 'json'
    try {
      const path = (req.url ?? '/').split('?')[0]
      if (path !== '/v1/traces')
        throw new HttpRefusal(404, `no such endpoint ${path}: this receiver takes traces only, at POST /v1/traces`)
      if (req.method !== 'POST')
        throw new HttpRefusal(405, `${req.method} is not supported: send traces with POST /v1/traces`)
      encoding = encodingOf(req.headers['content-type'])
      if (inFlight >= limits.concurrentRequests) {
        res.setHeader('retry-after', '1')
        throw new HttpRefusal(
          429,
          `${inFlight} requests are being read already (limits.concurrentRequests, CLI --max-concurrent-requests); retry in a second`,
        )
      }
      inFlight++
      let body: Buffer
      try {
        body = await readBody(req, maxBodyBytes)
      } finally {
        inFlight--
      }
      const digest = createHash('sha256').update(encoding).update(body).digest('hex')
      if (digests.has(digest)) stats.retried++
      else accept(parse(body, encoding), digest)
      if (/gzip/i.test(req.headers['content-encoding'] ?? '')) stats.gzipped++
      reply(res, 200, encoding, encoding === 'protobuf' ? encodeTraceResponse() : '{}')
    } catch (error) {
      const refusal = asRefusal(error, encoding)
      stats.refused++
      stats.lastRefusal = { status: refusal.status, message: refusal.message }
      if (refusal.status === 405) res.setHeader('allow', 'POST')
      // The body must be read to the end (or the connection dropped) before a keep-alive client can go on.
      if (!req.complete) req.resume()
      const code = RPC_CODE[refusal.status]
      reply(
        res,
        refusal.status,
        encoding,
        encoding === 'protobuf'
          ? encodeRpcStatus(code, refusal.message)
          : JSON.stringify({ code, message: refusal.message }),
      )
    }
  }

  // headersTimeout and requestTimeout end a slowloris client; maxConnections bounds how many it can hold.
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((error) => {
      // Only a bug lands here (bad input is a refusal): answer 500 rather than crash the test process.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(String(error))
    })
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A client that hung up needs no answer and is no refusal.
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy()
    const [status, message] = clientErrorText(error)
    stats.requests++
    stats.refused++
    stats.lastRefusal = { status, message }
    socket.end(
      `HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
    )
  })

  server.maxConnections = MAX_CONNECTIONS
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${bound}`
  source = `${url}/v1/traces`
  collector.source = source
  let closing: Promise<void> | undefined

  return {
    url,
    tracesUrl: `${url}/v1/traces`,
    port: bound,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    },
    stats,
    trace: (waitOpts) => collector.trace(waitOpts, () => hint(url, stats)),
    traces: () => collector.traces(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        collector.close()
        server.close(() => resolve())
        server.closeAllConnections()
      }).then(async () => {
        await Promise.all(writes.values())
      })
      return closing
    },
  }
}

/** Status and refusal message for a request Node's HTTP parser could not take. */
function clientErrorText(error: NodeJS.ErrnoException): [400 | 408, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'a client did not send its headers within 10 s or a complete request within 30 s and was disconnected']
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') {
    return [
      400,
      'a client spoke HTTP/2 (a gRPC exporter?); this receiver takes OTLP/HTTP: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf',
    ]
  }
  return [400, `a client sent a malformed HTTP request (${error.code ?? error.message})`]
}

function parse(body: Buffer, encoding: OtlpEncoding): Record<string, unknown> {
  let doc: unknown
  if (encoding === 'protobuf') {
    try {
      doc = decodeTraceRequest(body)
    } catch (error) {
      throw new HttpRefusal(
        400,
        `the body is not a protobuf OTLP ExportTraceServiceRequest (${(error as Error).message})`,
      )
    }
  } else {
    try {
      doc = JSON.parse(body.toString('utf8'))
    } catch (error) {
      throw new HttpRefusal(400, `the body is not JSON (${(error as Error).message})`)
    }
    if (!isObject(doc))
      throw new HttpRefusal(
        400,
        'the body is not an OTLP JSON ExportTraceServiceRequest: expected an object like {"resourceSpans": [...]}',
      )
  }
  // An empty request is a valid export of nothing.
  if (
    (doc as Record<string, unknown>).resourceSpans === undefined &&
    (doc as Record<string, unknown>).resource_spans === undefined
  )
    return { resourceSpans: [] }
  return doc as Record<string, unknown>
}

function asRefusal(error: unknown, encoding: OtlpEncoding): HttpRefusal {
  if (error instanceof HttpRefusal) return error
  if (error instanceof TraceFormatError) {
    // Protobuf does not send zero or empty fields, so "missing" there means the exporter left it empty.
    const note =
      encoding === 'protobuf'
        ? ' (the body was protobuf, decoded to OTLP JSON: a missing field is one the exporter sent as 0 or empty)'
        : ''
    return new HttpRefusal(400, `the request is not a readable OTLP trace export: ${error.message}${note}`)
  }
  return new HttpRefusal(400, `the request could not be read: ${(error as Error)?.message ?? String(error)}`)
}

function reply(res: ServerResponse, status: number, encoding: OtlpEncoding, body: Uint8Array | string): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { 'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json' })
  res.end(body)
}

function countSpans(request: Record<string, unknown>): number {
  let n = 0
  for (const rs of request.resourceSpans as Array<{ scopeSpans: Array<{ spans: unknown[] }> }>)
    for (const ss of rs.scopeSpans) n += ss.spans.length
  return n
}

/** What to check when no trace came: where to export, and why requests were refused. */
function hint(url: string, stats: TraceReceiverStats): string {
  const refused = stats.lastRefusal
    ? ` ${stats.refused} request(s) were refused, the last with ${stats.lastRefusal.status}: ${stats.lastRefusal.message}.`
    : ''
  return `${stats.requests} request(s) reached the receiver.${refused} Check that the agent exports with OTEL_EXPORTER_OTLP_ENDPOINT=${url} over OTLP/HTTP and flushes before it exits (a BatchSpanProcessor exports every 5 s: call forceFlush() or shutdown()).`
}
