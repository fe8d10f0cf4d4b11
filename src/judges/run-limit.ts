// The worker side of the run-wide judge limit: a judge asks the run's coordinator for a permit before
// each attempt, and falls back to its own per-process limiter (with a one-line note) when there is no
// coordinator or it went away. See docs/decisions/0023-run-wide-judge-limit.md.
import { AsyncLocalStorage } from 'node:async_hooks'
import { closeSync, openSync, readdirSync, rmSync, statSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  COORDINATOR_ENV,
  COORDINATOR_TOKEN_ENV,
  readLines,
  type CoordinatorMessage,
  type PermitRequest,
} from './coordinator'
import type { AdaptiveLimiter, LimiterOutcome, LimiterRelease } from './limiter'
import {
  MAX_REMOTE_LINE,
  remoteAbortError,
  type RemoteCall,
  type RemoteResult,
  type WireJudgeError,
} from './remote-call'
import { type ReplyProgress, replyProgressOf } from './reply-watch'

/** Anything that hands out limiter slots: the local `AdaptiveLimiter` or the run-wide coordinator. */
export interface PermitSource {
  acquire(signal?: AbortSignal, options?: { retry?: boolean }): Promise<LimiterRelease>
}

/** The permit request a remote call carries, and what to do when the coordinator grants it. */
export interface CarriedPermit {
  request: PermitRequest
  onGrant: () => void
}

const attemptScope = new AsyncLocalStorage<AttemptPermit>()

/**
 * A permit handed out before it is granted (decision 0033). The judge's attempt runs in its scope; a call
 * the attempt sends through the run's coordinator carries the permit request, so the coordinator queues the
 * call itself and makes it the moment a slot frees: one round trip instead of an `acq`, a `grant` and then
 * the call. A call this process makes itself takes the slot the usual way first ({@link AttemptPermit.hold}).
 * `granted` settles at the first grant either way: the attempt's timeout starts there, not in the queue.
 */
export class AttemptPermit {
  readonly granted: Promise<void>
  private markGranted!: () => void
  private held: LimiterRelease | undefined

  constructor(
    readonly request: PermitRequest,
    private readonly acquireHere: (signal?: AbortSignal) => Promise<LimiterRelease>,
  ) {
    this.granted = new Promise<void>((resolve) => {
      this.markGranted = resolve
    })
  }

  /** Runs the attempt with this permit as {@link attemptPermit}. */
  run<T>(attempt: () => Promise<T>): Promise<T> {
    return attemptScope.run(this, attempt)
  }

  /** The request a remote call carries; `undefined` when the attempt already holds a slot here. */
  carry(): CarriedPermit | undefined {
    return this.held ? undefined : { request: this.request, onGrant: () => this.markGranted() }
  }

  /** Takes the slot in this process, before a call made here; once per attempt. */
  async hold(signal?: AbortSignal): Promise<void> {
    if (this.held) return
    this.held = await this.acquireHere(signal)
    this.markGranted()
  }

  /** Ends the attempt: gives back the slot held here, if any (the coordinator gave back the carried ones). */
  release(outcome: LimiterOutcome): void {
    const held = this.held
    this.held = undefined
    held?.(outcome)
  }
}

/** The deferred permit of the judge attempt running here, if its permit source deferred it. */
export function attemptPermit(): AttemptPermit | undefined {
  return attemptScope.getStore()
}

const ADDRESS_KEY = Symbol.for('agent-verdict.coordinator-address')
const TOKEN_KEY = Symbol.for('agent-verdict.coordinator-token')
const CLIENTS_KEY = Symbol.for('agent-verdict.coordinator-clients')
const NOTED_KEY = Symbol.for('agent-verdict.coordinator-noted')
const IN_TEST_RUN_KEY = Symbol.for('agent-verdict.in-test-run')
/** Each runner's own config line: Jest takes one module path (a string), Vitest a list. */
const COORDINATOR_HINT = {
  vitest: "add globalSetup: ['agent-verdict/global-setup'] to test in vitest.config.ts",
  jest: "add globalSetup: 'agent-verdict/global-setup' (one string, not a list) to jest.config",
} as const
type Store = Record<symbol, unknown>
const store = globalThis as unknown as Store

