// A stand-in for a local llama.cpp server whose model loops: every chat completion "generates" filler until the
// request's max_tokens, the server's own -n (nPredict) or the end of its context, whichever comes first — the
// failure of issue 35. It answers GET /props like llama-server (n_ctx), can answer POST /api/show like Ollama, and
// returns llama.cpp's context errors. Loopback only, port 0; prompts are counted with o200k.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadTokenCounter } from '../../src/testing/tokens'

export interface LoopingCall {
  promptTokens: number
  /** max_tokens (or max_completion_tokens) as sent; undefined when the request carried none. */
  maxTokens: number | undefined
  /** Filler tokens generated for it. */
  generated: number
  /** How the call ended: a cut-off reply, or the context errors llama.cpp sends. */
  ended: 'length' | 'context-500' | 'context-400'
}

export interface LoopingServerOptions {
  /** The server's context window (llama.cpp -c). */
  nCtx: number
  /** The server's own output cap (llama.cpp -n); none by default, as llama-server's -1. */
  nPredict?: number
  /** Answer /props as llama.cpp does (default true); false answers 404 there. */
  props?: boolean
  /** Answer POST /api/show as Ollama does, with these `parameters` and `model_info`. */
  ollamaShow?: { parameters?: string; model_info?: Record<string, unknown> }
}

export interface LoopingServer {
  baseURL: string
  calls: LoopingCall[]
  /** Paths requested other than chat completions, in order (the context probe's). */
  probes: string[]
  close(): Promise<void>
}

// One o200k counter for every stand-in of a test file: loading it is the slow part (seconds on a busy machine).
let counter: ReturnType<typeof loadTokenCounter> | undefined

/**
 * Loads the stand-in's token counter ahead of the tests (call it in `beforeAll` with a generous timeout), so no
 * single test pays for it.
 *
 * @example
 * beforeAll(async () => { await warmLoopingServer() }, 120_000)
 */
export async function warmLoopingServer(): Promise<void> {
  counter ??= loadTokenCounter()
  // Resolves to nothing: a beforeAll hook that returns a function has it called as its teardown.
  await counter
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function messageText(messages: unknown): string {
  if (!Array.isArray(messages)) return ''
  return messages
    .map((m) => {
      const content = (m as { content?: unknown }).content
      if (typeof content === 'string') return content
      if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('')
      return ''
    })
    .join('\n')
}

/**
 * Starts the stand-in on 127.0.0.1.
 *
 * @example
 * const server = await startLoopingServer({ nCtx: 8192 })
 * const judge = openaiJudge({ model: 'looper', baseURL: server.baseURL })
 */
export async function startLoopingServer(options: LoopingServerOptions): Promise<LoopingServer> {
  counter ??= loadTokenCounter()
  const count = await counter
  const calls: LoopingCall[] = []
  const probes: string[] = []
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'GET' && path === '/props') {
      probes.push(path)
      if (options.props === false) return send(res, 404, { error: { code: 404, message: 'File Not Found' } })
      return send(res, 200, {
        default_generation_settings: { n_ctx: options.nCtx, n_predict: options.nPredict ?? -1 },
        total_slots: 1,
      })
    }
    if (req.method === 'POST' && path === '/api/show') {
      probes.push(path)
      if (!options.ollamaShow) return send(res, 404, { error: { code: 404, message: 'File Not Found' } })
      return send(res, 200, { modelfile: '', ...options.ollamaShow })
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      probes.push(path)
      return send(res, 404, { error: { code: 404, message: 'File Not Found' } })
    }
    const request = JSON.parse(body) as { messages?: unknown; max_tokens?: number; max_completion_tokens?: number }
    const promptTokens = count(messageText(request.messages))
    const maxTokens = request.max_tokens ?? request.max_completion_tokens
    // As llama-server: a prompt that does not fit is refused up front (400), one that fits generates until a cap;
    // running into the context's end mid-generation is the 500 "Context size has been exceeded".
    if (promptTokens >= options.nCtx) {
      calls.push({ promptTokens, maxTokens, generated: 0, ended: 'context-400' })
      return send(res, 400, {
        error: {
          code: 400,
          message: `request (${promptTokens} tokens) exceeds the available context size (${options.nCtx} tokens), try increasing it`,
          type: 'exceed_context_size_error',
          n_prompt_tokens: promptTokens,
          n_ctx: options.nCtx,
        },
      })
    }
    const room = options.nCtx - promptTokens
    const cap = Math.min(maxTokens ?? Number.POSITIVE_INFINITY, options.nPredict ?? Number.POSITIVE_INFINITY)
    if (cap >= room) {
      calls.push({ promptTokens, maxTokens, generated: room, ended: 'context-500' })
      return send(res, 500, { error: { code: 500, message: 'Context size has been exceeded.', type: 'server_error' } })
    }
    calls.push({ promptTokens, maxTokens, generated: cap, ended: 'length' })
    send(res, 200, {
      id: `chatcmpl-${calls.length}`,
      object: 'chat.completion',
      created: 0,
      model: 'looper',
      choices: [
        {
          index: 0,
          finish_reason: 'length',
          message: { role: 'assistant', content: '{"reasoning": "the the the'.padEnd(Math.min(cap, 2000), ' the') },
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: cap, total_tokens: promptTokens + cap },
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    calls,
    probes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
