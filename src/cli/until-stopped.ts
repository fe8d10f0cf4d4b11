// How the serving commands (`fake-judge`, `receive`) end: on SIGINT, SIGTERM or the caller's signal.

/**
 * Resolves with what stopped the command (`'SIGINT'`, `'SIGTERM'` or `'abort'`), then stops listening.
 *
 * @example
 * const why = await untilStopped(io.signal) // serve until Ctrl-C, `kill`, or the test aborts
 */
export function untilStopped(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const finish = (why: string) => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      signal?.removeEventListener('abort', onAbort)
      resolve(why)
    }
    const onInt = () => finish('SIGINT')
    const onTerm = () => finish('SIGTERM')
    const onAbort = () => finish('abort')
    process.once('SIGINT', onInt)
    process.once('SIGTERM', onTerm)
    if (signal?.aborted) return finish('abort')
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
