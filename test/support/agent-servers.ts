// Local stand-ins for what a real agent calls, on 127.0.0.1: a model server that answers differently on every call
// (OpenAI chat completions and responses, Anthropic messages, Bedrock Converse and ConverseStream; plain and
// streamed, gzip when asked), the same model over HTTP/2 cleartext (the AWS SDK's default handler speaks HTTP/2) and a
// tool API with random readings. Each counts the requests it served.
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createH2Server, type Http2Server } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { gzipSync, crc32 } from 'node:zlib'

export interface AgentServers {
  modelUrl: string
  /** The model server over HTTP/2 without TLS (h2c), for the AWS SDK's default NodeHttp2Handler. */
  modelH2Url: string
  toolUrl: string
  /** Requests served so far, by all servers. */
  requests(): number
  /** Connections (HTTP/2 sessions) the HTTP/2 model server accepted so far. */
  h2Sessions(): number
  /** Authorization-like header values the servers saw (to check none reaches a recording). */
  seenKeys(): string[]
  close(): Promise<void>
}

const words = ['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper']
let answers = 0
/** A new answer each call: a counter and a random word, as a sampling model would. */
const nextAnswer = (prompt: string) =>
  `Answer ${++answers} (${words[Math.floor(Math.random() * words.length)]}-${randomUUID().slice(0, 6)}) to: ${prompt.slice(0, 40)}`

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    req.on('data', (d) => (text += d))
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}

/** An AWS event-stream frame with string headers, written here independently of the code under test. */
export function frame(eventType: string, payload: unknown): Buffer {
  const headers: Buffer[] = []
  for (const [name, value] of [
    [':event-type', eventType],
    [':content-type', 'application/json'],
    [':message-type', 'event'],
  ]) {
    const n = Buffer.from(name)
    const v = Buffer.from(value)
    const len = Buffer.alloc(2)
    len.writeUInt16BE(v.length)
    headers.push(Buffer.from([n.length]), n, Buffer.from([7]), len, v)
  }
  const h = Buffer.concat(headers)
  const body = Buffer.from(JSON.stringify(payload))
  const total = 16 + h.length + body.length
  const prelude = Buffer.alloc(8)
  prelude.writeUInt32BE(total, 0)
  prelude.writeUInt32BE(h.length, 4)
  const preludeCrc = Buffer.alloc(4)
  preludeCrc.writeUInt32BE(crc32(prelude))
  const head = Buffer.concat([prelude, preludeCrc, h, body])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(head))
  return Buffer.concat([head, crc])
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>
  const last = [...messages].reverse().find((m) => m.role === 'user')
  const content = last?.content ?? body.input
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content.map((p) => (p as { text?: string }).text ?? (p as { content?: string }).content ?? '').join(' ')
  return ''
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': randomUUID() })
  for (const e of events)
    res.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    )
  res.end()
}

function json(req: IncomingMessage, res: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-request-id': `req_${randomUUID()}`,
    'x-ratelimit-remaining-requests': '99',
    'set-cookie': 'session=s3cr3t-cookie-value; HttpOnly',
  }
  if (/gzip/.test(String(req.headers['accept-encoding'] ?? ''))) {
    res.writeHead(200, { ...headers, 'content-encoding': 'gzip' })
    res.end(gzipSync(text))
  } else {
    res.writeHead(200, headers)
    res.end(text)
  }
}

