// A response body as it is kept and served again: JSON readable, server-sent events one by one (served chunk by
// chunk, so `for await` over an SDK stream sees them arrive), AWS event-stream frames decoded when they re-encode to
// the same bytes, anything else as base64. Compressed bodies are kept decoded; their encoding header is dropped.
import { brotliDecompressSync, crc32, gunzipSync, inflateSync } from 'node:zlib'
import { scrubDeep, scrubSecrets } from '../config/secrets'
import type { RecordedBody, RecordedEvent, RecordedFrame } from './format'
import { redactJson } from './request'

/** Response headers never kept: credentials, per-call noise, and framing the replay sets itself. */
const DROPPED_HEADERS =
  /^(set-cookie|cookie|authorization|x-api-key|api-key|date|content-length|content-encoding|transfer-encoding|connection|keep-alive|x-amz-security-token)$/i

/**
 * The response headers kept in a recording, lower-cased, values scrubbed of secrets.
 *
 * @example
 * keptHeaders(new Headers({ 'content-type': 'application/json', 'set-cookie': 's=1' })) // { 'content-type': 'application/json' }
 */
export function keptHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) if (!DROPPED_HEADERS.test(name)) out[name.toLowerCase()] = scrubSecrets(value)
  return out
}

/**
 * The bytes with their `content-encoding` undone (gzip, deflate, br; several in the order applied).
 *
 * @example
 * decodeContent(gzipSync('hi'), 'gzip').toString() // 'hi'
 */
export function decodeContent(bytes: Buffer, encoding: string | null): Buffer {
  if (!encoding) return bytes
  let out = bytes
  for (const step of encoding
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .reverse()) {
    if (step === 'gzip' || step === 'x-gzip') out = gunzipSync(out)
    else if (step === 'deflate') out = inflateSync(out)
    else if (step === 'br') out = brotliDecompressSync(out)
  }
  return out
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** Parses `text/event-stream` text into events; `data` lines of one event joined with newlines. */
function parseEvents(text: string): RecordedEvent[] {
  const events: RecordedEvent[] = []
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    if (!block.trim()) continue
    const data: string[] = []
    const event: Partial<RecordedEvent> = {}
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'data') data.push(value)
      else if (field === 'event') event.event = value
      else if (field === 'id') event.id = value
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value)
    }
    if (data.length === 0 && event.event === undefined) continue
    const raw = data.join('\n')
    let parsed: RecordedEvent['data'] | undefined
    try {
      parsed = raw === '' ? undefined : (JSON.parse(raw) as RecordedEvent['data'])
    } catch {
      parsed = undefined
    }
    events.push(
      parsed === undefined ? { ...event, data: scrubSecrets(raw), text: true } : { ...event, data: redactJson(parsed) },
    )
  }
  return events
}

function eventText(e: RecordedEvent): string {
  let out = ''
  if (e.event !== undefined) out += `event: ${e.event}\n`
  if (e.id !== undefined) out += `id: ${e.id}\n`
  if (e.retry !== undefined) out += `retry: ${e.retry}\n`
  const data = e.text ? String(e.data) : JSON.stringify(e.data)
  for (const line of data.split('\n')) out += `data: ${line}\n`
  return `${out}\n`
}

// --- AWS event-stream (application/vnd.amazon.eventstream): prelude, string headers, payload, two CRC32s ---

function decodeFrames(bytes: Buffer): RecordedFrame[] | undefined {
  const frames: RecordedFrame[] = []
  let at = 0
  while (at < bytes.length) {
    if (bytes.length - at < 16) return undefined
    const total = bytes.readUInt32BE(at)
    const headersLength = bytes.readUInt32BE(at + 4)
    if (total < 16 || at + total > bytes.length) return undefined
    const headers: Record<string, string> = {}
    let h = at + 12
    const headersEnd = h + headersLength
    while (h < headersEnd) {
      const nameLength = bytes[h]
      const name = bytes.toString('utf8', h + 1, h + 1 + nameLength)
      h += 1 + nameLength
      if (bytes[h] !== 7) return undefined // only string headers are kept readable (Bedrock sends no others)
      const valueLength = bytes.readUInt16BE(h + 1)
      headers[name] = bytes.toString('utf8', h + 3, h + 3 + valueLength)
      h += 3 + valueLength
    }
    const payload = bytes.subarray(headersEnd, at + total - 4)
    const text = utf8(payload)
    let json: RecordedFrame['payload'] | undefined
    try {
      json = text !== undefined && text !== '' ? (JSON.parse(text) as RecordedFrame['payload']) : undefined
    } catch {
      json = undefined
    }
    frames.push(
      json !== undefined && JSON.stringify(json) === text
        ? { headers, payload: json }
        : { headers, payloadBase64: payload.toString('base64') },
    )
    at += total
  }
  return frames
}

