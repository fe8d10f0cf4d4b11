// How our interceptors live beside a user's msw in one process. Both use @mswjs/interceptors, which keeps one running
// instance per kind (a global mark, `Symbol.for('fetch-interceptor')`): the first applied patches `fetch` or
// `http.request` and owns the listeners; one applied later only adds its listeners to the running one. The library's
// dispose assumes one user per kind, so beside msw (whose interceptors are module singletons, reused by every
// `setupServer`) we keep the marks, the listener order and the patches right ourselves, in any start and close order.
import { syncBuiltinESMExports } from 'node:module'

/** The parts of an interceptor instance this file uses (the library's own fields). */
export interface SharedInterceptor {
  apply(): void
  dispose(): void
  on(event: string, listener: (...args: never[]) => unknown): unknown
  emitter: Emitter
}

type Emitter = {
  addListener(event: string, listener: unknown): unknown
  removeAllListeners(...args: unknown[]): unknown
  removeListener(event: string, listener: unknown): unknown
  listeners(event: string): unknown[]
  listenerCount(event: string): number
}

const marks = globalThis as Record<symbol, SharedInterceptor | undefined>
const symbolOf = (interceptor: object) => (interceptor.constructor as unknown as { symbol: symbol }).symbol

/**
 * Applies an interceptor from `create` (or joins the running instance of its kind) with our `request` listener kept
 * last, so a user's msw handler answers first whichever started first. Returns how to leave.
 *
 * @example
 * const joined = joinInterceptor(() => new FetchInterceptor(), { request: onRequest, response: onResponse })
 * joined.leave()
 */
export function joinInterceptor(
  create: () => SharedInterceptor,
  listeners: { request: (...args: never[]) => unknown; response: (...args: never[]) => unknown },
): { leave(): void } {
  let leaveCurrent = attach()
  function attach(): () => void {
    const interceptor = create()
    interceptor.apply()
    syncNamedImports()
    const symbol = symbolOf(interceptor)
    const running = marks[symbol]
    const owned = running === interceptor
    interceptor.on('request', listeners.request)
    const undoLast = keepLast(running?.emitter, listeners.request)
    interceptor.on('response', listeners.response)
    // Ran on a user's msw: when it closes (its dispose drops every listener, ours too, and restores its patches),
    // apply our own, or the rest of the file would go unrecorded.
    const undoWatch = owned || !running ? () => {} : onCleared(running.emitter, () => (leaveCurrent = attach()))
    return () => {
      undoWatch()
      undoLast()
      const emitter = interceptor.emitter
      if (owned) {
        emitter.removeListener('request', listeners.request)
        emitter.removeListener('response', listeners.response)
        // A msw started after us runs on our patches: they stay until it closes, then go.
        if (emitter.listenerCount('request') > 0) return disposeWhenAlone(interceptor, symbol)
      }
      dispose(interceptor, symbol)
    }
  }
  return { leave: () => leaveCurrent() }
}

/** Calls `then` once after `emitter` drops all its listeners (a disposing interceptor does). Returns the undo. */
function onCleared(emitter: Emitter, then: () => void): () => void {
  const own = Object.hasOwn(emitter, 'removeAllListeners')
  const clear = emitter.removeAllListeners
  const undo = () => {
    if (own) emitter.removeAllListeners = clear
    else delete (emitter as Partial<Emitter>).removeAllListeners
  }
  emitter.removeAllListeners = function (this: Emitter, ...args: unknown[]) {
    const result = clear.apply(this, args)
    undo()
    then()
    return result
  }
  return undo
}

/** True when the running instances of these interceptor kinds carry one request listener each: ours. */
export function onlyListener(kinds: Array<{ symbol: symbol }>): boolean {
  return kinds.every((kind) => marks[kind.symbol]?.emitter.listenerCount('request') === 1)
}

function dispose(interceptor: SharedInterceptor, symbol: symbol): void {
  // The library's dispose clears the global mark whoever runs, and does nothing when the mark is gone. So: a msw
  // that ran on ours and closed first cleared our mark (put it back, or our patches would stay); and disposing our
  // listener-only instance must not take the mark of the msw it ran on (put theirs back, or msw would never
  // restore its patches).
  const running = marks[symbol]
  if (running === undefined) marks[symbol] = interceptor
  interceptor.dispose()
  syncNamedImports()
  if (running !== undefined && running !== interceptor) marks[symbol] = running
  if (running === undefined || running === interceptor) forwardLateListeners(interceptor.emitter, symbol)
}

/**
 * The interceptors patch `http.request`, `https.get`, … on the modules' objects; an ES module's named import of a
 * built-in (`import { request } from 'node:http'`) is a binding Node only refreshes on `syncBuiltinESMExports`. So
 * after every patch and restore: agents that import `request` by name are recorded too, and get Node's own back.
 */
function syncNamedImports(): void {
  syncBuiltinESMExports()
}

/** Disposes our running instance once the last listener of another (a user's msw) has left it. */
function disposeWhenAlone(interceptor: SharedInterceptor, symbol: symbol): void {
  const emitter = interceptor.emitter
  const own = Object.hasOwn(emitter, 'removeListener')
  const remove = emitter.removeListener
  emitter.removeListener = function (this: Emitter, event: string, listener: unknown) {
    const result = remove.call(this, event, listener)
    if (this.listenerCount('request') === 0) {
      if (own) emitter.removeListener = remove
      else delete (emitter as Partial<Emitter>).removeListener
      dispose(interceptor, symbol)
    }
    return result
  }
}

/**
 * Keeps `ours` the last request listener of the running instance: listeners run in order, so a handler of a user's
 * msw answers before we replay, and its mocked response is left alone. Returns the undo.
 */
function keepLast(emitter: Emitter | undefined, ours: unknown): () => void {
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

/**
 * A disposed instance of ours that others ran on keeps sending their listeners to whichever instance runs now.
 * An interceptor that once ran on ours (msw's singletons) keeps an `on` of its own bound to our instance after it
 * is disposed; applied again later as the running instance, it would add its listeners to our dead emitter and
 * answer nothing (issue 32: a user's msw missed the first request after an earlier msw closed beside a recording).
 */
function forwardLateListeners(emitter: Emitter, symbol: symbol): void {
  const sentTo = new Map<string, Map<unknown, Emitter>>()
  emitter.addListener = (event: string, listener: unknown) => {
    const running = marks[symbol]?.emitter
    if (running && running !== emitter) {
      running.addListener(event, listener)
      if (!sentTo.has(event)) sentTo.set(event, new Map())
      sentTo.get(event)?.set(listener, running)
    }
    return emitter
  }
  emitter.removeListener = (event: string, listener: unknown) => {
    sentTo.get(event)?.get(listener)?.removeListener(event, listener)
    sentTo.get(event)?.delete(listener)
    return emitter
  }
}
