// The agent's HTTP calls, seen where every SDK sends them: @mswjs/interceptors' ClientRequest interceptor
// (node:http and node:https: the AWS SDK's NodeHttpHandler, axios, LangChain's node clients), its Fetch interceptor
// (fetch/undici: openai, @anthropic-ai/sdk, the Vercel AI SDK) and our own node:http2 patch (http2.ts: the AWS SDK's
// default NodeHttp2Handler). The library is the one msw 2 runs on: with a user's `setupServer` started first, its
// handlers answer first and a mocked response is neither replayed nor recorded.
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest'
import { FetchInterceptor } from '@mswjs/interceptors/fetch'
import http from 'node:http'
import https from 'node:https'
import { isJudgeTraffic, setRecordingPatchProbe, type UnpatchedTransport } from '../config/judge-traffic'
import type { RecordedCall } from './format'
import { noteReplayedCall } from './replay-timing'
import { registerHeaderCredentials, type StoredRequest, storedRequestBody, storedUrl } from './request'
import { patchHttp2, unpatchHttp2 } from './http2'
import { recordedCall } from './recorded-call'
import { replayResponse } from './response-body'
import type { RecordingSession } from './session'
import { joinInterceptor, onlyListener, type SharedInterceptor } from './beside-msw'

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
  // Read before the patch, for judge calls to go around it (src/config/judge-traffic.ts).
  const natives = nodeTransport()
  const interceptors = [
    { create: () => new ClientRequestInterceptor(), encoded: true },
    // fetch hands the response over already decoded (its content-encoding header notwithstanding).
    { create: () => new FetchInterceptor(), encoded: false },
  ]
  const joined = interceptors.map(({ create, encoded }) =>
    joinInterceptor(create as unknown as () => SharedInterceptor, {
      request: ({ request, requestId, controller }: { request: Request; requestId: string; controller: unknown }) =>
        onRequest(request, requestId, controller as Controller),
      response: ({
        response,
        requestId,
        isMockedResponse,
      }: {
        response: Response
        requestId: string
        isMockedResponse: boolean
      }) => {
        const entry = pending.get(requestId)
        pending.delete(requestId)
        if (!entry) return
        if (isMockedResponse) return entry.forget()
        // Read beside the caller, never in its way: the caller streams its own copy as it arrives.
        entry.track(capture(entry, response, encoded))
      },
    }),
  )
  const kinds = [ClientRequestInterceptor, FetchInterceptor]
  setRecordingPatchProbe(() => onlyListener(kinds), natives)
  // HTTP/2 has no interceptor in the library: node:http2 sessions are patched here (http2.ts).
  patchHttp2(() => resolveOwner())
  applied = {
    dispose() {
      for (const join of joined) join.leave()
      unpatchHttp2()
      setRecordingPatchProbe(undefined)
    },
  }
}

/** Node's request functions as they are now, if nothing (a user's msw or nock) has patched them already. */
function nodeTransport(): UnpatchedTransport | undefined {
  const own = (fn: unknown, name: RegExp) => typeof fn === 'function' && name.test(Function.prototype.toString.call(fn))
  if (!own(http.request, /^function request\(/) || !own(https.request, /^function request\(/)) return undefined
  const fetch = own(globalThis.fetch, /^(async )?function fetch\(/) ? globalThis.fetch : undefined
  return { 'http:': http.request, 'https:': https.request, ...(fetch ? { fetch } : {}) }
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
    await entry.save(
      recordedCall(entry.request, entry.started, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        raw,
        encoded,
      }),
    )
  } catch {
    // The caller's own copy failed too (a reset connection): there is no answer to record.
    entry.forget()
  }
}