/**
 * Called by the Vitest and Jest setup files: marks this process as a test worker of `runner` (so running
 * without a coordinator is worth a note, in that runner's config syntax) and points its judges at the run's coordinator (`127.0.0.1:PORT`, as
 * `agent-verdict/global-setup` provided it), with the token that lets it make judge calls for this process.
 * `undefined` leaves `AGENT_VERDICT_COORDINATOR` (and `AGENT_VERDICT_COORDINATOR_TOKEN`) as the only source.
 *
 * @example
 * useCoordinator(inject('agentVerdictCoordinator'), inject('agentVerdictCoordinatorToken'))
 */
export function useCoordinator(
  address: string | undefined,
  token?: string,
  runner: 'vitest' | 'jest' = 'vitest',
): void {
  store[IN_TEST_RUN_KEY] = runner
  if (address) store[ADDRESS_KEY] = address
  if (address && token) store[TOKEN_KEY] = token
}

/** The coordinator address this process should use, if any. */
export function coordinatorAddress(env: Record<string, string | undefined> = process.env): string | undefined {
  const fromSetup = store[ADDRESS_KEY]
  if (typeof fromSetup === 'string' && fromSetup) return fromSetup
  return env[COORDINATOR_ENV]?.trim() || undefined
}

/** The token for {@link coordinatorAddress}'s judge calls, if this process was given one. */
function coordinatorToken(env: Record<string, string | undefined> = process.env): string | undefined {
  const fromSetup = store[TOKEN_KEY]
  if (typeof fromSetup === 'string' && fromSetup && store[ADDRESS_KEY]) return fromSetup
  return env[COORDINATOR_TOKEN_ENV]?.trim() || undefined
}

/** Makes judge calls through the run's coordinator (decision 0032). */
export interface RemoteJudgeCaller {
  /**
   * The coordinator's answer; `undefined` when it cannot make this call (gone, refused, a body too large
   * for the socket): the caller then makes it itself.
   */
  call(call: RemoteCall, signal?: AbortSignal, permit?: CarriedPermit): Promise<RemoteResult | undefined>
  /** Has the coordinator load the SDK now, and opens the connection, ahead of the first call. */
  warm(): void
}

/**
 * The run's coordinator as a maker of judge calls, when this process has one and its token; else
 * `undefined`. `AGENT_VERDICT_REMOTE_JUDGE=0` keeps every call in the worker.
 *
 * @example
 * const remote = remoteJudgeCaller()
 * const result = remote && (await remote.call({ client, ctx, body }, signal))
 */
export function remoteJudgeCaller(
  env: Record<string, string | undefined> = process.env,
): RemoteJudgeCaller | undefined {
  if (env.AGENT_VERDICT_REMOTE_JUDGE === '0') return undefined
  const address = coordinatorAddress(env)
  const token = address && coordinatorToken(env)
  if (!address || !token) return undefined
  const client = clientFor(address)
  if (client.dead || client.refused) return undefined
  return {
    call: (call, signal, permit) => client.call(call, token, signal, permit),
    warm: () => client.warm(token),
  }
}

/** Writes `message` to stderr once per process and key (the per-process fallback notes). */
function noteOnce(key: string, message: string, oncePerRun = false): void {
  const noted = (store[NOTED_KEY] ??= new Set<string>()) as Set<string>
  if (noted.has(key)) return
  noted.add(key)
  if (oncePerRun && !firstInRun(key)) return
  process.stderr.write(`agent-verdict: ${message}\n`)
}

/**
 * The process that stands for this test run: the runner's main process for a forked worker (Vitest
 * forks, Jest workers: children with an IPC channel), else this process itself (Vitest threads share it;
 * Jest --runInBand runs in it). Keying by the parent there would be the user's shell, shared by runs.
 */
