// Reads an OTLP/HTTP request body: size limit, gzip, content type. Every refusal is an HttpRefusal that the
// receiver turns into OTLP's error response; nothing here throws anything else for bad input.
import type { IncomingMessage } from 'node:http'
import { gunzip } from 'node:zlib'

/** The two encodings OTLP/HTTP defines. */
export type OtlpEncoding = 'protobuf' | 'json'

/** A request the receiver answers with `status` and a google.rpc.Status carrying `message`. */
export class HttpRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 405 | 413 | 415 | 429,
    message: string,
  ) {
    super(message)
  }
}

/** `application/x-protobuf` or `application/json` (parameters such as `charset` ignored), else a 415. */
export function encodingOf(contentType: string | undefined): OtlpEncoding {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase()
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf'
  if (type === 'application/json') return 'json'
  throw new HttpRefusal(
    415,
    `unsupported content type '${contentType ?? '(none)'}': OTLP/HTTP takes application/x-protobuf or application/json (set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or http/json; this receiver does not speak gRPC)`,
  )
}

/**
 * The request body, gunzipped when `Content-Encoding: gzip`; over `maxBytes` (compressed or not) → 413.
 * Stops reading as soon as the limit is passed, so a huge body costs no more than `maxBytes` of memory.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding !== 'gzip' && encoding !== 'identity') {
    throw new HttpRefusal(
      415,
      `unsupported content encoding '${encoding}': send the body as is or gzip-compressed (OTEL_EXPORTER_OTLP_COMPRESSION=gzip)`,
    )
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes)
  const raw = await collect(req, maxBytes)
  if (encoding === 'identity') return raw
  return new Promise((resolve, reject) => {
    // maxOutputLength bounds the inflated size: a small gzip bomb is refused, not inflated into memory.
    gunzip(raw, { maxOutputLength: maxBytes }, (error, inflated) => {
      if (!error) return resolve(inflated)
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return reject(tooLarge(maxBytes, ' once decompressed'))
      reject(new HttpRefusal(400, `the body is marked Content-Encoding: gzip but does not gunzip (${error.message})`))
    })
  })
}

function tooLarge(maxBytes: number, how = ''): HttpRefusal {
  return new HttpRefusal(
    413,
    `the body is larger than ${maxBytes} bytes${how}; export smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE) or start the receiver with a larger maxBodyBytes`,
  )
}

function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        cleanup()
        // Stop buffering; the rest of the body is drained by the server after the 413 is sent.
        req.resume()
        reject(tooLarge(maxBytes))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('aborted', onAborted)
    }
    const onAborted = () => onError(new Error('the client closed the connection before the body was complete'))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('aborted', onAborted)
  })
}
