// A matcher must fail before its test's timeout, with a message saying why the judge gave no verdict,
// rather than let the runner print a bare "Test timed out in 5000ms" (decision 0017).
import { JudgeAbortError, JudgeDeadlineError, JudgeError, JudgeRateLimitError, JudgeTimeoutError } from './errors'
import { describeReplyProgress } from './reply-watch'
import type { Judge, JudgeRequest, JudgeResponse } from './types'

/** The running test's time limit, as the runner entry reads it. */
export interface TestTimeLimit {
  /** When the test started (ms since epoch). */
  startedAt: number
  /** The test's timeout in ms (Vitest `testTimeout` or the per-test timeout, Jest `testTimeout`). */
  timeoutMs: number
  /** Where a user raises it, for the message (e.g. `testTimeout in vitest.config`). */
  setting: string
}

/** The recommended test timeout for tests that call a judge, quoted in messages and the docs (getting started). */
export const RECOMMENDED_TEST_TIMEOUT_MS = 60_000

/**
 * How long before the test's timeout the matcher gives up: enough to build the message and let the
 * runner record a failure of ours instead of its own timeout. 10% of the timeout, 250 ms to 2 s.
 *
 * @example
 * deadlineOf({ startedAt: t0, timeoutMs: 5000, setting: 'testTimeout' }) // t0 + 4500
 */
export function deadlineOf(limit: TestTimeLimit): number {
  const margin = Math.min(2_000, Math.max(250, Math.round(limit.timeoutMs * 0.1)))
  return limit.startedAt + limit.timeoutMs - margin
}

const capitalize = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

/**
 * Wraps `judge` so every call ends before the test's timeout: at the deadline the call is aborted
 * (no further request is sent) and rejects with a `JudgeDeadlineError` that names the judge and its
 * endpoint, what happened (refused, DNS, TLS, no answer in N s, N retries on 429) and what to do.
 * Without a usable limit (timeout 0 or absent) the judge is returned as it is.
 *
 * @example
 * const judge = withTestDeadline(judgeFor(ctx), { startedAt: Date.now(), timeoutMs: 5000, setting: 'testTimeout' })
 */
export function withTestDeadline<J extends Judge>(
  judge: J,
  limit: TestTimeLimit | undefined,
  now: () => number = Date.now,
): J {
  if (!limit || !Number.isFinite(limit.timeoutMs) || limit.timeoutMs <= 0) return judge
  const deadline = deadlineOf(limit)
  const evaluate = async <T>(request: JudgeRequest<T>, signal?: AbortSignal): Promise<JudgeResponse<T>> => {
    const started = now()
    const budgetMs = deadline - started
    if (budgetMs <= 0) throw deadlineError(judge, limit, 0, undefined)
    const controller = new AbortController()
    let expired = false
    const onOuterAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onOuterAbort, { once: true })
    if (signal?.aborted) controller.abort(signal.reason)
    let timer: ReturnType<typeof setTimeout> | undefined
    // Raced as well as aborted: a custom judge that ignores its signal still cannot outlive the test.
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true
        const reason = new Error('judge deadline (the test timeout is near)')
        controller.abort(reason)
        reject(reason)
      }, budgetMs)
    })
    const call = judge.evaluate(request, controller.signal)
    try {
      return await Promise.race([call, expiry])
    } catch (err) {
      if (!expired) throw err
      // The inner judge rejects with what it knew when it was aborted (last error, attempt in flight).
      // Bounded: a judge that ignores its signal must not hold the test past the deadline.
      const inner = await Promise.race([
        call.then(
          () => undefined,
          (e: unknown) => e,
        ),
        new Promise<undefined>((done) => setTimeout(done, 100, undefined)),
      ])
      throw deadlineError(judge, limit, budgetMs, inner ?? err)
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onOuterAbort)
    }
  }
  return new Proxy(judge, {
    get(target, key, receiver) {
      if (key === 'evaluate') return evaluate
      const value = Reflect.get(target, key, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function deadlineError(judge: Judge, limit: TestTimeLimit, budgetMs: number, cause: unknown): JudgeDeadlineError {
  const where = judge.endpoint ? `${judge.id} at ${judge.endpoint}` : judge.id
  const { happened, todo } = explain(cause, budgetMs)
  const raise = `raise the test's timeout (${limit.setting}; ${RECOMMENDED_TEST_TIMEOUT_MS / 1000} s is recommended for judge tests)`
  const message =
    budgetMs <= 0
      ? `${where}: no time left for the judge before the test's ${seconds(limit.timeoutMs)} timeout (the test spent it before this assertion); ${raise}`
      : `${where} gave no verdict before the test's ${seconds(limit.timeoutMs)} timeout (${seconds(budgetMs)} left for the judge): ${happened}. ${capitalize(todo ? `${todo}, or ${raise}` : raise)}.`
  return new JudgeDeadlineError(message, {
    provider: judge.provider,
    model: judge.model,
    budgetMs,
    cause: cause instanceof JudgeAbortError ? cause.lastError : cause,
  })
}

/** What the retry loop saw before the deadline, in words, and what would help. */
function explain(cause: unknown, budgetMs: number): { happened: string; todo?: string } {
  const abort = cause instanceof JudgeAbortError ? cause : undefined
  const last =
    abort?.lastError ?? (cause instanceof JudgeError && !(cause instanceof JudgeAbortError) ? cause : undefined)
  const attempts = last?.attempts ?? abort?.attempts
  const tries = attempts ? ` (${attempts} attempt${attempts === 1 ? '' : 's'})` : ''
  const waiting =
    abort?.inFlightSince !== undefined
      ? `; the last attempt had no answer after ${seconds(Math.max(0, Date.now() - abort.inFlightSince))}`
      : ''
  const sending = describeReplyProgress(abort?.inFlightReply)
  if (sending && abort?.inFlightSince !== undefined)
    return {
      happened: `no verdict after ${seconds(Math.max(0, Date.now() - abort.inFlightSince))}${tries}: ${sending}`,
      todo: 'check the judge server (a reply that slow is a stuck or throttled stream), or give it a shorter per-call timeout (timeout=DURATION) so a retry fits',
    }
  if (!last) {
    const since = abort?.inFlightSince
    const happened =
      since === undefined
        ? `no answer in ${seconds(budgetMs)}`
        : `no answer after ${seconds(Math.max(0, Date.now() - since))}${attempts ? '' : ' (first attempt still waiting)'}`
    return {
      happened,
      todo: 'check that the judge is up and not overloaded, or give it a shorter per-call timeout (timeout=DURATION) so a retry fits',
    }
  }
  if (last.network === 'refused')
    return {
      happened: `connection refused${tries}`,
      todo: 'start the judge server or fix its address (AGENT_VERDICT_JUDGE or baseURL)',
    }
  if (last.network === 'dns')
    return {
      happened: `its host name does not resolve (DNS)${tries}`,
      todo: 'fix the host in the base URL or region, or the network',
    }
  if (last.network === 'tls')
    return { happened: `the TLS handshake failed${tries}`, todo: 'check http vs https and the server certificate' }
  if (last instanceof JudgeRateLimitError)
    return {
      happened: `rate limited (429) on ${attempts ?? 'every'} attempt${attempts === 1 ? '' : 's'}${waiting}`,
      todo: 'lower the judge concurrency (concurrency=N) or the number of judge calls per test',
    }
  if (last instanceof JudgeTimeoutError)
    return {
      happened: `${last.message}${tries}${waiting}`,
      todo: 'check that the judge is not overloaded, or lower its timeout (timeout=DURATION) so a retry fits',
    }
  return { happened: `${last.message}${tries}${waiting}` }
}
