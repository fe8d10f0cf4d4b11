import { setMaxListeners } from 'node:events'

/** Work started through an {@link abortGroup}: one shared signal, one first error. */
export interface AbortGroup {
  /** Aborts when the parent signal does or when any task of the group rejects. */
  readonly signal: AbortSignal
  /** Starts `task` with the group's signal; its rejection aborts every other task of the group. */
  run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T>
  /** Waits until every task has settled, then throws the first rejection (if any). */
  settle(): Promise<void>
}

/**
 * Judge calls that stand or fall together (the spans and the agent pass of one diagnosis): the first
 * rejection aborts the rest, and `settle` returns only when every task has stopped, so the caller never
 * sees a rejection while calls of the same work are still queued, retrying or being sent.
 *
 * @example
 * const group = abortGroup(options.signal)
 * const results = spans.map((span) => group.run((signal) => judgeSpan(span, { ...ctx, signal })))
 * await group.settle() // throws the first error, after the other spans stopped
 * return Promise.all(results)
 */
export function abortGroup(parent?: AbortSignal): AbortGroup {
  const controller = new AbortController()
  // One signal for every call of the group by design (a diagnosis queues one call per span, each
  // listening while it waits for a permit): not a leak, so no MaxListenersExceededWarning past 10.
  setMaxListeners(0, controller.signal)
  const onAbort = () => controller.abort(parent!.reason)
  if (parent?.aborted) controller.abort(parent.reason)
  else parent?.addEventListener('abort', onAbort, { once: true })
  const tracked: Promise<unknown>[] = []
  let first: { error: unknown } | undefined
  return {
    signal: controller.signal,
    run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
      let started: Promise<T>
      try {
        started = task(controller.signal) // at once, so the task hears an abort that comes right after
      } catch (error) {
        started = Promise.reject(error)
      }
      const running = started.catch((error: unknown) => {
        if (!first) {
          first = { error }
          controller.abort(error)
        }
        throw error
      })
      // Handled here, so a task the caller never awaits (the group rejected first) is no unhandled rejection.
      tracked.push(running.catch(() => {}))
      return running
    },
    async settle(): Promise<void> {
      try {
        // Tasks started while waiting are waited for too.
        for (let seen = 0; seen < tracked.length; ) {
          const batch = tracked.slice(seen)
          seen = tracked.length
          await Promise.all(batch)
        }
      } finally {
        parent?.removeEventListener('abort', onAbort)
      }
      if (first) throw first.error
    },
  }
}
