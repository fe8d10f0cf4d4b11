// Everything a judge sends is read here before anything else touches it (issue 33, classes 9 and 10): the body
// up to a size cap (compressed and decompressed, whatever the framing), strict UTF-8, and JSON no deeper than a
// reply ever is, without `__proto__` keys, with lone surrogates made well-formed. A reply that breaks a rule is
// a `ReplyBodyError`, classified as one unjudgeable verdict, never a crash of the worker or the run's main process.
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { formatByteSize, MAX_REPLY_DEPTH } from '../config/reply-limits'
import type { ReplyLimits, ReplyProgress } from './reply-watch'

/** Why a reply was refused before it was read as a verdict. */
export type ReplyBodyProblem =
  | 'too-large'
  | 'corrupt-encoding'
  | 'unknown-encoding'
  | 'not-utf8'
  | 'empty'
  | 'not-json'
  | 'not-object'
  | 'too-deep'
  | 'unsafe-key'

/** The problems a new attempt may cure: a reply cut short or garbled once. The others are the server's make-up. */
const RETRYABLE: ReadonlySet<ReplyBodyProblem> = new Set(['empty', 'not-json'])

/**
 * A judge reply refused as it was read. `message` completes "<provider>:<model> …" (e.g. "sent a reply over the
 * 8 MB limit …"); src/judges/classify-error turns it into a `JudgeOutputError`, so the call is unjudgeable.
 * Told by `replyBodyProblem`, not `instanceof`: the SDK or a second copy of this module may carry it.
 *
 * @example
 * throw new ReplyBodyError('too-large', 'sent a reply over the 8 MB limit')
 */
export class ReplyBodyError extends Error {
  override name = 'ReplyBodyError'
  readonly retryable: boolean
  constructor(
    readonly replyBodyProblem: ReplyBodyProblem,
    message: string,
  ) {
    super(message)
    this.retryable = RETRYABLE.has(replyBodyProblem)
  }
}

/** The `ReplyBodyError` in an error's cause chain (the SDK wraps a failed fetch in a connection error), if any. */
export function replyBodyErrorIn(err: unknown): ReplyBodyError | undefined {
  let current = err as { replyBodyProblem?: unknown; cause?: unknown } | undefined
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (typeof current.replyBodyProblem === 'string') return current as unknown as ReplyBodyError
    current = current.cause as typeof current
  }
  return undefined
}

const RAISE = 'raise maxReplyBytes (or maxReply=SIZE in AGENT_VERDICT_JUDGE) only if the judge really sends that much'

/** The error for a reply past its limit: how far it was read, and how to raise the limit. */
export function tooLarge(limits: ReplyLimits, read: number, compressed: string | undefined): ReplyBodyError {
  const what = compressed ? `a ${compressed} body that decompresses past` : 'a reply over'
  return new ReplyBodyError(
    'too-large',
    `sent ${what} the ${formatByteSize(limits.maxBytes)} reply limit (stopped reading after ${formatByteSize(read)}); a verdict is a few KB, so check the judge server, or ${RAISE}`,
  )
}

/**
 * Reads a reply body whole, decompressing gzip, deflate and brotli, and stops (destroying the stream, so the
 * connection is not reused) as soon as the bytes received or the bytes decompressed pass `limits.maxBytes`:
 * memory stays within the cap plus one chunk whatever the server sends, with or without a content-length.
 * A corrupt compressed body is a `ReplyBodyError` (not a network failure, never retried). Errors of `source`
 * itself (a reset connection) reject as they are.
 *
 * @example
 * const bytes = await readReplyBody(res, res.headers['content-encoding'], replyLimits(undefined))
 */
export function readReplyBody(
  source: Readable,
  contentEncoding: string | undefined,
  limits: ReplyLimits,
  progress?: ReplyProgress,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = String(contentEncoding ?? '')
      .trim()
      .toLowerCase()
    let decoder: ReturnType<typeof createGunzip> | undefined
    if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip()
    else if (encoding === 'deflate') decoder = createInflate()
    else if (encoding === 'br') decoder = createBrotliDecompress()
    else if (encoding !== '' && encoding !== 'identity') {
      source.destroy()
      return reject(
        new ReplyBodyError(
          'unknown-encoding',
          `sent its reply in a content-encoding this client did not ask for and cannot read ("${encoding.slice(0, 40)}"); configure the server to send plain, gzip, deflate or br`,
        ),
      )
    }
    const chunks: Buffer[] = []
    let received = 0
    let decoded = 0
    let over = false
    const stop = (err: unknown) => {
      if (over) return
      over = true
      source.destroy()
      decoder?.destroy()
      reject(err)
    }
    source.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (progress) {
        progress.bytes = received
        progress.lastByteAt = Date.now()
      }
      if (received > limits.maxBytes) stop(tooLarge(limits, received, undefined))
    })
    source.on('error', stop)
    if (decoder) {
      const name = encoding.replace(/^x-/, '')
      decoder.on('data', (chunk: Buffer) => {
        decoded += chunk.length
        if (decoded > limits.maxBytes) stop(tooLarge(limits, decoded, name))
        else chunks.push(chunk)
      })
      decoder.on('error', (err: Error) =>
        stop(
          new ReplyBodyError(
            'corrupt-encoding',
            `sent a corrupt ${name} body (${err.message}); the server compressed its reply wrongly or cut it off — check the judge server or a proxy in front of it`,
          ),
        ),
      )
      decoder.on('end', () => {
        if (!over) resolve(Buffer.concat(chunks))
      })
      source.pipe(decoder)
    } else {
      source.on('data', (chunk: Buffer) => {
        if (!over) chunks.push(chunk)
      })
      source.on('end', () => {
        if (!over) resolve(Buffer.concat(chunks))
      })
    }
  })
}