async function model(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req)
  const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>
  const url = req.url ?? ''
  const answer = nextAnswer(lastUserText(body))
  const half = Math.ceil(answer.length / 2)
  const parts = [answer.slice(0, half), answer.slice(half)]
  const usage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 }
  if (url.endsWith('/chat/completions')) {
    const id = `chatcmpl-${randomUUID()}`
    if (body.stream)
      return sse(res, [
        ...parts.map((p) => ({
          data: {
            id,
            object: 'chat.completion.chunk',
            model: body.model,
            choices: [{ index: 0, delta: { content: p }, finish_reason: null }],
          },
        })),
        {
          data: {
            id,
            object: 'chat.completion.chunk',
            model: body.model,
            choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
            usage,
          },
        },
        { data: '[DONE]' },
      ])
    return json(req, res, {
      id,
      object: 'chat.completion',
      created: 1,
      model: body.model,
      usage,
      choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
    })
  }
  if (url.endsWith('/responses')) {
    const id = `resp_${randomUUID()}`
    const message = {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: answer, annotations: [] }],
    }
    const response = {
      id,
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: body.model,
      output: [message],
      usage: { input_tokens: 12, output_tokens: 9, total_tokens: 21 },
    }
    if (body.stream)
      return sse(res, [
        {
          event: 'response.created',
          data: {
            type: 'response.created',
            sequence_number: 0,
            response: { ...response, status: 'in_progress', output: [] },
          },
        },
        {
          event: 'response.output_item.added',
          data: {
            type: 'response.output_item.added',
            sequence_number: 1,
            output_index: 0,
            item: { ...message, status: 'in_progress', content: [] },
          },
        },
        {
          event: 'response.content_part.added',
          data: {
            type: 'response.content_part.added',
            sequence_number: 2,
            item_id: message.id,
            output_index: 0,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          },
        },
        ...parts.map((p, i) => ({
          event: 'response.output_text.delta',
          data: {
            type: 'response.output_text.delta',
            sequence_number: i + 3,
            item_id: message.id,
            output_index: 0,
            content_index: 0,
            delta: p,
          },
        })),
        {
          event: 'response.output_text.done',
          data: {
            type: 'response.output_text.done',
            sequence_number: 6,
            item_id: message.id,
            output_index: 0,
            content_index: 0,
            text: answer,
          },
        },
        {
          event: 'response.content_part.done',
          data: {
            type: 'response.content_part.done',
            sequence_number: 7,
            item_id: message.id,
            output_index: 0,
            content_index: 0,
            part: message.content[0],
          },
        },
        {
          event: 'response.output_item.done',
          data: { type: 'response.output_item.done', sequence_number: 8, output_index: 0, item: message },
        },
        { event: 'response.completed', data: { type: 'response.completed', sequence_number: 9, response } },
      ])
    return json(req, res, response)
  }
  if (url.endsWith('/messages')) {
    const id = `msg_${randomUUID()}`
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: answer }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 9 },
    }
    if (body.stream)
      return sse(res, [
        {
          event: 'message_start',
          data: { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
        },
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        },
        ...parts.map((p) => ({
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } },
        })),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        {
          event: 'message_delta',
          data: {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 9 },
          },
        },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ])
    return json(req, res, message)
  }
  if (/\/model\/[^/]+\/converse-stream$/.test(url)) {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomUUID() })
    res.write(frame('messageStart', { role: 'assistant', p: 'abcd' }))
    for (const p of parts) res.write(frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: p }, p: 'ab' }))
    res.write(frame('contentBlockStop', { contentBlockIndex: 0, p: 'abcdef' }))
    res.write(frame('messageStop', { stopReason: 'end_turn', p: 'a' }))
    res.end(
      frame('metadata', {
        usage: { inputTokens: 12, outputTokens: 9, totalTokens: 21 },
        metrics: { latencyMs: 5 },
        p: 'ab',
      }),
    )
    return
  }
  if (/\/model\/[^/]+\/converse$/.test(url)) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() })
    res.end(
      JSON.stringify({
        output: { message: { role: 'assistant', content: [{ text: answer }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 12, outputTokens: 9, totalTokens: 21 },
        metrics: { latencyMs: 5 },
      }),
    )
    return
  }
  res.writeHead(404, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url}` } }))
}

function tool(req: IncomingMessage, res: ServerResponse): void {
  const city = new URL(req.url ?? '/', 'http://x').searchParams.get('city') ?? 'nowhere'
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ city, celsius: Math.round(Math.random() * 400) / 10, reading: randomUUID() }))
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  count: () => void,
  keys: string[],
): Promise<Server> {
  const server = createServer((req, res) => {
    count()
    for (const name of ['authorization', 'x-api-key', 'api-key']) {
      const v = req.headers[name]
      if (typeof v === 'string') keys.push(v)
    }
    Promise.resolve(handler(req, res)).catch((err) => {
      res.writeHead(500)
      res.end(String(err))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

/**
 * Starts the model server and the tool API on 127.0.0.1 (port 0).
 *
 * @example
 * const servers = await startAgentServers(); process.env.MODEL_URL = servers.modelUrl
 */
export async function startAgentServers(): Promise<AgentServers> {
  let served = 0
  const keys: string[] = []
  const count = () => {
    served++
  }
  const modelServer = await listen(model, count, keys)
  const toolServer = await listen(tool, count, keys)
  let h2Sessions = 0
  const h2 = createH2Server((req, res) => {
    count()
    for (const name of ['authorization', 'x-api-key', 'api-key']) {
      const v = req.headers[name]
      if (typeof v === 'string') keys.push(v)
    }
    // The compatibility API has the fields `model` reads (url, headers, data; writeHead, write, end).
    Promise.resolve(model(req as unknown as IncomingMessage, res as unknown as ServerResponse)).catch((err) => {
      res.writeHead(500)
      res.end(String(err))
    })
  })
  const open = new Set<import('node:http2').ServerHttp2Session>()
  h2.on('session', (session) => {
    h2Sessions++
    open.add(session)
    session.on('close', () => open.delete(session))
  })
  await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve))
  const url = (s: Server | Http2Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`
  return {
    modelUrl: url(modelServer),
    modelH2Url: url(h2),
    toolUrl: url(toolServer),
    requests: () => served,
    h2Sessions: () => h2Sessions,
    seenKeys: () => [...new Set(keys)],
    close: async () => {
      for (const s of [modelServer, toolServer]) {
        s.closeAllConnections()
        await new Promise<void>((resolve) => s.close(() => resolve()))
      }
      for (const session of open) session.destroy()
      await new Promise<void>((resolve) => h2.close(() => resolve()))
    },
  }
}