function encodeFrame(frame: RecordedFrame): Buffer {
  const headerParts: Buffer[] = []
  for (const [name, value] of Object.entries(frame.headers)) {
    const n = Buffer.from(name, 'utf8')
    const v = Buffer.from(value, 'utf8')
    const head = Buffer.alloc(1 + n.length + 3)
    head[0] = n.length
    n.copy(head, 1)
    head[1 + n.length] = 7
    head.writeUInt16BE(v.length, 2 + n.length)
    headerParts.push(head, v)
  }
  const headers = Buffer.concat(headerParts)
  const payload =
    frame.payload !== undefined
      ? Buffer.from(JSON.stringify(frame.payload), 'utf8')
      : Buffer.from(frame.payloadBase64 ?? '', 'base64')
  const total = 12 + headers.length + payload.length + 4
  const out = Buffer.alloc(total)
  out.writeUInt32BE(total, 0)
  out.writeUInt32BE(headers.length, 4)
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8)
  headers.copy(out, 12)
  payload.copy(out, 12 + headers.length)
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4)
  return out
}

/**
 * The body as kept in a recording (already decoded of its content-encoding), chosen by content type and by what
 * the bytes allow: `{ json }`, `{ events }`, `{ frames }`, `{ text }` or `{ base64 }`. Strings are scrubbed of secrets.
 *
 * @example
 * storedResponseBody(Buffer.from('{"ok":true}'), 'application/json') // { json: { ok: true } }
 */
export function storedResponseBody(bytes: Buffer, contentType: string): RecordedBody | undefined {
  if (bytes.length === 0) return undefined
  if (/application\/vnd\.amazon\.eventstream/i.test(contentType)) {
    const frames = decodeFrames(bytes)
    // Kept decoded only when it serves the very same bytes again; never a lossy rewrite.
    if (frames && Buffer.concat(frames.map(encodeFrame)).equals(bytes)) return { frames: scrubDeep(frames) }
    return { base64: bytes.toString('base64') }
  }
  const text = utf8(bytes)
  if (text === undefined) return { base64: bytes.toString('base64') }
  if (/text\/event-stream/i.test(contentType)) return { events: parseEvents(text) }
  if (/[/+]json\b/i.test(contentType) || /^\s*[{[]/.test(text)) {
    try {
      return { json: redactJson(JSON.parse(text)) }
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return { text: scrubSecrets(text) }
}

/**
 * The chunks a recorded body is served in: one per event or frame (so streams arrive piece by piece), else one.
 *
 * @example
 * servedChunks({ events: [{ data: { a: 1 } }] }) // [Uint8Array of 'data: {"a":1}\n\n']
 */
export function servedChunks(body: RecordedBody | undefined): Uint8Array[] {
  if (!body) return []
  const enc = new TextEncoder()
  if ('json' in body) return [enc.encode(JSON.stringify(body.json))]
  if ('text' in body) return [enc.encode(body.text)]
  if ('events' in body) return body.events.map((e) => enc.encode(eventText(e)))
  if ('frames' in body) return body.frames.map((f) => new Uint8Array(encodeFrame(f)))
  if ('base64' in body) return [new Uint8Array(Buffer.from(body.base64, 'base64'))]
  return []
}

/**
 * A `Response` serving a recorded call: its status and kept headers, the body in {@link servedChunks}, each chunk
 * handed over on its own read so a streaming consumer sees them one at a time.
 *
 * @example
 * controller.respondWith(replayResponse(call.response))
 */
export function replayResponse(response: {
  status: number
  statusText?: string
  headers: Record<string, string>
  body?: RecordedBody
}): Response {
  const chunks = servedChunks(response.body)
  const nullBody = [101, 204, 205, 304].includes(response.status)
  let i = 0
  const stream =
    nullBody || chunks.length === 0
      ? null
      : new ReadableStream<Uint8Array>({
          pull(controller) {
            if (i < chunks.length) controller.enqueue(chunks[i++])
            if (i >= chunks.length) controller.close()
          },
        })
  return new Response(stream, {
    status: response.status,
    ...(response.statusText ? { statusText: response.statusText } : {}),
    headers: response.headers,
  })
}
