import { type JudgeError, JudgeOutputError } from '../judges/errors'
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

/** What {@link judgeInfo} sums over: one verdict's successful responses and its failed calls or samples. */
export interface JudgeInfoInput {
  /** Who was asked (the judge's, not a response's: a verdict with no successful response still names it). */
  provider: string
  model: string
  promptVersion: string
  responses: readonly JudgeResponse<unknown>[]
  /** Failed calls or samples: their attempts are requests made, and their rejected replies' tokens were paid. */
  errors?: readonly JudgeError[]
  /** Wall time of the whole judgement; default the slowest response (samples run concurrently). */
  latencyMs?: number
}

/**
 * Who judged and what it cost, for every verdict kind (output metrics, span judgements, the agent pass): tokens of
 * every call behind it, the wasted tokens of rejected replies included; cost of the successful responses; `cached`
 * only when nothing was asked live. The one place a judgement's usage becomes the verdict's `judge`.
 *
 * @example
 * judgeInfo({ provider: 'openai', model: 'gpt-4o', promptVersion: 'v1', responses: result.responses, errors: result.errors })
 */
export function judgeInfo(input: JudgeInfoInput): JudgeInfo {
  const { responses, errors = [] } = input
  const wasted = errors.map((e) => (e instanceof JudgeOutputError ? e.usage : undefined))
  const costs = responses.map((r) => r.costUsd)
  return {
    provider: input.provider,
    model: input.model,
    promptVersion: input.promptVersion,
    tokens: tokenUsageOf([...responses.map((r) => r.usage), ...wasted]),
    // No successful response: no cost is known (the key is left out, as it always was for unjudgeable verdicts).
    ...(responses.length > 0
      ? { costUsd: costs.every((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0) }
      : {}),
    latencyMs: input.latencyMs ?? Math.max(...responses.map((r) => r.latencyMs)),
    // A replayed unjudgeable sample (decision 0043) asked no one live either.
    cached:
      responses.length + errors.length > 0 &&
      responses.every((r) => r.cached) &&
      errors.every((e) => e.replayed === true),
    calls: judgeCalls(responses, errors),
  }
}
