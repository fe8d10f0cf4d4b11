import { asJudgeTraffic } from '../config/judge-traffic'
import { classifyJudgeError } from './classify-error'
import { JudgeAbortError, JudgeConfigError, JudgeError, JudgeOutputError } from './errors'
import type { Judge, JudgeRequest, JudgeResponse } from './types'

export interface CallJudgeOptions<T> {
  /** Self-consistency: ask this many times concurrently and aggregate. Default 1. */
  samples?: number
  /** The score of one reply; default reads `score` (number or boolean). Booleans count as 1/0. */
  scoreOf?: (output: T) => number | boolean
  /** `majority` for binary verdicts, `median` for scales; default by score type (boolean → majority). */
  aggregate?: 'majority' | 'median'
  /**
   * Whether a score passes (the caller's threshold). With `samples > 1`, the aggregate stands only when more
   * than half of the samples asked are on its side (pass or fail); else the verdict is unjudgeable.
   */
  passes?: (score: number) => boolean
  signal?: AbortSignal
}

export type CallJudgeResult<T> =
  | {
      status: 'ok'
      /** The reply of a sample whose score equals the aggregate. */
      output: T
      /** Every successful sample's response (usage, cost, latency per call). */
      responses: JudgeResponse<T>[]
      /** Sample scores, when `samples > 1`. */
      samples?: number[]
      /** True when the samples did not all agree. */
      disagreement: boolean
      /** Samples that failed (no valid verdict) although a majority succeeded; the aggregate uses the rest. */
      errors?: JudgeError[]
    }
  | {
      status: 'unjudgeable'
      error: JudgeError
      cause: string
      /** With `samples > 1`: how many samples were asked and how many gave no valid verdict. */
      sampleCount?: { asked: number; failed: number }
      /** Samples that did give a verdict, when they were split (their calls still count). */
      responses?: JudgeResponse<T>[]
      /** Samples that gave none, when the valid ones were split. */
      errors?: JudgeError[]
    }

/**
 * Asks `judge` for a verdict and never throws for a judge failure: after the judge's own retries,
 * a failure becomes `{ status: 'unjudgeable', error, cause }`, which a matcher reports as its own
 * outcome (never a pass, never a zero). Two things do throw: a `JudgeConfigError` (a missing or
 * invalid judge setup must fail loudly, not look like a flaky judge) and a `JudgeAbortError` (the
 * caller cancelled); either one cancels the other samples before it is thrown, so no call goes out
 * after the rejection. With `samples: n` it asks n times concurrently and aggregates by majority
 * (binary) or median (scales) over the valid samples; ties resolve to the lower score. Without a strict
 * majority of valid samples (2 of 3, 3 of 4) the result is unjudgeable: one valid sample out of three is not
 * self-consistency; nor, with `passes`, is a verdict whose side (pass or fail) is held by half the samples
 * asked or fewer ([fail, pass], [0, 0, 1, 1], [fail, pass, no verdict]).
 *
 * @example
 * const result = await callJudge(judge, request, { samples: 3 })
 * if (result.status === 'unjudgeable') return fail(`unjudgeable: ${result.cause}`)
 * console.log(result.output, result.samples, result.disagreement, result.errors?.length ?? 0)
 */
