import { classifyJudgeError } from './classify-error'
import { JudgeAbortError, JudgeConfigError, JudgeError } from './errors'
import type { Judge, JudgeRequest, JudgeResponse } from './types'

export interface CallJudgeOptions<T> {
  /** Self-consistency: ask this many times concurrently and aggregate. Default 1. */
  samples?: number
  /** The score of one reply; default reads `score` (number or boolean). Booleans count as 1/0. */
  scoreOf?: (output: T) => number | boolean
  /** `majority` for binary verdicts, `median` for scales; default by score type (boolean → majority). */
  aggregate?: 'majority' | 'median'
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
      /** Samples that failed although others succeeded (the aggregate uses the rest). */
      errors?: JudgeError[]
    }
  | { status: 'unjudgeable'; error: JudgeError; cause: string }

/**
 * Asks `judge` for a verdict and never throws for a judge failure: after the judge's own retries,
 * a failure becomes `{ status: 'unjudgeable', error, cause }`, which a matcher reports as its own
 * outcome (never a pass, never a zero). Two things do throw: a `JudgeConfigError` (a missing or
 * invalid judge setup must fail loudly, not look like a flaky judge) and a `JudgeAbortError` (the
 * caller cancelled). With `samples: n` it asks n times concurrently and aggregates by majority
 * (binary) or median (scales); ties resolve to the lower score, so a split judge never passes.
 *
 * @example
 * const result = await callJudge(judge, request, { samples: 3 })
 * if (result.status === 'unjudgeable') return fail(`unjudgeable: ${result.cause}`)
 * console.log(result.output, result.samples, result.disagreement)
 */
export async function callJudge<T>(judge: Judge, request: JudgeRequest<T>, options: CallJudgeOptions<T> = {}): Promise<CallJudgeResult<T>> {
  const n = options.samples ?? 1
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`callJudge: samples must be a positive integer, got ${n}`)
  const settled = await Promise.allSettled(Array.from({ length: n }, async () => judge.evaluate(request, options.signal)))

  const responses: JudgeResponse<T>[] = []
  const errors: JudgeError[] = []
  for (const outcome of settled) {
    if (outcome.status === 'fulfilled') responses.push(outcome.value)
    // Not the judge's failure (a corrupt or locked cassette file): thrown as it is, never "unjudgeable".
    else if ((outcome.reason as { notFromJudge?: unknown } | null)?.notFromJudge === true) throw outcome.reason
    else errors.push(classifyJudgeError(outcome.reason, { provider: judge.provider, model: judge.model }))
  }
  const fatal = errors.find((e) => e instanceof JudgeConfigError || e instanceof JudgeAbortError)
  if (fatal || options.signal?.aborted) throw fatal ?? new JudgeAbortError({ provider: judge.provider, model: judge.model, cause: options.signal?.reason })
  if (responses.length === 0) return { status: 'unjudgeable', error: errors[0], cause: errors[0].message }

  const scoreOf = options.scoreOf ?? defaultScoreOf
  const raw = responses.map((r) => scoreOf(r.output))
  const scores = raw.map((s) => (typeof s === 'boolean' ? Number(s) : s))
  const mode = options.aggregate ?? (raw.every((s) => typeof s === 'boolean') ? 'majority' : 'median')
  const target = mode === 'majority' ? majority(scores) : lowerMedian(scores)
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

function defaultScoreOf(output: unknown): number | boolean {
  const score = (output as { score?: unknown } | null)?.score
  if (typeof score === 'number' || typeof score === 'boolean') return score
  throw new TypeError('callJudge: the reply has no numeric or boolean `score`; pass scoreOf to say which field is the score')
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
