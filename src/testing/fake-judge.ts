// The fake judge: an OpenAI-compatible chat-completions server on loopback with scripted verdicts,
// latency and fault injection. node:http only, so it runs anywhere the package does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as z from 'zod'
import { answer } from './answer'
import { loadTokenCounter } from './tokens'
import { toConfigError } from './config'
import { FaultSelector } from './faults'
import { ChatRequestSchema, viewRequest } from './request'
import { errorBody } from './responses'
import {
  FakeJudgeFaultSchema,
  FakeJudgeLatencySchema,
  FakeJudgeOptionsSchema,
  FakeJudgeRuleSchema,
  type FakeJudgeCall,
  type FakeJudgeFault,
  type FakeJudgeLatency,
  type FakeJudgeOptions,
  type FakeJudgeRule,
  type FakeJudgeStats,
} from './schemas'

/**
 * A running fake judge. `calls` and `stats` are live and cleared in place by `reset()`.
 * @example
 * judge.setFaults([{ type: 'rate-limit', times: 1, retryAfter: '0.2' }])
 * // … one judge call later:
 * expect(judge.calls.map((c) => c.status)).toEqual([429, 200])
 */
export interface FakeJudge {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  /** `url + '/v1'`: give it to an OpenAI client or `AGENT_VERDICT_JUDGE=openai-compatible:<baseURL>#fake`. */
  readonly baseURL: string
  readonly port: number
  /** When the server started (`Date.now()`): a call arrived at `startedAt + call.at`, on the same clock as the caller's. */
  readonly startedAt: number
  readonly calls: FakeJudgeCall[]
  readonly stats: FakeJudgeStats
  /** Requests received and not yet answered or aborted (hanging ones included). */
  readonly inFlight: number
  setRules(rules: FakeJudgeRule[]): void
  setFaults(faults: FakeJudgeFault[]): void
  setLatency(latencyMs: FakeJudgeLatency): void
  /** Clears calls and stats, restarts call numbering, fault counters and the `firstMs` window. Rules and latency stay. */
  reset(): void
  /** Stops listening and drops every open connection (hanging requests included). Idempotent. */
  close(): Promise<void>
}

const MAX_BODY_BYTES = 64 * 1024 * 1024

function validated<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw toConfigError(parsed.error, what)
  return parsed.data
}

function sampleLatency(latency: FakeJudgeLatency): number {
  return typeof latency === 'number' ? latency : latency.min + Math.random() * (latency.max - latency.min)
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** The body text, or why there is none: over the limit, or the client left mid-body. */
function readBody(req: IncomingMessage): Promise<{ text: string } | { error: 'too-large' | 'aborted' }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () =>
      resolve(size > MAX_BODY_BYTES ? { error: 'too-large' } : { text: Buffer.concat(chunks).toString('utf8') }),
    )
    req.on('error', () => resolve({ error: 'aborted' }))
    req.on('close', () => resolve({ error: 'aborted' }))
  })
}

/**
 * Starts an OpenAI-compatible fake judge on 127.0.0.1 (random port by default).
 * Serves `POST /v1/chat/completions` (non-streaming) and `GET /v1/models`; everything else is a 404.
 * @example
 * const judge = await startFakeJudge({ rules: [{ when: { contains: 'EMEA' }, respond: { verdict: 'fail', reason: 'wrong region' } }] })
 * const client = new OpenAI({ baseURL: judge.baseURL, apiKey: 'test' })
 * // … run the code under test, then:
 * await judge.close()
 */
