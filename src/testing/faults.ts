// Deterministic fault selection: which request gets which injected failure, and the headers it carries.
import { matchesPrompt, type PromptView } from './request'
import type { FakeJudgeFault } from './schemas'

/** mulberry32: tiny, fast, and the same sequence for the same seed on every platform. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface FaultState {
  fault: FakeJudgeFault
  /** Requests that passed `when` and the window so far. */
  seen: number
  fired: number
  random?: () => number
}

/**
 * Holds the fault list and its counters. Selection happens on arrival, so for a given arrival order the
 * same requests fail every run.
 * @example
 * const selector = new FaultSelector([{ type: 'server-error', times: 2 }])
 * selector.select(view)?.type // 'server-error' for the first two requests, then undefined
 */
export class FaultSelector {
  private states: FaultState[] = []
  private since = Date.now()

  constructor(faults: FakeJudgeFault[] = []) {
    this.set(faults)
  }

  /** Replaces the faults and restarts their counters and the `firstMs` window. */
  set(faults: FakeJudgeFault[]): void {
    this.states = faults.map((fault) => ({
      fault,
      seen: 0,
      fired: 0,
      random: fault.seed !== undefined ? seededRandom(fault.seed) : undefined,
    }))
    this.since = Date.now()
  }

  /** Restarts counters, PRNGs and the `firstMs` window of the current faults. */
  restart(): void {
    this.set(this.states.map((s) => s.fault))
  }

  /** The first fault selected for this request, or undefined to answer normally. */
  select(view: PromptView, now = Date.now()): FakeJudgeFault | undefined {
    for (const state of this.states) {
      const { fault } = state
      if (!matchesPrompt(fault.when, view)) continue
      if (fault.firstMs !== undefined && now - this.since >= fault.firstMs) continue
      if (fault.times !== undefined && state.fired >= fault.times) continue
      state.seen++
      if (!this.draw(state)) continue
      state.fired++
      return fault
    }
    return undefined
  }

  private draw(state: FaultState): boolean {
    const { rate } = state.fault
    if (rate === undefined) return true
    if (state.random) return state.random() < rate
    // Without a seed, spread failures evenly: the n-th request fails when ⌊n·rate⌋ steps up.
    return Math.floor(state.seen * rate + 1e-9) > Math.floor((state.seen - 1) * rate + 1e-9)
  }
}

/** Response headers a fault asks for (`retry-after`, `retry-after-ms`). */
export function faultHeaders(fault: FakeJudgeFault, now = Date.now()): Record<string, string> {
  const headers: Record<string, string> = {}
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter)
  // HTTP-dates have whole seconds: round up so a client never waits less than asked.
  else if (fault.retryAfterDateMs !== undefined)
    headers['retry-after'] = new Date(Math.ceil((now + fault.retryAfterDateMs) / 1000) * 1000).toUTCString()
  else if (fault.type === 'rate-limit' && fault.retryAfterMs === undefined) headers['retry-after'] = '1'
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs)
  return headers
}
