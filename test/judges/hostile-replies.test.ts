// Adversarial table, issue 33 classes 9, 10 and 18: hostile or broken judge replies — deep nesting, __proto__ keys,
// bytes that are not UTF-8, bodies past the size limit (plain, endless and chunked, gzip/deflate/brotli bombs),
// empty/null/204 bodies, object-valued choices, corrupt compression, redirects — sent by a real HTTP server on
// 127.0.0.1 to the real OpenAI and Bedrock SDK clients. Each must be one unjudgeable verdict with a cause that
// names it (never a crash, a JavaScript error, or "is the server reachable?"); the controls must still judge.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { NodeHttpHandler } from '@smithy/node-http-handler'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bedrockJudge } from '../../src/judges/bedrock'
import { callJudge } from '../../src/judges/judge-call'
import { openaiJudge } from '../../src/judges/openai'
import type { Judge } from '../../src/judges/types'
import { type Likert, likertRequest } from './helpers'

type Shape = 'openai' | 'bedrock'
/** Writes the reply; `verdict(shape, score)` is the body of a valid verdict in that provider's shape. */
type Responder = (res: ServerResponse, shape: Shape, req: IncomingMessage) => void

interface Row {
  name: string
  respond: Responder
  /** `pass`/`fail` for the controls (score 5 / 1), else the cause an unjudgeable verdict must give. */
  expect: 'pass' | 'fail' | RegExp
  /** Requests the server may see at most (1: not retried). */
  maxRequests?: number
  shapes?: Shape[]
}

const CAP = 64 * 1024
const verdictOf = (score: number, reasoning = 'The description matches the image.') => ({ reasoning, score })

function verdictBody(shape: Shape, output: unknown): Record<string, unknown> {
  if (shape === 'bedrock')
    return {
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't1', name: 'overall_quality', input: output } }],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      metrics: { latencyMs: 1 },
    }
  return {
    id: 'chatcmpl-hostile',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'judge',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(output) } }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
}

const send =
  (body: string | Buffer, headers: Record<string, string> = {}, status = 200): Responder =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(body)
  }
const json =
  (make: (shape: Shape) => unknown): Responder =>
  (res, shape) =>
    send(JSON.stringify(make(shape)))(res, shape, undefined as never)
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
const zeros = Buffer.alloc(8 * 1024 * 1024, 0x20) // 8 MB of spaces: ~8 KB compressed, 128 × the test's cap

