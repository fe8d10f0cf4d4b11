// The agent's HTTP calls, seen where every SDK sends them: @mswjs/interceptors' ClientRequest interceptor
// (node:http and node:https: the AWS SDK, axios, LangChain's node clients) and its Fetch interceptor (fetch/undici:
// openai, @anthropic-ai/sdk, the Vercel AI SDK). The same library msw 2 runs on: with a user's `setupServer` started
// first, its handlers answer first and a mocked response is neither replayed nor recorded.
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import { isJudgeTraffic, setRecordingPatchProbe } from '../config/judge-traffic'
import type { RecordedCall } from './format'
import { noteReplayedCall } from './replay-timing'
import { registerHeaderCredentials, type StoredRequest, storedRequestBody, storedUrl } from './request'
import { decodeContent, keptHeaders, replayResponse, storedResponseBody } from './response-body'
import type { RecordingSession } from './session'
import { summarize } from './summary'

/** The test a request belongs to, as the runner integration tells it, and that test file's recording. */
export interface RequestOwner {
  session: RecordingSession
  test: string
  attempt: string
  /** Whether this host's calls are recorded (the `hosts` / `skipHosts` options). */
  records(url: URL): boolean
}

type Resolve = () => RequestOwner | undefined

interface Pending {
  save: (call: RecordedCall) => Promise<void>
  forget: () => void
  track: (reading: Promise<unknown>) => void
  request: StoredRequest
  started: number
}

const PENDING = 0 // RequestController.PENDING: nobody (a user's msw handler) has answered yet
let applied: { dispose(): void } | undefined
let resolveOwner: Resolve = () => undefined
const pending = new Map<string, Pending>()

/**
 * Starts intercepting this process's HTTP requests (idempotent); `owner` names the test a request belongs to, or
 * `undefined` for requests outside any recorded test, which go out untouched.
 *
 * @example
 * startIntercepting(() => ({ session, test: 'refund › answers', attempt: '0.0', records: () => true }))
 */
export function startIntercepting(owner: Resolve): void {
  resolveOwner = owner
  if (applied) return
  const interceptors = [
    { interceptor: new ClientRequestInterceptor(), encoded: true },
    // fetch hands the response over already decoded (its content-encoding header notwithstanding).
    { interceptor: new FetchInterceptor(), encoded: false },
  ]
  const restores: Array<() => void> = []
  const owned = new Set<object>()
  for (const { interceptor, encoded } of interceptors) {
    interceptor.apply()
    if ((globalThis as Record<symbol, unknown>)[symbolOf(interceptor)] === interceptor) owned.add(interceptor)
    const listener = ({
      request,
      requestId,
      controller,
    }: {
      request: Request
      requestId: string
      controller: unknown
    }) => onRequest(request, requestId, controller as Controller)
    interceptor.on('request', listener)
    restores.push(keepLast(interceptor, listener))
    interceptor.on('response', ({ response, requestId, isMockedResponse }) => {
      const entry = pending.get(requestId)
      pending.delete(requestId)
      if (!entry) return
      if (isMockedResponse) return entry.forget()
      // Read beside the caller, never in its way: the caller streams its own copy as it arrives.
      entry.track(capture(entry, response, encoded))
    })
  }
  setRecordingPatchProbe(() => onlyOurs(interceptors.map((i) => i.interceptor)))
  applied = {
    dispose() {
      for (const restore of restores) restore()
      for (const { interceptor } of interceptors) {
        // Disposing a listener-only copy clears the running instance's global mark too (the library's way): a
        // user's msw that runs it would then never restore its patches. Put the mark back.
        // The same the other way round: a user's msw that ran on ours and was closed first cleared our mark, and
        // dispose would then leave our patches in place.
        const global = globalThis as Record<symbol, unknown>
        const symbol = symbolOf(interceptor)
        const running = global[symbol]
        if (running === undefined && owned.has(interceptor)) global[symbol] = interceptor
        interceptor.dispose()
        if (running !== undefined && running !== interceptor) global[symbol] = running
      }
      setRecordingPatchProbe(undefined)
    },
  }
}

