import type { JudgeError } from '../judges/errors'
import type { JudgeResponse, JudgeUsage } from '../judges/types'
import type { JudgeInfo, TokenUsage } from '../verdict/verdict'

/**
 * Every request behind one verdict, counted apart for the report totals: each sample's HTTP attempts
 * (retries included) and those of failed samples are requests made; replayed samples (and replayed failures) are not.
 * Re-asks after an invalid reply are among those attempts; the judge's retry loop says how many (`reasks`),
 * and they are counted apart from retries (a request is a retry or a re-ask, never both).
 *
 * @example
 * judgeCalls(result.responses, result.errors) // { made: 3, replayed: 0, retries: 0, reasks: 0 } for samples: 3
 */
export function judgeCalls(
  responses: readonly JudgeResponse<unknown>[],
  errors: readonly JudgeError[] = [],
): NonNullable<JudgeInfo['calls']> {
  let made = 0
  let replayed = 0
  let retries = 0
  let reasks = 0
  for (const r of responses) {
    if (r.cached) {
      replayed++
      continue
    }
    const attempts = Math.max(1, r.attempts)
    const asked = Math.min(r.reasks ?? 0, attempts - 1)
    made += attempts
    reasks += asked
    retries += attempts - 1 - asked
  }
  for (const e of errors) {
    if (e.replayed) {
      replayed++
      continue
    }
    const attempts = Math.max(1, e.attempts ?? 1)
    const asked = Math.min(e.reasks ?? 0, attempts - 1)
    made += attempts
    reasks += asked
    retries += attempts - 1 - asked
  }
  return { made, replayed, retries, reasks }
}

/**
 * The verdict's token usage (`{ input, output }`, the report contract) from the judges' counts: the sum
 * of every call behind the verdict, failed samples and calls without counts (`undefined`) included as 0.
 * The one place judge usage becomes verdict usage.
 *
 * @example
 * tokenUsageOf([{ inputTokens: 1200, outputTokens: 80 }, undefined]) // { input: 1200, output: 80 }
 */
export function tokenUsageOf(usages: readonly (JudgeUsage | undefined)[]): TokenUsage {
  let input = 0
  let output = 0
  const invalid: string[] = []
  for (const u of usages) {
    input += u?.inputTokens ?? 0
    output += u?.outputTokens ?? 0
    if (u?.invalid) invalid.push(u.invalid)
  }
  // Unknown counts stay marked, so the cost is unknown rather than the price of the 0s they read as.
  return invalid.length > 0 ? { input, output, invalid: `the judge reported ${invalid.join('; ')}` } : { input, output }
}
