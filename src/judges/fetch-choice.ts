// Whether a judge's requests may go out through our own transport (src/judges/http-transport.ts), decided
// without loading it: a worker whose calls the run's coordinator makes never needs node:http at all.

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