/**
 * Stops intercepting (the end of a test file): the patches go, and a user's msw started later owns its own again.
 *
 * @example
 * stopIntercepting()
 */
export function stopIntercepting(): void {
  applied?.dispose()
  applied = undefined
  resolveOwner = () => undefined
  pending.clear()
}

type Emitter = {
  addListener(event: string, listener: unknown): unknown
  removeListener(event: string, listener: unknown): unknown
  listeners(event: string): unknown[]
  listenerCount(event: string): number
}
const symbolOf = (interceptor: object) => (interceptor.constructor as unknown as { symbol: symbol }).symbol
const runningEmitter = (interceptor: object) =>
  (globalThis as Record<symbol, { emitter?: Emitter } | undefined>)[symbolOf(interceptor)]?.emitter

/**
 * Keeps our request listener last on the running interceptor instance, shared with a user's msw whichever started
 * first: listeners run in order, so a handler of theirs answers before we replay, and its mocked response is left
 * alone. Returns the undo.
 */
function keepLast(interceptor: object, ours: unknown): () => void {
  const emitter = runningEmitter(interceptor)
  if (!emitter) return () => {}
  const own = Object.hasOwn(emitter, 'addListener')
  const add = emitter.addListener
  emitter.addListener = function (this: Emitter, event: string, listener: unknown) {
    const result = add.call(this, event, listener)
    if (event === 'request' && listener !== ours && this.listeners('request').includes(ours)) {
      this.removeListener('request', ours)
      add.call(this, 'request', ours)
    }
    return result
  }
  return () => {
    if (own) emitter.addListener = add
    else delete (emitter as Partial<Emitter>).addListener
  }
}

/** True when the running interceptor instances carry our listeners only (no msw, no other interceptor). */
function onlyOurs(ours: Array<ClientRequestInterceptor | FetchInterceptor>): boolean {
  return ours.every((mine) => runningEmitter(mine)?.listenerCount('request') === 1)
}

interface Controller {
  readyState: number
  respondWith(response: Response): void
  errorWith(reason?: unknown): void
}

async function onRequest(request: Request, requestId: string, controller: Controller): Promise<void> {
  // A judge call is a verdict (the verdict cassette keeps it); a request another handler answered is not ours.
  if (isJudgeTraffic() || controller.readyState !== PENDING) return
  const owner = resolveOwner()
  if (!owner) return
  const url = new URL(request.url)
  if (!owner.records(url)) return
  registerHeaderCredentials(request.headers)
  const bytes = new Uint8Array(await request.clone().arrayBuffer())
  const body = storedRequestBody(bytes, request.headers.get('content-type') ?? '')
  const stored: StoredRequest = { method: request.method, url: storedUrl(request.url), ...(body ? { body } : {}) }
  const started = performance.now()
  const decision = await owner.session.decide(owner, stored)
  if (controller.readyState !== PENDING) return
  if (decision.kind === 'replay') {
    noteReplayedCall({ url: stored.url, recordedMs: decision.call.durationMs })
    controller.respondWith(replayResponse(decision.call.response))
  } else if (decision.kind === 'miss') {
    controller.errorWith(decision.error)
  } else {
    const { save, forget, track } = decision
    pending.set(requestId, { save, forget, track, request: stored, started })
  }
}

async function capture(entry: Pending, response: Response, encoded: boolean): Promise<void> {
  try {
    const raw = Buffer.from(await response.arrayBuffer())
    const durationMs = Math.round(performance.now() - entry.started)
    const bytes = encoded ? decodeContent(raw, response.headers.get('content-encoding')) : raw
    const body = storedResponseBody(bytes, response.headers.get('content-type') ?? '')
    const summary = summarize(entry.request.url, entry.request.body, body)
    await entry.save({
      ...(summary ? { summary } : {}),
      request: entry.request,
      response: {
        status: response.status,
        ...(response.statusText ? { statusText: response.statusText } : {}),
        headers: keptHeaders(response.headers),
        ...(body ? { body } : {}),
      },
      durationMs,
    })
  } catch {
    // The caller's own copy failed too (a reset connection): there is no answer to record.
    entry.forget()
  }
}