export async function startFakeJudge(options: FakeJudgeOptions = {}): Promise<FakeJudge> {
  const config = validated(FakeJudgeOptionsSchema, options ?? {}, 'startFakeJudge options')
  const model = config.model ?? 'fake-judge'
  // Usage is counted with o200k, the tokenizer prompt budgets use (loaded here, never at import).
  const countTokens = await loadTokenCounter()
  let rules = config.rules ?? []
  let latency: FakeJudgeLatency = config.latencyMs ?? 0
  const faults = new FaultSelector(config.faults ?? [])
  const calls: FakeJudgeCall[] = []
  const stats: FakeJudgeStats = { requests: 0, byStatus: {}, byFault: {}, maxInFlight: 0 }
  const startedAt = Date.now()
  const timers = new Set<NodeJS.Timeout>()
  let inFlight = 0
  const idleWaiters: (() => void)[] = []
  let arrivals = 0

  const count = (bucket: Record<string, number>, key: string) => {
    bucket[key] = (bucket[key] ?? 0) + 1
  }
  const reply = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => {
    count(stats.byStatus, String(status))
    sendJson(res, status, body, headers)
  }

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req)
    // The request has arrived: the latency runs from here, so the fake's own work (parsing, counting tokens) and
    // a burst of requests queued on its one thread do not make it a slower judge than it was asked to be.
    const arrivedAt = Date.now()
    if ('error' in body && body.error === 'aborted') return
    if ('error' in body)
      return reply(
        res,
        413,
        errorBody(
          `Request body over ${MAX_BODY_BYTES} bytes; send smaller images.`,
          'invalid_request_error',
          'request_too_large',
        ),
      )
    let raw: unknown
    try {
      raw = JSON.parse(body.text)
    } catch {
      return reply(
        res,
        400,
        errorBody(
          'The request body is not valid JSON; send a chat.completions request body.',
          'invalid_request_error',
          'invalid_json',
        ),
      )
    }
    const parsed = ChatRequestSchema.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const param = issue.path.join('.') || null
      return reply(
        res,
        400,
        errorBody(
          `Invalid chat.completions request at '${param ?? '(body)'}': ${issue.message}.`,
          'invalid_request_error',
          'invalid_value',
          param,
        ),
      )
    }
    const view = viewRequest(parsed.data)
    const n = ++arrivals
    const call: FakeJudgeCall = {
      n,
      at: arrivedAt - startedAt,
      model: view.model ?? model,
      prompt: view.prompt,
      system: view.system,
      imageCount: view.imageCount,
      responseFormat: view.responseFormat,
      schemaName: view.schemaName,
      status: null,
      fault: null,
      rule: null,
      verdict: null,
      usage: null,
      aborted: false,
    }
    calls.push(call)
    if (view.stream) {
      call.status = 400
      return reply(
        res,
        400,
        errorBody(
          'stream: true is not supported by the fake judge; send non-streaming requests.',
          'invalid_request_error',
          'unsupported_value',
          'stream',
        ),
      )
    }

    const fault = faults.select(view)
    if (fault) {
      call.fault = fault.type
      count(stats.byFault, fault.type)
    }
    const outcome = answer(view, { rules, defaultVerdict: config.defaultVerdict, model, countTokens }, fault, n)
    let dropped = false
    res.on('close', () => {
      if (!res.writableFinished && !dropped) call.aborted = true
    })
    if (outcome.kind === 'hang') return // res 'close' (client abort or close()) frees it

    // Rejections (429/5xx) come from the gateway before any model work, so they skip the model latency.
    const rejected = fault?.type === 'rate-limit' || fault?.type === 'server-error'
    const delay = Math.max(0, (rejected ? (fault.delayMs ?? 0) : sampleLatency(latency)) - (Date.now() - arrivedAt))
    if (delay > 0) {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer)
          res.off('close', onClose)
          resolve(false)
        }, delay)
        const onClose = () => {
          clearTimeout(timer)
          timers.delete(timer)
          resolve(true)
        }
        timers.add(timer)
        res.once('close', onClose)
      })
      if (aborted) return
    }
    if (outcome.kind === 'disconnect') {
      dropped = true
      req.socket.destroy()
      return
    }
    call.status = outcome.status
    call.usage = outcome.usage
    call.rule = outcome.rule
    call.verdict = outcome.verdict
    reply(res, outcome.status, outcome.body, { 'x-request-id': `req_fake_${n}`, ...outcome.headers })
  }

  function route(req: IncomingMessage, res: ServerResponse): void {
    stats.requests++
    inFlight++
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight)
    res.once('close', () => {
      inFlight--
      if (inFlight === 0) for (const resolve of idleWaiters.splice(0)) resolve()
    })
    const path = new URL(req.url ?? '/', 'http://fake-judge').pathname.replace(/\/+$/, '')
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      chat(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          reply(res, 500, errorBody(`fake judge bug: ${(error as Error).message}`, 'server_error', 'internal_error'))
      })
      return
    }
    req.resume()
    if (req.method === 'GET' && path === '/v1/models') {
      reply(res, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', created: Math.floor(startedAt / 1000), owned_by: 'agent-verdict' }],
      })
      return
    }
    reply(
      res,
      404,
      errorBody(
        `Unknown route ${req.method} ${path || '/'}: the fake judge serves POST /v1/chat/completions and GET /v1/models.`,
        'invalid_request_error',
        'unknown_url',
      ),
    )
  }

  const server = createServer(route)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port ?? 0, config.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${host}:${address.port}`
  let closing: Promise<void> | undefined

  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    startedAt,
    calls,
    stats,
    get inFlight() {
      return inFlight
    },
    setRules(next) {
      rules = validated(z.array(FakeJudgeRuleSchema), next, 'setRules(rules)')
    },
    setFaults(next) {
      faults.set(validated(z.array(FakeJudgeFaultSchema), next, 'setFaults(faults)'))
    },
    setLatency(next) {
      latency = validated(FakeJudgeLatencySchema, next, 'setLatency(latencyMs)')
    },
    reset() {
      calls.length = 0
      arrivals = 0
      Object.assign(stats, { requests: 0, byStatus: {}, byFault: {}, maxInFlight: inFlight })
      faults.restart()
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer)
        timers.clear()
        server.close(() => resolve())
        server.closeAllConnections()
      }).then(
        // Destroyed sockets report 'close' a tick later; wait so inFlight is 0 once close() resolves.
        () => new Promise<void>((resolve) => (inFlight === 0 ? resolve() : idleWaiters.push(resolve))),
      )
      return closing
    },
  }
}
