// The un-awaited guard: every async matcher call is tracked until it settles, so the runner entry can fail
// a test that forgot to `await` one (decision 0007) instead of losing its verdict or crashing the worker.
import { runInCassetteScope } from '../src/cassette/scope'
import { callSiteOf, userFrames } from './call-site'
import type { MatcherContext, MatcherResult } from './context'
import { runnerHooks, testKeyOf, testNameOf } from './runtime'

interface TrackedCall {
  name: string
  /** Set when the test finished first: nobody awaits this call any more. */
  abandoned: boolean
  /** The failure it would have reported, kept for the guard's message. */
  failure?: string
  /** Where the test called it: the guard's error points there, not into the hook that found it. */
  site?: string
}

/** An un-awaited matcher call found after its test returned, what it would have failed with, and where it was made. */
export interface UnawaitedCall {
  name: string
  failure?: string
  site?: string
}

const pending = new Map<unknown, Map<Promise<unknown>, TrackedCall>>()

/**
 * Runs a matcher call and remembers it until it settles, so the runner entry can tell one the test
 * forgot to await. A call that outlives its test answers "pass" for its polarity instead of
 * failing: nobody could catch that rejection any more (Jest would crash on it), so the guard reports
 * the failure on the test instead.
 *
 * @example
 * return track(this, 'toBeCorrect', () => evaluate())
 */
export function track<T extends MatcherResult>(ctx: MatcherContext, name: string, start: () => Promise<T>): Promise<T> {
  const key = testKeyOf(ctx)
  const call: TrackedCall = { name, abandoned: false, site: callSiteOf(ctx) }
  const neutral = (result: T | undefined): T => ({
    ...(result as T),
    pass: ctx.isNot !== true,
    message: result?.message ?? (() => ''),
  })
  let calls = pending.get(key)
  if (!calls) pending.set(key, (calls = new Map()))
  const entry = calls
  let promise: Promise<T> | undefined
  let settled = false
  const forget = () => {
    settled = true
    if (promise) entry.delete(promise)
    if (entry.size === 0 && pending.get(key) === entry) pending.delete(key)
  }
  // Judge calls inside know their test and matcher: cassette entries are named by them.
  // Awaited, and no second `.then` on the returned promise: V8's async stack then reaches the test's
  // `expect(…)` line, where Vitest places the verdict's annotation (decision 0026).
  const settle = async (): Promise<T> => {
    try {
      let result: T
      try {
        result = await runInCassetteScope(
          {
            test: testNameOf(ctx),
            attempt: runnerHooks()?.attemptOf?.(ctx),
            matcher: ctx.isNot ? `not.${name}` : name,
          },
          start,
        )
      } catch (error: unknown) {
        if (!call.abandoned) throw error
        call.failure = error instanceof Error ? error.message : String(error)
        return neutral(undefined)
      }
      if (!call.abandoned) return result
      if (result.pass === (ctx.isNot === true)) call.failure = result.message()
      return neutral(result)
    } finally {
      forget()
    }
  }
  promise = settle()
  if (!settled) entry.set(promise, call)
  return promise
}

/**
 * Called after a test body returned (the runner's `afterEach`): matcher calls of that test still
 * pending were not awaited. Marks them abandoned, waits for them (so their verdicts are attached and
 * no call dangles) and returns them with the failure each would have reported; an empty list means
 * every call was awaited.
 *
 * @example
 * const calls = await settleUnawaited(task); if (calls.length) throw new Error(notAwaitedMessage(calls))
 */
export async function settleUnawaited(key: unknown): Promise<UnawaitedCall[]> {
  const calls = pending.get(key)
  pending.delete(key)
  if (!calls || calls.size === 0) return []
  const tracked = [...calls.values()]
  for (const call of tracked) call.abandoned = true
  await Promise.allSettled([...calls.keys()])
  return tracked.map(({ name, failure, site }) => ({
    name,
    ...(failure === undefined ? {} : { failure }),
    ...(site === undefined ? {} : { site }),
  }))
}

/**
 * The message of the un-awaited guard, with the failure each call would have reported.
 *
 * @example
 * notAwaitedMessage([{ name: 'toBeCorrect' }]) // 'expect(…).toBeCorrect() was not awaited — add `await` …'
 */
export function notAwaitedMessage(calls: Array<{ name: string; failure?: string }>): string {
  const list = [...new Set(calls.map((c) => `expect(…).${c.name}()`))].join(', ')
  const head = `${list} was not awaited — add \`await\`: the test finished before the judge answered, so the assertion could not fail it in place.`
  const failures = calls.flatMap((c) =>
    c.failure ? [`\n\nThe un-awaited assertion would have failed:\n${c.failure}`] : [],
  )
  return head + failures.join('')
}

/**
 * The un-awaited guard's error, its stack starting at the test line that made the first such call (the hook
 * that found it is the runner's, in agent-verdict's bundled code, and says nothing about where to add `await`).
 *
 * @example
 * throw notAwaitedError(await settleUnawaited(task))
 */
export function notAwaitedError(calls: Array<{ name: string; failure?: string; site?: string }>): Error {
  const error = new Error(notAwaitedMessage(calls))
  const frames = userFrames(calls.find((c) => c.site)?.site)
  if (frames)
    try {
      error.stack = `Error: ${error.message}${frames}`
    } catch {
      // A stack that cannot be set: the message still says what to do.
    }
  return error
}