export async function callJudge<T>(
  judge: Judge,
  request: JudgeRequest<T>,
  options: CallJudgeOptions<T> = {},
): Promise<CallJudgeResult<T>> {
  const n = options.samples ?? 1
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`callJudge: samples must be a positive integer, got ${n}`)
  const who = { provider: judge.provider, model: judge.model }
  // The samples share one signal: a fatal error in one stops the others at once.
  const group = linkedController(options.signal)
  let fatal: JudgeError | undefined
  // Not the judge's failure (a corrupt or locked cassette file): thrown as it is, never "unjudgeable".
  let notFromJudge: unknown
  let settled: Array<JudgeResponse<T> | JudgeError>
  try {
    settled = await Promise.all(
      Array.from({ length: n }, async () => {
        try {
          // Any judge, a custom one too: its requests are verdicts, never agent calls to record.
          return await asJudgeTraffic(() => judge.evaluate(request, group.signal))
        } catch (err) {
          if ((err as { notFromJudge?: unknown } | null)?.notFromJudge === true) {
            notFromJudge ??= err
            group.abort(err)
            return classifyJudgeError(err, who)
          }
          const error = classifyJudgeError(err, who)
          if (error instanceof JudgeConfigError || error instanceof JudgeAbortError) {
            fatal ??= error
            group.abort(error)
          }
          return error
        }
      }),
    )
  } finally {
    group.dispose()
  }
  const responses = settled.filter((r): r is JudgeResponse<T> => !(r instanceof JudgeError))
  const errors = settled.filter((r): r is JudgeError => r instanceof JudgeError)
  if (options.signal?.aborted)
    throw fatal instanceof JudgeAbortError ? fatal : new JudgeAbortError({ ...who, cause: options.signal.reason })
  if (notFromJudge !== undefined) throw notFromJudge
  if (fatal) throw fatal
  if (responses.length === 0) {
    const cause = n > 1 ? `none of ${n} samples gave a valid verdict: ${errors[0].message}` : errors[0].message
    return {
      status: 'unjudgeable',
      error: errors[0],
      cause,
      ...(n > 1 ? { sampleCount: { asked: n, failed: n } } : {}),
    }
  }
  if (responses.length * 2 <= n) {
    const cause = `only ${responses.length} of ${n} samples gave a valid verdict (${errors.length} failed; no majority of valid samples): ${errors[0].message}`
    return { status: 'unjudgeable', error: errors[0], cause, sampleCount: { asked: n, failed: errors.length } }
  }

  const scoreOf = options.scoreOf ?? defaultScoreOf
  const raw = responses.map((r) => scoreOf(r.output))
  const scores = raw.map((s) => (typeof s === 'boolean' ? Number(s) : s))
  const mode = options.aggregate ?? (raw.every((s) => typeof s === 'boolean') ? 'majority' : 'median')
  const target = mode === 'majority' ? majority(scores) : lowerMedian(scores)
  const passes = options.passes
  if (n > 1 && passes) {
    // A split judge has no verdict, in either direction: without this, [fail, pass] aggregated to the lower
    // score and passed a `.not` (issue 33). The side must hold a strict majority of the samples ASKED.
    const side = passes(target)
    const agreeing = scores.filter((s) => passes(s) === side).length
    if (agreeing * 2 <= n) {
      const passing = scores.filter((s) => passes(s)).length
      const cause = `the ${n} samples are split (${passing} pass, ${scores.length - passing} fail${errors.length ? `, ${errors.length} gave no valid verdict` : ''}; scores ${scores.join(', ')}): no strict majority, so no verdict`
      return {
        status: 'unjudgeable',
        error: new JudgeOutputError(cause, { ...who, raw: scores.join(', '), retryable: false }),
        cause,
        sampleCount: { asked: n, failed: errors.length },
        responses,
        ...(errors.length ? { errors } : {}),
      }
    }
  }
  const chosen = responses[scores.indexOf(target)]
  return {
    status: 'ok',
    output: chosen.output,
    responses,
    ...(n > 1 ? { samples: scores } : {}),
    disagreement: new Set(scores).size > 1,
    ...(errors.length ? { errors } : {}),
  }
}

/** An AbortController that also aborts when `parent` does; `dispose` drops the link. */
function linkedController(parent?: AbortSignal): AbortController & { dispose(): void } {
  const controller = new AbortController()
  const onAbort = () => controller.abort(parent!.reason)
  if (parent?.aborted) controller.abort(parent.reason)
  else parent?.addEventListener('abort', onAbort, { once: true })
  return Object.assign(controller, { dispose: () => parent?.removeEventListener('abort', onAbort) })
}

function defaultScoreOf(output: unknown): number | boolean {
  const score = (output as { score?: unknown } | null)?.score
  if (typeof score === 'number' || typeof score === 'boolean') return score
  throw new TypeError(
    'callJudge: the reply has no numeric or boolean `score`; pass scoreOf to say which field is the score',
  )
}

/** Most frequent score; a tie goes to the lowest of the tied scores. */
function majority(scores: number[]): number {
  const counts = new Map<number, number>()
  for (const s of scores) counts.set(s, (counts.get(s) ?? 0) + 1)
  let best = scores[0]
  for (const [score, count] of counts) {
    const bestCount = counts.get(best)!
    if (count > bestCount || (count === bestCount && score < best)) best = score
  }
  return best
}

/** Median that is always one of the samples: the lower middle for an even count. */
function lowerMedian(scores: number[]): number {
  const sorted = [...scores].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}
