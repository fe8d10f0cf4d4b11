// Whether a judge's requests may go out through our own transport (src/judges/http-transport.ts), decided
// without loading it: a worker whose calls the run's coordinator makes never needs node:http at all.
import { patchedOnlyByRecordings } from '../config/judge-traffic'

/**
 * False when the process routes fetch through a dispatcher of its own with undici's `setGlobalDispatcher`
 * (a `ProxyAgent`, an `EnvHttpProxyAgent`, a custom class), which only Node's fetch honours. Node's own
 * default dispatcher (an `Agent`, set once fetch has loaded) does not count.
 *
 * @example
 * if (ownTransportUsable()) { const { transportFetch } = await import('./http-transport') }
 */
export function ownTransportUsable(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')]
  return dispatcher === undefined || (dispatcher as object | null)?.constructor?.name === 'Agent'
}

/** Node's own `http.request` / `https.request` start so; a patched one (msw, nock, a user's wrapper) does not. */
const NODE_REQUEST = /^function request\(/

/**
 * True when this process's `http.request` or `https.request` has been replaced (msw, nock, a user's
 * interceptor): the judge's requests must then leave from here, where that interceptor sees them, not from
 * the run's coordinator. A process that never loaded node:http cannot have patched it, and is not made to load it.
 *
 * @example
 * const remote = requestsInterceptedHere() ? undefined : remoteJudgeCaller()
 */
export function requestsInterceptedHere(): boolean {
  const loaded = (process as { moduleLoadList?: string[] }).moduleLoadList
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule
  if (!loaded || typeof getBuiltin !== 'function') return true
  // Agent recordings patch http.request too, but never act on judge calls: alone, they keep nothing local.
  if (patchedOnlyByRecordings()) return false
  for (const id of ['http', 'https']) {
    if (!loaded.includes(`NativeModule ${id}`)) continue
    const request = (getBuiltin(`node:${id}`) as { request?: unknown } | undefined)?.request
    if (typeof request !== 'function' || !NODE_REQUEST.test(Function.prototype.toString.call(request))) return true
  }
  return false
}