/**
 * A reply body as text, refusing bytes that are not UTF-8 (JSON is UTF-8; replacing them would change what the
 * judge said without a trace).
 *
 * @example
 * replyText(Buffer.from('{"a":1}')) // '{"a":1}'
 */
export function replyText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return fail(
      'not-utf8',
      `sent a reply that is not UTF-8 (${bytes.length} bytes); JSON replies are UTF-8 — check the server's encoding`,
    )
  }
}

/**
 * Parses a judge reply's JSON under the reply rules: not empty, valid JSON, then {@link checkReplyValue}.
 * JSON.parse itself is iterative in V8, so any depth parses; what would recurse later (a stringify, a clone, a
 * schema) only ever sees a checked value.
 *
 * @example
 * parseReplyJson('{"choices":[]}') // { choices: [] }
 * parseReplyJson('[[[[…300,000 deep…]]]]') // throws ReplyBodyError('too-deep', …)
 */
export function parseReplyJson(text: string): unknown {
  if (text.trim() === '')
    return fail('empty', 'answered with an empty body, not JSON; the server failed to produce a reply')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return fail(
      'not-json',
      `sent a body that is not JSON (${(err as Error).message.slice(0, 120)}): "${excerpt(text)}" — check the base URL points at a chat-completions API`,
    )
  }
  return checkReplyValue(value)
}

/**
 * A JSON reply body that must be an object (a chat completion, a Converse answer): {@link parseReplyJson} of
 * strict UTF-8, and `null`, a number, a string or an array at the top is refused by name.
 *
 * @example
 * parseReplyObject(Buffer.from('null')) // throws ReplyBodyError('not-object', 'sent `null` …')
 */
export function parseReplyObject(bytes: Uint8Array): Record<string, unknown> {
  const value = parseReplyJson(replyText(bytes))
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = value === null ? '`null`' : Array.isArray(value) ? 'a JSON array' : `a JSON ${typeof value}`
    fail(
      'not-object',
      `sent ${what} as its reply, not a JSON object; check the base URL points at a chat-completions API`,
    )
  }
  return value as Record<string, unknown>
}

/**
 * An error body (or a non-JSON answer) as text, as lenient as fetch's `text()` (invalid UTF-8 becomes U+FFFD), but
 * JSON in it is held to the reply rules: the SDK parses and stringifies an error body to build its message.
 *
 * @example
 * lenientReplyText(Buffer.from('Bad gateway')) // 'Bad gateway'
 */
export function lenientReplyText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const head = text.trimStart()[0]
  if (head === '{' || head === '[') {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return text
    }
    checkReplyValue(value)
  }
  return text
}

/**
 * Checks a parsed reply without recursion (any depth, any size): at most {@link MAX_REPLY_DEPTH} levels of
 * nesting, no `__proto__` key (a merge or a schema that assigns it would change an object's prototype), and
 * every string well-formed (a lone UTF-16 surrogate becomes U+FFFD, as writing it to a file would make it).
 * Returns the value (strings fixed in place); throws a `ReplyBodyError` for the rest.
 *
 * @example
 * checkReplyValue(JSON.parse('{"__proto__":{"pass":true}}')) // throws ReplyBodyError('unsafe-key', …)
 */
export function checkReplyValue<T>(value: T): T {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number]
    if (node === null || typeof node !== 'object') continue
    if (depth >= MAX_REPLY_DEPTH)
      fail(
        'too-deep',
        `sent JSON nested more than ${MAX_REPLY_DEPTH} levels deep; no judge reply is, so the server is broken or hostile`,
      )
    const record = node as Record<string, unknown>
    const keys = Array.isArray(node) ? undefined : Object.keys(record)
    if (keys?.includes('__proto__'))
      fail('unsafe-key', 'sent JSON with a "__proto__" key, which is never part of a reply and is refused')
    const count = keys ? keys.length : (node as unknown[]).length
    for (let i = 0; i < count; i++) {
      const key = keys ? keys[i] : i
      const child = record[key as string]
      if (typeof child === 'string') {
        const text = child as WellFormedString
        if (!text.isWellFormed()) record[key as string] = text.toWellFormed()
      } else if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return value
}

/** ES2024 string methods (Node 20 has them; the project's TypeScript lib may not name them yet). */
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string }

function fail(problem: ReplyBodyProblem, message: string): never {
  throw new ReplyBodyError(problem, message)
}

function excerpt(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
