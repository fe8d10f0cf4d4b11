// The run-wide judge limit: one small loopback server per test run (started by the reporter or a
// globalSetup) hands out permits to every worker, so N workers share one concurrency limit, one
// adaptive back-off on 429s and an optional requests-per-minute cap. See docs/decisions/0023.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type Server, type Socket } from 'node:net'
import { concurrencyFromEnv, DEFAULT_JUDGE_CONCURRENCY, requestsPerMinuteFromEnv } from '../config/limits'
import { AdaptiveLimiter, type LimiterOutcome, type LimiterRelease } from './limiter'
import type { RemoteCall, RemoteResult } from './remote-call'

/** Env var carrying the coordinator's `127.0.0.1:PORT` to worker processes. */
export const COORDINATOR_ENV = 'AGENT_VERDICT_COORDINATOR'
/** Key under which the coordinator address is passed with Vitest's `provide`/`inject`. */
export const COORDINATOR_PROVIDE_KEY = 'agentVerdictCoordinator'
/** Env var carrying the token a worker shows to have the coordinator make judge calls for it (decision 0032). */
export const COORDINATOR_TOKEN_ENV = 'AGENT_VERDICT_COORDINATOR_TOKEN'
/** Key under which that token is passed with Vitest's `provide`/`inject`. */
export const COORDINATOR_TOKEN_PROVIDE_KEY = 'agentVerdictCoordinatorToken'

/** One line of the wire protocol (newline-delimited JSON over a loopback TCP socket). */
export type CoordinatorMessage =
  | { t: 'acq'; id: number; pool: string; limit?: number; retry?: boolean }
  | { t: 'rel'; id: number; outcome: LimiterOutcome }
  | { t: 'cancel'; id: number }
  | { t: 'grant'; id: number }
  | { t: 'call'; id: number; token: string; call: RemoteCall; permit?: PermitRequest }
  | { t: 'warm'; id: number; token: string }
  | { t: 'done'; id: number; result: RemoteResult }
  /** A reply still arriving after a second: what came so far (ages in ms), for the worker's timeout message. */
  | { t: 'progress'; id: number; status: number; bytes: number; sinceMs: number; idleMs?: number }

/**
 * The permit a judge call carries (decision 0033): the coordinator queues the call for it, makes the call
 * when it is granted, and gives it back when the answer is in, so a call costs one round trip, not two.
 */
export interface PermitRequest {
  pool: string
  limit?: number
  retry?: boolean
}

/** How a call the coordinator made ended, for the adaptive limit: a 429 is `throttled`. */
function outcomeOf(result: RemoteResult): LimiterOutcome {
  if (result.ok) return 'ok'
  return 'error' in result && result.error.name === 'JudgeRateLimitError' ? 'throttled' : 'error'
}

/** What one pool (one judge id) saw during the run. */
export interface PoolStats {
  pool: string
  /** The run-wide limit in force. */
  limit: number
  /** Most permits out at once. */
  peakInFlight: number
  /** Permits handed out (attempts, retries included). */
  grants: number
  /** Requests that had to queue for a permit. */
  waits: number
  /** Attempts answered with a rate limit (429 / throttling). */
  throttled: number
  /** Times the adaptive back-off halved the limit. */
  cuts: number
  /** Of the calls, those the coordinator made for a worker (decision 0032). */
  sent: number
}

export interface CoordinatorOptions {
  /** Run-wide concurrency; default `AGENT_VERDICT_CONCURRENCY`, else the first worker's judge option, else 8. */
  concurrency?: number
  /** Requests per minute across the run; default `AGENT_VERDICT_RPM`, else unlimited. */
  requestsPerMinute?: number
  env?: Record<string, string | undefined>
  /** Injectable clock for the requests-per-minute window. */
  now?: () => number
}

