// Node's fetch under the reply rules of our own transport, for a process that routes fetch through a proxy
// dispatcher (src/judges/fetch-choice.ts decides): no node:http here.
import { lenientReplyText, parseReplyObject, tooLarge } from './reply-body'
import { REPLY_WATCH, type ReplyWatch, replyLimits } from './reply-watch'

/**
 * `fetch` (Node's, through a proxy dispatcher of the user's) with the reply rules of our own transport: the
 * body read up to the judge's limit (fetch has decompressed it: the decompressed bytes are counted), progress
 * noted, JSON checked before the SDK sees it. What the OpenAI client gets when our transport cannot be used.
 *
 * @example
 * new OpenAI({ apiKey, fetch: cappedFetch(globalThis.fetch) as typeof fetch })
 */
export function cappedFetch(inner: typeof globalThis.fetch) {
  return async (url: string | URL, init: Record<string, unknown> = {}) => {
    const { [REPLY_WATCH]: given, ...rest } = init
    const watch = given as ReplyWatch | undefined
    const limits = watch?.limits ?? replyLimits(undefined)
    const res = await inner(url, rest as RequestInit)
    const progress = watch?.progress
    if (progress) {
      progress.status = res.status
      progress.headersAt = Date.now()
    }
    const chunks: Uint8Array[] = []
    let received = 0
    const reader = res.body?.getReader()
    for (;;) {
      if (!reader) break
      const { done, value } = await reader.read()
      if (done) break
      received += value.byteLength
      if (progress) {
        progress.bytes = received
        progress.lastByteAt = Date.now()
      }
      if (received > limits.maxBytes) {
        await reader.cancel().catch(() => {})
        throw tooLarge(limits, received, undefined)
      }
      chunks.push(value)
    }
    const bytes = Buffer.concat(chunks)
    return {
      status: res.status,
      statusText: res.statusText,
      ok: res.ok,
      url: res.url,
      headers: res.headers,
      body: null,
      text: async () => lenientReplyText(bytes),
      json: async () => parseReplyObject(bytes),
      arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    }
  }
}
