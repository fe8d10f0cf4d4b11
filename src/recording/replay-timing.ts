// How long each replayed agent call took when it was recorded, for whoever rebuilds a replayed run's timings (the
// trace capture of issue 32 item 7). The recording layer reports; listeners subscribe. No import of either side.

/** One replayed call: its URL (as recorded, scrubbed) and how long it took when recorded, to the end of its body. */
export interface ReplayedCall {
  url: string
  recordedMs: number
}
/** Told of every replayed call, synchronously, in the async context of the request. */
export type ReplayedCallListener = (call: ReplayedCall) => void

const listeners = new Set<ReplayedCallListener>()

/**
 * Subscribe to replayed calls; returns an unsubscribe function. Listeners run synchronously in the async context of the request.
 *
 * @example
 * const stop = onReplayedCall(({ url, recordedMs }) => console.log(url, recordedMs))
 * stop()
 */
export function onReplayedCall(listener: ReplayedCallListener): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

/**
 * Called by the recording layer for every replayed call. A throwing listener never breaks the replay.
 *
 * @example
 * noteReplayedCall({ url: 'http://127.0.0.1:4010/v1/chat/completions', recordedMs: 812 })
 */
export function noteReplayedCall(call: ReplayedCall): void {
  for (const listener of listeners) {
    try {
      listener(call)
    } catch {
      // A consumer's bug must not turn a replayed answer into a failed request.
    }
  }
}
