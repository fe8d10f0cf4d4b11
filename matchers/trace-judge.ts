import * as z from 'zod'
import { JudgeConfigError } from '../src/judges/errors'
import type { Judge } from '../src/judges/types'
import type { MatcherContext } from '../runner/context'
import { usageMessage } from './messages'
import { judgeFor } from '../runner/test-judge'

/**
 * The `judge` option of the judge-based trace matchers: a Judge, or `false` for the deterministic
 * detectors only (no judge call, nothing to configure).
 *
 * @example
 * TraceJudgeOptionSchema.parse(false)
 */
export const TraceJudgeOptionSchema = z.union([
  z.literal(false),
  z.custom<Judge>((v) => typeof (v as Judge | null)?.evaluate === 'function', {
    error: 'judge must be a Judge (openaiJudge(), bedrockJudge(), judgeFromEnv() …) or false',
  }),
])
export type TraceJudgeOption = z.infer<typeof TraceJudgeOptionSchema>

/**
 * The judge a trace matcher uses: `undefined` for `judge: false`, else the per-call judge or
 * `AGENT_VERDICT_JUDGE`, wrapped with the test file's cassette. With none configured it throws the
 * JudgeConfigError, prefixed with the matcher hint and saying how to run without a judge.
 *
 * @example
 * const judge = traceJudge(this, options.judge, { name: 'toHaveNoFailingSpans' })
 */
export function traceJudge(
  ctx: MatcherContext,
  option: TraceJudgeOption | undefined,
  hint: { name: string; args?: string; withoutJudge: string },
): Judge | undefined {
  if (option === false) return undefined
  try {
    return judgeFor(ctx, option)
  } catch (error) {
    if (error instanceof JudgeConfigError) {
      error.message = usageMessage(hint.name, ctx.isNot, hint.args ?? '', `${error.message}\n${hint.withoutJudge}`)
    }
    throw error
  }
}
