// Bedrock replies under the same rules as every judge reply (src/judges/reply-body.ts): the Bedrock client's
// request handler is wrapped so the body is read within the judge's limit (compressed and decompressed), its
// progress noted for timeouts, and its JSON checked before the SDK's deserializers (which recurse) touch it.
// Duck-typed on smithy's `HttpHandler`: no SDK import here.
import type { Readable } from 'node:stream'
import { headerValue } from './retry-after'
import { lenientReplyText, parseReplyObject, readReplyBody } from './reply-body'
import { replyLimits, watchOfSignal, type ReplyWatch } from './reply-watch'

interface SmithyResponse {
  statusCode?: number
  headers?: Record<string, string>
  body?: unknown
}
interface SmithyHandler {
  handle(request: unknown, options?: { abortSignal?: unknown }): Promise<{ response: SmithyResponse }>
}

const GUARDED = Symbol.for('agent-verdict.bedrock-reply-guard')

/**
 * Wraps `client.config.requestHandler` (once per client; the SDK reads it on every send) so each reply is read by
 * {@link guardedBody}. The limits come from the call's signal ({@link watchSignal}), else the default.
 *
 * @example
 * guardBedrockReplies(client); watchSignal(signal, { limits }); await client.send(command, { abortSignal: signal })
 */
export function guardBedrockReplies(client: { config: unknown }): void {
  const config = client.config as { requestHandler?: SmithyHandler & { [GUARDED]?: true } }
  const inner = config.requestHandler
  if (!inner || typeof inner.handle !== 'function' || inner[GUARDED]) return
  config.requestHandler = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === GUARDED) return true
      if (key === 'handle')
        return async (request: unknown, options?: { abortSignal?: unknown; isEventStream?: boolean }) => {
          const out = await target.handle(request, options)
          // An event stream is consumed as it arrives by the SDK; judges never ask for one (Converse, CountTokens).
          if (!options?.isEventStream) await guardedBody(out.response, watchOfSignal(options?.abortSignal))
          return out
        }
      const value = Reflect.get(target, key, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/**
 * Replaces a streamed response body with its bytes, read under the reply rules; a JSON body must be one checked
 * JSON object when the status is 2xx, and any JSON is checked for depth and keys (the SDK parses error bodies too).
 */
async function guardedBody(response: SmithyResponse, watch: ReplyWatch | undefined): Promise<void> {
  const progress = watch?.progress
  if (progress) {
    progress.status = response.statusCode
    progress.headersAt = Date.now()
  }
  const body = response.body as Readable | undefined
  if (!body || typeof (body as { on?: unknown }).on !== 'function') return
  const headers = response.headers ?? {}
  const encoding = headerValue(headers, 'content-encoding')
  const bytes = await readReplyBody(body, encoding, watch?.limits ?? replyLimits(undefined), progress)
  if (encoding) {
    // Decoded here: the deserializer must not see the encoding of bytes it no longer has.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-encoding') delete headers[name]
  }
  const status = response.statusCode ?? 0
  const json = /json/i.test(headerValue(headers, 'content-type') ?? '')
  // A 2xx must carry its answer: an empty one (a 204) is said as such, not as "no tool was called".
  if (status >= 200 && status < 300 && (json || bytes.length === 0)) parseReplyObject(bytes)
  else lenientReplyText(bytes)
  response.body = bytes
}