function runPid(): number {
  return typeof process.send === 'function' ? process.ppid : process.pid
}

const MARKER_PREFIX = 'agent-verdict-note-'
/** Markers of runs older than this are swept when a new one is written, so tmp does not fill up. */
const MARKER_MAX_AGE_MS = 24 * 60 * 60 * 1000

/**
 * The marker that makes a note once per run rather than once per worker: the workers of one run share
 * {@link runPid}, so the first to create the file says it. A leftover marker of an old run whose
 * process had the same pid only costs that run its note.
 */
export function runNoteMarker(key: string, pid = runPid()): string {
  return join(tmpdir(), `${MARKER_PREFIX}${pid}-${key.replace(/[^a-z0-9]/gi, '_')}`)
}

function firstInRun(key: string): boolean {
  try {
    closeSync(openSync(runNoteMarker(key), 'wx'))
  } catch (err) {
    // Exists: another worker of this run said it. Any other failure (read-only tmp): say it here.
    return (err as NodeJS.ErrnoException).code !== 'EEXIST'
  }
  sweepOldMarkers()
  return true
}

function sweepOldMarkers(): void {
  try {
    const dir = tmpdir()
    const cutoff = Date.now() - MARKER_MAX_AGE_MS
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(MARKER_PREFIX)) continue
      const path = join(dir, name)
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true })
    }
  } catch {
    // Best effort: a marker left behind costs a few bytes, never a note.
  }
}

/**
 * The permits a judge uses: the run-wide coordinator's when one is running for this run, else
 * `local` (the judge's own adaptive limiter). Decided per attempt, so a coordinator that starts after
 * the judge was built is still used, and one that goes away is replaced by `local` without hanging.
 *
 * @example
 * const permits = runWidePermits('openai:gpt-4.1-mini', new AdaptiveLimiter({ concurrency: 8 }))
 * const release = await permits.acquire(signal); try { await call(); release('ok') } catch { release('error') }
 */
export function runWidePermits(
  pool: string,
  local: AdaptiveLimiter,
  options: { remoteCalls?: boolean } = {},
): PermitSource {
  const acquireNow = async (signal: AbortSignal | undefined, options: { retry?: boolean }) => {
    const address = coordinatorAddress()
    if (!address) {
      // A script or CLI is one process, so its limit is already the whole run's: no note there.
      const runner = store[IN_TEST_RUN_KEY]
      if (runner)
        noteOnce(
          'none',
          `no run coordinator, so judge concurrency ${local.max} applies per worker; ${COORDINATOR_HINT[runner === 'jest' ? 'jest' : 'vitest']} to share one limit across the run`,
          true,
        )
      return local.acquire(signal, options)
    }
    const client = clientFor(address)
    if (client.dead) return fallback(local, address, signal, options)
    try {
      return await client.acquire(pool, local.max, signal, options.retry === true)
    } catch (err) {
      if ((err as { coordinatorGone?: boolean } | undefined)?.coordinatorGone)
        return fallback(local, address, signal, options)
      throw err
    }
  }
  return {
    async acquire(signal, acquireOptions = {}) {
      // A judge whose calls the coordinator can make (`remoteCalls`): the permit travels with the call.
      if (options.remoteCalls && remoteJudgeCaller()) {
        if (signal?.aborted) throw signal.reason
        const permit = new AttemptPermit({ pool, limit: local.max, retry: acquireOptions.retry === true }, (s) =>
          acquireNow(s, acquireOptions),
        )
        return Object.assign((outcome: LimiterOutcome) => permit.release(outcome), { deferred: permit })
      }
      return acquireNow(signal, acquireOptions)
    },
  }
}

function fallback(
  local: AdaptiveLimiter,
  address: string,
  signal: AbortSignal | undefined,
  options: { retry?: boolean },
): Promise<LimiterRelease> {
  noteOnce(
    `gone:${address}`,
    `run coordinator at ${address} is unreachable; judge concurrency ${local.max} now applies per process`,
  )
  return local.acquire(signal, options)
}

