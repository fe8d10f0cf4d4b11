// The seam between the recording layer (which replays the agent's HTTP calls) and trace capture (which makes
// a replayed call's span last as long as the recorded call did): decision 0035. The listeners live on
// globalThis, so an ESM and a CJS copy of the package (or two bundles of it) in one process still meet.

/** One call answered from a recording: its URL and how long the live call took when it was recorded. */
export interface ReplayedCall {
  url: string
  recordedMs: number
}

/** Told of each replayed call, synchronously, in the async context of the request. */
export type ReplayedCallListener = (call: ReplayedCall) => void

const LISTENERS = Symbol.for('agent-verdict.replayed-call-listeners')

function listeners(): Set<ReplayedCallListener> {
  const holder = globalThis as { [LISTENERS]?: Set<ReplayedCallListener> }
  holder[LISTENERS] ??= new Set()
  return holder[LISTENERS]
}

/**
 * Subscribe to replayed calls; returns an unsubscribe function. Listeners run synchronously in the async
 * context of the request.
 *
 * @example
 * const stop = onReplayedCall(({ url, recordedMs }) => console.log(`${url} took ${recordedMs} ms when recorded`))
 * stop()
 */
export function onReplayedCall(listener: ReplayedCallListener): () => void {
  const set = listeners()
  // A wrapper per subscription, so each unsubscribe removes its own subscription only.
  const entry: ReplayedCallListener = (call) => listener(call)
  set.add(entry)
  return () => {
    set.delete(entry)
  }
}

/**
 * Called by the recording layer for every replayed call. A throwing listener never breaks the replay.
 *
 * @example
 * noteReplayedCall({ url: 'https://api.openai.com/v1/chat/completions', recordedMs: 1480 })
 */
export function noteReplayedCall(call: ReplayedCall): void {
  for (const listener of [...listeners()]) {
    try {
      listener(call)
    } catch {
      // Timing is a nicety of the trace: the agent's replayed answer must reach it whatever a listener does.
    }
  }
}
