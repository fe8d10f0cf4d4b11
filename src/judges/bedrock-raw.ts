// The Converse reply as Bedrock sent it. The AWS SDK hands over the tool input already parsed — its
// numbers rounded by JSON.parse (`0.99999999999999999` is 1) — and takes a 200 as success whatever its
// `x-amzn-errortype` header says. A middleware at the bottom of the command's own stack (the client, maybe
// the user's, is left as it is) keeps the status, the headers and the body text, then hands the same bytes
// on to the SDK's deserializer.

/** What the service answered, before the SDK read it. */
export interface RawReply {
  status?: number
  /** Header names in lower case. */
  headers: Record<string, string>
  /** The body text of a 2xx reply. */
  body?: string
}

interface Stack {
  add(middleware: unknown, options: { step: 'deserialize'; priority: 'low'; name: string }): void
}

/**
 * Adds the capturing middleware to one command and returns where the reply will be kept once `send` resolves.
 * Runs below the SDK's deserializer (priority `low` in the `deserialize` step is innermost), so it sees the
 * HTTP response first and the deserializer reads the same bytes from a buffer.
 *
 * @example
 * const command = new ConverseCommand(input)
 * const raw = captureRawReply(command)
 * const response = await client.send(command)
 * raw.body // '{"output":{"message":{…}},"stopReason":"tool_use",…}'
 */
export function captureRawReply(command: { middlewareStack: unknown }): RawReply {
  const raw: RawReply = { headers: {} }
  const middleware =
    (next: (args: unknown) => Promise<{ response: unknown }>) =>
    async (args: unknown): Promise<{ response: unknown }> => {
      const result = await next(args)
      const response = result.response as { statusCode?: number; headers?: Record<string, string>; body?: unknown }
      raw.status = response.statusCode
      for (const [name, value] of Object.entries(response.headers ?? {}))
        raw.headers[name.toLowerCase()] = String(value)
      if (typeof response.statusCode === 'number' && response.statusCode >= 200 && response.statusCode < 300) {
        const bytes = await bodyBytes(response.body)
        if (bytes) {
          response.body = bytes
          raw.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
        }
      }
      return result
    }
  ;(command.middlewareStack as Stack).add(middleware, {
    step: 'deserialize',
    priority: 'low',
    name: 'agentVerdictRawReply',
  })
  return raw
}

/** A response body (Node stream, web stream or bytes) as one byte array; undefined when there is none. */
async function bodyBytes(body: unknown): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined
  if (body instanceof Uint8Array) return body
  if (typeof body === 'string') return Buffer.from(body)
  const chunks: Uint8Array[] = []
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of body as AsyncIterable<Uint8Array | string>)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  } else if (typeof (body as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (body as ReadableStream<Uint8Array>).getReader()
    for (let part = await reader.read(); !part.done; part = await reader.read()) chunks.push(part.value)
  } else return undefined
  return Buffer.concat(chunks)
}