const ROWS: Row[] = [
  // Controls: a valid reply is judged, passing and failing.
  { name: 'control: passing verdict', respond: json((s) => verdictBody(s, verdictOf(5))), expect: 'pass' },
  { name: 'control: failing verdict', respond: json((s) => verdictBody(s, verdictOf(1))), expect: 'fail' },
  {
    name: 'control: gzip-compressed passing verdict under the cap',
    respond: (res, shape) =>
      send(gzipSync(JSON.stringify(verdictBody(shape, verdictOf(5)))), { 'content-encoding': 'gzip' })(
        res,
        shape,
        undefined as never,
      ),
    expect: 'pass',
  },
  {
    name: 'control: a lone surrogate in the reasoning is made well-formed, the verdict kept',
    respond: (res, shape) =>
      send(JSON.stringify(verdictBody(shape, verdictOf(5, 'ok'))).replace('ok', 'ok \\ud800 there'))(
        res,
        shape,
        undefined as never,
      ),
    expect: 'pass',
  },
  // Class 9: structure no reply has.
  {
    name: 'a 200 body nested 30,000 deep',
    respond: send(deep(30_000)),
    expect: /nested more than 64 levels/,
    maxRequests: 1,
  },
  {
    name: 'a verdict nested 100 deep inside a valid envelope',
    respond: json((s) => verdictBody(s, { reasoning: JSON.parse(deep(100)), score: 5 })),
    expect: /nested more than 64 levels/,
    maxRequests: 1,
  },
  {
    name: 'a __proto__ key in the reply',
    respond: (res, shape) =>
      send(JSON.stringify(verdictBody(shape, verdictOf(1))).replace('{', '{"__proto__":{"score":5},'))(
        res,
        shape,
        undefined as never,
      ),
    expect: /"__proto__" key/,
    maxRequests: 1,
  },
  {
    name: 'bytes that are not UTF-8',
    respond: (res, shape) =>
      send(
        Buffer.concat([
          Buffer.from(JSON.stringify(verdictBody(shape, verdictOf(5))).slice(0, -1)),
          Buffer.from([0xff, 0x7d]),
        ]),
      )(res, shape, undefined as never),
    expect: /not UTF-8/,
    maxRequests: 1,
  },
  // Class 10: size.
  {
    name: 'a plain body past the limit',
    respond: send(' '.repeat(CAP * 4)),
    expect: /over the 64 KB reply limit/,
    maxRequests: 1,
  },
  {
    name: 'an endless chunked body with no content-length',
    respond: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(16 * 1024, 0x20)
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more)
      }
      res.on('close', () => res.removeAllListeners('drain'))
      more()
    },
    expect: /over the 64 KB reply limit/,
    maxRequests: 1,
  },
  ...(['gzip', 'deflate', 'br'] as const).map(
    (encoding): Row => ({
      name: `a ${encoding} bomb (8 KB that expands to 8 MB)`,
      respond: send(
        encoding === 'gzip' ? gzipSync(zeros) : encoding === 'deflate' ? deflateSync(zeros) : brotliCompressSync(zeros),
        {
          'content-encoding': encoding,
        },
      ),
      expect: new RegExp(`a ${encoding} body that decompresses past the 64 KB reply limit`),
      maxRequests: 1,
    }),
  ),
  // Class 18: what the message says.
  { name: 'an empty 200 body', respond: send(''), expect: /empty body/ },
  { name: 'a `null` body', respond: send('null'), expect: /sent `null` as its reply/, maxRequests: 1 },
  {
    name: 'a 204 with no body',
    respond: (res) => {
      res.writeHead(204)
      res.end()
    },
    expect: /no content \(HTTP 204 or an empty body\)|empty body/,
  },
  {
    name: 'choices as an object',
    respond: json(() => ({ id: 'x', object: 'chat.completion', choices: { 0: { message: { content: '{}' } } } })),
    expect: /"choices" as an object, not an array/,
    maxRequests: 1,
    shapes: ['openai'],
  },
  {
    name: 'a corrupt gzip body',
    respond: send(Buffer.from('this is not gzip at all'), { 'content-encoding': 'gzip' }),
    expect: /sent a corrupt gzip body/,
    maxRequests: 1,
  },
  {
    name: 'a 302 to another base URL',
    respond: (res, shape, req) => {
      res.writeHead(302, {
        location: `http://${req.headers.host}/moved${shape === 'openai' ? '/v1/chat/completions' : ''}`,
      })
      res.end()
    },
    expect:
      /answered 302, redirecting to http:\/\/127\.0\.0\.1:\d+\/moved.*set the base URL to http:\/\/127\.0\.0\.1:\d+\/moved\b/,
    maxRequests: 1,
  },
]

let server: Server
let base = ''
let row: Row
let requests = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++
    req.resume()
    req.on('end', () => row.respond(res, req.url?.includes('/converse') ? 'bedrock' : 'openai', req))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const fast = { sleep: async () => {}, baseDelayMs: 1, maxDelayMs: 1 }

function judgeFor(shape: Shape): Judge {
  if (shape === 'openai')
    return openaiJudge({ model: 'judge', baseURL: `${base}/v1`, maxReplyBytes: CAP, retry: fast, timeoutMs: 10_000 })
  return bedrockJudge({
    model: 'judge',
    maxReplyBytes: CAP,
    retry: fast,
    timeoutMs: 10_000,
    clientConfig: {
      endpoint: base,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' },
      requestHandler: new NodeHttpHandler(),
    },
  })
}

for (const shape of ['openai', 'bedrock'] as const) {
  describe(`hostile replies, ${shape} shape`, () => {
    for (const entry of ROWS.filter((r) => !r.shapes || r.shapes.includes(shape))) {
      test(entry.name, async () => {
        row = entry
        requests = 0
        const result = await callJudge<Likert>(judgeFor(shape), likertRequest())
        if (entry.expect instanceof RegExp) {
          expect(result.status, JSON.stringify(result)).toBe('unjudgeable')
          if (result.status !== 'unjudgeable') return
          expect(result.cause).toMatch(entry.expect)
          // Said as what it is: never a JavaScript error or a network failure.
          expect(result.cause).not.toMatch(/TypeError|Cannot read|is not iterable|reachable\?|Maximum call stack/)
          const stopped = /stopped reading after ([\d.]+) (KB|MB)/.exec(result.cause)
          // The read stops within the cap plus a chunk or two, never at the size the server offered.
          if (stopped) expect(Number(stopped[1]) * (stopped[2] === 'MB' ? 1024 : 1)).toBeLessThanOrEqual(64 + 128)
        } else {
          expect(result.status, JSON.stringify(result)).toBe('ok')
          if (result.status !== 'ok') return
          expect(result.output.score).toBe(entry.expect === 'pass' ? 5 : 1)
          expect((result.output.reasoning as string & { isWellFormed(): boolean }).isWellFormed()).toBe(true)
        }
        if (entry.maxRequests) expect(requests).toBeLessThanOrEqual(entry.maxRequests)
      }, 20_000)
    }
  })
}
