// Which test and matcher a judge call belongs to, for labelling cassette entries. Carried by
// AsyncLocalStorage so the judge interface stays as it is: metrics and diagnosis never see it.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { CassetteVerdict } from './store'

/** One entry recorded inside a scope, waiting for the matcher's verdicts. */
export interface RecordedCall {
  key: string
  /** The span the call judged (its real id), to pick that span's verdicts. */
  spanId?: string
  /** Writes the verdicts and the judged excerpt into the entry. */
  annotate(labels: { verdicts: CassetteVerdict[]; judged?: string }): Promise<void>
}

/** One entry replayed inside a scope, with the verdicts its file says the matcher made of it. */
export interface ReplayedCall {
  key: string
  file: string
  /** The span the call judged (its real id), to pick that span's verdicts. */
  spanId?: string
  /** The entry's name line, for messages: test, matcher, span, metric. */
  where: string
  /** The entry's readable verdict lines (absent in entries recorded outside a matcher, or by format 1). */
  verdicts: CassetteVerdict[]
}

/** A matcher call in progress. */
export interface CassetteScope {
  /** Full test name (`describe › test`). */
  test?: string
  /** Which run of the test (a retry or repeat): identical calls are numbered per test and attempt. */
  attempt?: string
  matcher?: string
  /** Entries recorded by this matcher call so far. */
  readonly recorded: RecordedCall[]
  /** Entries replayed by this matcher call so far, to check against the verdicts the matcher makes again. */
  readonly replayed: ReplayedCall[]
}

const storage = new AsyncLocalStorage<CassetteScope>()

/**
 * Runs `fn` with judge calls labelled by test and matcher: entries they record are named so, and
 * replay misses say which test needs recording.
 *
 * @example
 * return runInCassetteScope({ test: 'refund › is correct', matcher: 'toBeCorrect' }, () => evaluate())
 */
export function runInCassetteScope<T>(labels: { test?: string; attempt?: string; matcher?: string }, fn: () => T): T {
  return storage.run({ ...labels, recorded: [], replayed: [] }, fn)
}

/**
 * The scope of the running matcher call, if any.
 *
 * @example
 * currentCassetteScope()?.test // 'refund › is correct'
 */
export function currentCassetteScope(): CassetteScope | undefined {
  return storage.getStore()
}