export interface RunCoordinator {
  /** `127.0.0.1:PORT`, for `AGENT_VERDICT_COORDINATOR` or `provide`. */
  readonly address: string
  /**
   * The secret a worker sends with a judge call it wants made here (`AGENT_VERDICT_COORDINATOR_TOKEN`): only
   * processes given it by the run can spend the run's credentials through this port.
   */
  readonly token: string
  stats(): PoolStats[]
  /**
   * Judge calls made here for workers (`served`), of which `carried` brought their permit request (one
   * round trip instead of two), and calls turned down for a wrong token (`refused`).
   */
  remoteCalls(): { served: number; refused: number; carried: number }
  /** Stops listening and drops every worker connection. Idempotent. */
  close(): Promise<void>
}

interface Pool {
  limiter: AdaptiveLimiter
  stats: PoolStats
  starts: number[]
}

/**
 * Starts the run-wide coordinator on an ephemeral loopback port. A worker that disconnects (crash,
 * exit) gives back every permit it held and its queued requests are dropped.
 *
 * @example
 * const coordinator = await startCoordinator({ concurrency: 8 })
 * process.env.AGENT_VERDICT_COORDINATOR = coordinator.address // workers spawned now share 8 slots
 */
export async function startCoordinator(options: CoordinatorOptions = {}): Promise<RunCoordinator> {
  const env = options.env ?? process.env
  const fixed = options.concurrency ?? concurrencyFromEnv(env)
  const rpm = options.requestsPerMinute ?? requestsPerMinuteFromEnv(env)
  const now = options.now ?? Date.now
  const pools = new Map<string, Pool>()
  const sockets = new Set<Socket>()
  const token = randomBytes(24).toString('base64url')
  const remote = { served: 0, refused: 0, carried: 0 }
  let host: Promise<typeof import('./judge-host')> | undefined
  const loadHost = () => (host ??= import('./judge-host'))

  const poolFor = (name: string, wanted: number | undefined): Pool => {
    let pool = pools.get(name)
    if (!pool) {
      const limit = fixed ?? (wanted && Number.isInteger(wanted) && wanted > 0 ? wanted : DEFAULT_JUDGE_CONCURRENCY)
      pool = {
        limiter: new AdaptiveLimiter({ concurrency: limit }),
        stats: { pool: name, limit, peakInFlight: 0, grants: 0, waits: 0, throttled: 0, cuts: 0, sent: 0 },
        starts: [],
      }
      pools.set(name, pool)
    }
    return pool
  }

  /** Waits until the requests-per-minute window has room, holding the permit already granted. */
  const paced = async (pool: Pool, signal: AbortSignal): Promise<void> => {
    if (!rpm) return
    for (;;) {
      const t = now()
      while (pool.starts.length > 0 && pool.starts[0] <= t - 60_000) pool.starts.shift()
      if (pool.starts.length < rpm) {
        pool.starts.push(t)
        return
      }
      await new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, pool.starts[0] + 60_000 - t)))
      if (signal.aborted) throw signal.reason
    }
  }

  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.setNoDelay(true)
    // Serving never keeps the process alive (the listening socket is unref'd too): a worker's end holds it open
    // while it waits. Under Jest, whose global setup has no teardown, a run in one process (one test file runs
    // in band) would otherwise never exit: this end of its own connection stayed referenced.
    socket.unref()
    const held = new Map<number, LimiterRelease>()
    const queued = new Map<number, AbortController>()
    const calls = new Map<number, AbortController>()
    const send = (msg: CoordinatorMessage) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`)
    }
    /**
     * A call's answer. Reply data that does not serialize, or serializes past what a worker reads in one line,
     * fails that call by name: nothing a judge sends may take the run's main process down.
     */
    const sendDone = (id: number, result: RemoteResult, ctx: unknown) => {
      if (socket.destroyed) return
      let line: string
      try {
        line = JSON.stringify({ t: 'done', id, result } satisfies CoordinatorMessage)
      } catch (err) {
        line = JSON.stringify({ t: 'done', id, result: unsendable(ctx, err) })
      }
      if (line.length > MAX_LINE)
        line = JSON.stringify({ t: 'done', id, result: unsendable(ctx, undefined, line.length) })
      socket.write(`${line}\n`)
    }
    /**
     * A permit from `name`'s pool for request `id` (queued under `id`, so a `cancel` or the worker leaving
     * drops it); `undefined` when it was dropped before the grant.
     */
    const grantPermit = async (
      id: number,
      name: string,
      limit: number | undefined,
      retry: boolean,
    ): Promise<LimiterRelease | undefined> => {
      const pool = poolFor(name, limit)
      const controller = new AbortController()
      queued.set(id, controller)
      if (pool.limiter.inFlight >= pool.limiter.limit || pool.limiter.queued > 0) pool.stats.waits++
      let release: LimiterRelease
      try {
        release = await pool.limiter.acquire(controller.signal, { retry })
      } catch {
        queued.delete(id)
        return undefined
      }
      try {
        await paced(pool, controller.signal)
      } catch {
        controller.abort()
      }
      queued.delete(id)
      // The worker left (or cancelled) between the grant and now: give the slot straight back.
      if (controller.signal.aborted) {
        release('error')
        return undefined
      }
      pool.stats.grants++
      pool.stats.peakInFlight = Math.max(pool.stats.peakInFlight, pool.limiter.inFlight)
      return (outcome) => {
        release(outcome)
        if (outcome === 'throttled') pool.stats.throttled++
        pool.stats.cuts = pool.limiter.cuts
      }
    }
    /** Makes a worker's judge call, under the permit it carried if any, and answers with the result. */
    const serveCall = async (msg: Extract<CoordinatorMessage, { t: 'call' }>) => {
      const permit = msg.permit
      let release: LimiterRelease | undefined
      if (permit) {
        release = await grantPermit(msg.id, String(permit.pool), permit.limit, permit.retry === true)
        // Cancelled while queued: the worker has already given up on it, and nothing was sent.
        if (!release) return
        remote.carried++
        // The worker starts the attempt's timeout now, as it would on an `acq` grant.
        send({ t: 'grant', id: msg.id })
      }
      const ctx = msg.call.ctx as { provider?: unknown; model?: unknown } | undefined
      const pool = pools.get(permit ? String(permit.pool) : `${String(ctx?.provider)}:${String(ctx?.model)}`)
      if (pool) pool.stats.sent++
      const controller = new AbortController()
      calls.set(msg.id, controller)
      const onProgress = (p: { status: number; bytes: number; sinceMs: number; idleMs?: number }) =>
        send({ t: 'progress', id: msg.id, ...p })
      const result = await loadHost()
        .then((h) => h.runRemoteCall(msg.call, controller.signal, onProgress))
        .catch((): RemoteResult => ({ ok: false, refused: true }))
      // The slot goes to the next queued call before this answer is even written.
      release?.(outcomeOf(result))
      calls.delete(msg.id)
      if (!controller.signal.aborted) sendDone(msg.id, result, msg.call.ctx)
    }
    const onMessage = (msg: CoordinatorMessage) => {
      if (msg.t === 'acq') {
        void grantPermit(msg.id, String(msg.pool), msg.limit, msg.retry === true).then((release) => {
          if (!release) return
          held.set(msg.id, release)
          send({ t: 'grant', id: msg.id })
        })
      } else if (msg.t === 'rel') {
        const release = held.get(msg.id)
        held.delete(msg.id)
        release?.(msg.outcome === 'ok' || msg.outcome === 'throttled' ? msg.outcome : 'error')
      } else if (msg.t === 'call') {
        if (!sameToken(msg.token, token) || !msg.call || typeof msg.call !== 'object') {
          remote.refused++
          send({ t: 'done', id: msg.id, result: { ok: false, refused: true } })
          return
        }
        remote.served++
        // Nothing a judge sends may reject unhandled in the runner's main process.
        serveCall(msg).catch((err: unknown) => {
          calls.delete(msg.id)
          sendDone(msg.id, unsendable(msg.call.ctx, err), msg.call.ctx)
        })
      } else if (msg.t === 'warm') {
        if (sameToken(msg.token, token))
          loadHost()
            .then((h) => h.warmJudgeHost())
            .catch(() => {})
      } else if (msg.t === 'cancel') {
        calls.get(msg.id)?.abort()
        calls.delete(msg.id)
        queued.get(msg.id)?.abort()
        queued.delete(msg.id)
        const release = held.get(msg.id)
        held.delete(msg.id)
        release?.('error')
      }
    }
    readLines(socket, onMessage)
    socket.on('error', () => {})
    socket.on('close', () => {
      sockets.delete(socket)
      // A worker that died gives its permits back; nothing it queued is granted any more.
      for (const controller of queued.values()) controller.abort()
      queued.clear()
      // Its judge calls are of no use to anyone now.
      for (const controller of calls.values()) controller.abort()
      calls.clear()
      for (const release of held.values()) release('error')
      held.clear()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  server.unref()
  const port = (server.address() as { port: number }).port
  let closed: Promise<void> | undefined
  return {
    address: `127.0.0.1:${port}`,
    token,
    remoteCalls: () => ({ ...remote }),
    stats: () => [...pools.values()].map((p) => ({ ...p.stats, cuts: p.limiter.cuts })),
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
      return closed
    },
  }
}

/**
 * The answer to a call whose result could not go over the socket (it did not serialize, or is longer than a line
 * may be): a non-retried failure of that call naming why, never a crash of the coordinator.
 */
function unsendable(ctx: unknown, err: unknown, length?: number): RemoteResult {
  const call = (ctx ?? {}) as { provider?: unknown; model?: unknown }
  const why =
    length !== undefined
      ? `its reply is ${length} characters as JSON, over the ${MAX_LINE}-character limit of a worker message`
      : `its reply could not be passed to the test worker (${err instanceof Error ? err.message : String(err)})`
  return {
    ok: false,
    error: {
      name: 'JudgeOutputError',
      message: `${String(call.provider)}:${String(call.model)} answered, but ${why}; no verdict was taken`,
      provider: String(call.provider),
      model: String(call.model),
      retryable: false,
    },
  }
}

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== 'string' || given.length !== token.length) return false
  return timingSafeEqual(Buffer.from(given), Buffer.from(token))
}

/** Longest line read (a judge call's body with its images); a longer one drops the connection. */
const MAX_LINE = 32 * 1024 * 1024

/** Calls `onMessage` for each complete JSON line; malformed lines are ignored (a stray client cannot crash the run). */
export function readLines(socket: Socket, onMessage: (msg: CoordinatorMessage) => void, maxLine = MAX_LINE): void {
  let buffer = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    // Only the new chunk is searched for line ends: a large line arriving in many chunks stays linear.
    let start = 0
    let nl = chunk.indexOf('\n')
    while (nl >= 0) {
      const line = buffer + chunk.slice(start, nl)
      buffer = ''
      start = nl + 1
      nl = chunk.indexOf('\n', start)
      let msg: CoordinatorMessage
      try {
        msg = JSON.parse(line) as CoordinatorMessage
      } catch {
        continue
      }
      if (msg && typeof msg === 'object' && typeof msg.id === 'number') onMessage(msg)
    }
    buffer += chunk.slice(start)
    if (buffer.length > maxLine) socket.destroy()
  })
}

/**
 * One line for the run summary, e.g. `judge limit (run-wide): openai:gpt-4.1 8 — peak 8 in flight, 192 waited, 3 × 429`.
 *
 * @example
 * formatCoordinatorStats(coordinator.stats()) // '' when no judge call was made
 */
export function formatCoordinatorStats(stats: readonly PoolStats[]): string {
  return stats
    .map(
      (s) =>
        `judge limit (run-wide): ${s.pool} ${s.limit} — peak ${s.peakInFlight} in flight, ${s.grants} calls, ${s.waits} waited, ${s.throttled} × 429${s.cuts ? `, cut ${s.cuts}×` : ''}${s.sent ? `; ${s.sent} sent from the runner's main process` : ''}`,
    )
    .join('\n')
}
