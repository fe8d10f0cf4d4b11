// What a wait for a received trace asks for (`where`, `timeout`, `signal`), how a trace is matched against
// it, and the errors a wait ends with.
import type { Trace } from '../trace'

/**
 * Which trace `receiver.trace()` waits for: fields that must all match, or a predicate over the
 * complete trace.
 */
export type TraceWhere =
  | {
      /** The trace with this id (hex); it is returned even if an earlier call returned it already. */
      traceId?: string
      /**
       * The name of the trace's root span (exact, or a RegExp). A span with this name whose parent is not in
       * the trace counts as the root, so a trace whose real root lives in another process (the test
       * propagated its context to the agent) still completes.
       */
      rootName?: string | RegExp
    }
  | ((trace: Trace) => boolean)

export interface TraceWaitOptions {
  /** Which trace; by default the first complete trace no earlier call returned. */
  where?: TraceWhere
  /** Milliseconds to wait before rejecting with a {@link TraceReceiverTimeoutError}; default 10 000. */
  timeout?: number
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal
}

/**
 * No complete trace matching the request arrived in time; the message lists what did arrive and why each
 * trace is not complete, the last refused request, and what to check.
 *
 * @example
 * const trace = await receiver.trace({ timeout: 5000 }).catch((err) => {
 *   if (err instanceof TraceReceiverTimeoutError) console.error(err.message) // "no complete trace arrived within 5000 ms; …"
 *   throw err
 * })
 */
export class TraceReceiverTimeoutError extends Error {
  override readonly name = 'TraceReceiverTimeoutError'
}

/**
 * The receiver was closed while a caller still waited for a trace (or `trace()` was called after `close()`).
 *
 * @example
 * const pending = receiver.trace()
 * await receiver.close()
 * await pending // rejects with TraceReceiverClosedError
 */
export class TraceReceiverClosedError extends Error {
  override readonly name = 'TraceReceiverClosedError'
}

/** True if the name equals the string or matches the RegExp. */
export function nameMatches(name: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? name === pattern : pattern.test(name)
}

export function matches(trace: Trace, where: TraceWhere | undefined): boolean {
  if (where === undefined) return true
  if (typeof where === 'function') return where(trace)
  const { rootName } = where
  return rootName === undefined || trace.roots.some((r) => nameMatches(r.name, rootName))
}

export function describeWhere(where: TraceWhere | undefined): string {
  if (where === undefined) return ''
  if (typeof where === 'function') return 'matching the where() predicate '
  const parts: string[] = []
  if (where.traceId !== undefined) parts.push(`with trace id ${where.traceId}`)
  if (where.rootName !== undefined)
    parts.push(`with root span ${typeof where.rootName === 'string' ? `'${where.rootName}'` : String(where.rootName)}`)
  return parts.length ? `${parts.join(' and ')} ` : ''
}