/** A remote call's answer when the coordinator went away mid-call: retried like a reset connection. */
function coordinatorLost(ctx: RemoteCall['ctx']): WireJudgeError {
  return {
    name: 'JudgeServiceError',
    message: `${ctx.provider}:${ctx.model}: the run coordinator making this judge call went away (ECONNRESET); it is retried from this process`,
    provider: ctx.provider,
    model: ctx.model,
    retryable: true,
    cause: { name: 'Error', message: 'coordinator connection closed', code: 'ECONNRESET' },
  }
}

// Checked by a flag, not instanceof: isolated test modules may each load their own copy of this file.
class CoordinatorGoneError extends Error {
  readonly coordinatorGone = true
}

interface Pending {
  resolve: (release: LimiterRelease) => void
  reject: (err: unknown) => void
}

interface PendingCall {
  ctx: RemoteCall['ctx']
  /** The attempt's reply progress, kept up to date from the coordinator's `progress` lines. */
  progress?: ReplyProgress
  resolve: (result: RemoteResult | undefined) => void
  /** The coordinator granted the permit the call carried. */
  onGrant?: () => void
}

/** One connection per process and address, shared by every judge (and every isolated module copy). */
class CoordinatorClient {
  dead = false
  /** The coordinator turned a call down (wrong token, no judge host): calls stay in this process. */
  refused = false
  private socket: Socket | undefined
  private connecting: Promise<Socket> | undefined
  private nextId = 1
  private readonly pending = new Map<number, Pending>()
  private readonly calls = new Map<number, PendingCall>()
  private held = 0

  constructor(private readonly address: string) {}

