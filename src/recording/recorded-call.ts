// A recorded call built from what came back on the wire, the same way whatever carried it: @mswjs/interceptors'
// `Response` (fetch, node:http) or an HTTP/2 stream's header block and bytes (node:http2). One place decides what a
// file keeps of a response, so an HTTP/2 call is stored exactly as the same call over HTTP/1.1 would be.
import type { RecordedCall } from './format'
import type { StoredRequest } from './request'
import { decodeContent, keptHeaders, storedResponseBody } from './response-body'
import { summarize } from './summary'

/** A response as it arrived: status, headers, the body's raw bytes and whether they are still content-encoded. */
export interface WireResponse {
  status: number
  statusText?: string
  headers: Headers
  raw: Buffer
  /** True when `raw` still carries its `content-encoding` (node:http, node:http2); fetch hands it over decoded. */
  encoded: boolean
}

/**
 * The call as the recording keeps it: summary, request, response (headers kept, body decoded and stored readably),
 * and its duration from `started` (a `performance.now()` reading) to now.
 *
 * @example
 * await save(recordedCall(stored, started, { status: 200, headers, raw, encoded: true }))
 */
export function recordedCall(request: StoredRequest, started: number, response: WireResponse): RecordedCall {
  const durationMs = Math.round(performance.now() - started)
  const bytes = response.encoded ? decodeContent(response.raw, response.headers.get('content-encoding')) : response.raw
  const body = storedResponseBody(bytes, response.headers.get('content-type') ?? '')
  const summary = summarize(request.url, request.body, body)
  return {
    ...(summary ? { summary } : {}),
    request,
    response: {
      status: response.status,
      ...(response.statusText ? { statusText: response.statusText } : {}),
      headers: keptHeaders(response.headers),
      ...(body ? { body } : {}),
    },
    durationMs,
  }
}

/**
 * A `Headers` of an HTTP/2 header block (`:status`, `:path`… left out; repeated values appended). A value `Headers`
 * refuses (a control character) is left out too: these headers are read, never sent.
 *
 * @example
 * headersOf({ ':status': 200, 'content-type': 'application/json' }).get('content-type') // 'application/json'
 */
export function headersOf(block: Record<string, unknown>): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(block)) {
    if (name.startsWith(':') || value === undefined || value === null) continue
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, String(one))
      } catch {
        // Not a valid header value: nothing an SDK could read from it either.
      }
    }
  }
  return headers
}