  async acquire(pool: string, limit: number, signal: AbortSignal | undefined, retry: boolean): Promise<LimiterRelease> {
    if (signal?.aborted) throw signal.reason
    const socket = await this.connect()
    // The caller may have given up while we connected.
    if (signal?.aborted) throw signal.reason
    const id = this.nextId++
    return new Promise<LimiterRelease>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return
        this.send({ t: 'cancel', id })
        this.refresh()
        reject(signal!.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pending.set(id, {
        resolve: (release) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(release)
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort)
          reject(err)
        },
      })
      this.refresh()
      socket.write(`${JSON.stringify({ t: 'acq', id, pool, limit, retry } satisfies CoordinatorMessage)}\n`)
    })
  }

  /** Sends one judge call; `undefined` (make it here) when the coordinator cannot take it. */
  async call(
    call: RemoteCall,
    token: string,
    signal: AbortSignal | undefined,
    permit?: CarriedPermit,
  ): Promise<RemoteResult | undefined> {
    if (signal?.aborted) throw remoteAbortError()
    let socket: Socket
    try {
      socket = await this.connect()
    } catch {
      return undefined
    }
    if (signal?.aborted) throw remoteAbortError()
    const id = this.nextId++
    const message: CoordinatorMessage = { t: 'call', id, token, call, ...(permit ? { permit: permit.request } : {}) }
    const line = `${JSON.stringify(message)}\n`
    if (line.length > MAX_REMOTE_LINE) return undefined
    return new Promise<RemoteResult | undefined>((resolve, reject) => {
      // Rejected at once, as the SDK would: the coordinator is told to drop the request.
      const onAbort = () => {
        if (!this.calls.delete(id)) return
        this.send({ t: 'cancel', id })
        this.refresh()
        reject(remoteAbortError())
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.calls.set(id, {
        ctx: call.ctx,
        progress: replyProgressOf(signal),
        onGrant: permit?.onGrant,
        resolve: (result) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(result)
        },
      })
      this.refresh()
      socket.write(line)
    })
  }

  warm(token: string): void {
    this.connect().then(
      (socket) => socket.write(`${JSON.stringify({ t: 'warm', id: 0, token } satisfies CoordinatorMessage)}\n`),
      () => {},
    )
  }

  private connect(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket)
    if (this.dead) return Promise.reject(new CoordinatorGoneError())
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const colon = this.address.lastIndexOf(':')
      const host = this.address.slice(0, colon)
      const port = Number(this.address.slice(colon + 1))
      if (colon < 0 || !Number.isInteger(port) || port < 1) {
        this.dead = true
        return reject(new CoordinatorGoneError(`bad coordinator address "${this.address}"`))
      }
      const socket = connect({ host, port })
      socket.setNoDelay(true)
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), 2_000)
      socket.once('connect', () => {
        clearTimeout(timer)
        this.socket = socket
        this.refresh()
        resolve(socket)
      })
      socket.on('error', () => {})
      socket.once('close', () => {
        clearTimeout(timer)
        this.gone()
        reject(new CoordinatorGoneError())
      })
      readLines(socket, (msg) => {
        if (msg.t === 'done') return this.answered(msg.id, msg.result)
        if (msg.t === 'progress') return this.progressed(msg)
        if (msg.t !== 'grant') return
        const waiter = this.pending.get(msg.id)
        if (!waiter) {
          // The grant of a permit a call carried: the call is being made now.
          const call = this.calls.get(msg.id)
          if (call) return call.onGrant?.()
          return this.send({ t: 'rel', id: msg.id, outcome: 'error' })
        }
        this.pending.delete(msg.id)
        this.held++
        this.refresh()
        let released = false
        waiter.resolve((outcome: LimiterOutcome) => {
          if (released) return
          released = true
          this.held--
          this.send({ t: 'rel', id: msg.id, outcome })
          this.refresh()
        })
      })
    })
    return this.connecting
  }

  /** A slow reply's progress, as the coordinator saw it: times are taken as ages, this process's clock. */
  private progressed(msg: Extract<CoordinatorMessage, { t: 'progress' }>): void {
    const progress = this.calls.get(msg.id)?.progress
    if (!progress || typeof msg.status !== 'number' || typeof msg.bytes !== 'number') return
    const now = Date.now()
    progress.status = msg.status
    progress.bytes = msg.bytes
    progress.headersAt = now - (Number(msg.sinceMs) || 0)
    if (typeof msg.idleMs === 'number') progress.lastByteAt = now - msg.idleMs
  }

  private answered(id: number, result: RemoteResult): void {
    const waiter = this.calls.get(id)
    if (!waiter) return
    this.calls.delete(id)
    if (result && !result.ok && 'refused' in result) {
      this.refused = true
      waiter.resolve(undefined)
    } else waiter.resolve(result)
    this.refresh()
  }

  /** The coordinator closed: everything waiting falls back to the local limiter. */
  private gone(): void {
    this.dead = true
    this.socket = undefined
    for (const waiter of this.pending.values()) waiter.reject(new CoordinatorGoneError())
    this.pending.clear()
    // A call in flight may or may not have reached the judge: it fails as a lost connection, and is retried.
    for (const waiter of this.calls.values()) waiter.resolve({ ok: false, error: coordinatorLost(waiter.ctx) })
    this.calls.clear()
  }

  private send(msg: CoordinatorMessage): void {
    if (this.socket && !this.socket.destroyed) this.socket.write(`${JSON.stringify(msg)}\n`)
  }

  /** Keeps the process alive only while a permit is awaited or held (a script must not exit mid-call, nor hang after). */
  private refresh(): void {
    if (!this.socket) return
    if (this.pending.size > 0 || this.held > 0 || this.calls.size > 0) this.socket.ref()
    else this.socket.unref()
  }
}

function clientFor(address: string): CoordinatorClient {
  const clients = (store[CLIENTS_KEY] ??= new Map<string, CoordinatorClient>()) as Map<string, CoordinatorClient>
  let client = clients.get(address)
  if (!client) {
    client = new CoordinatorClient(address)
    clients.set(address, client)
  }
  return client
}
