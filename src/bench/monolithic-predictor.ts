// TRAIL monolithic mode: the papers' baseline — the whole trace file in one judge prompt.
import { readFile } from 'node:fs/promises'
import * as z from 'zod'
import { requestTokens } from '../diagnosis/tokens'
import { callJudge } from '../judges/judge-call'
import type { Judge } from '../judges/types'
import { PROMPT_VERSION, SYSTEM, renderUser } from '../metrics/prompts/trail-monolithic'
import { TrailPredictedErrorSchema, TrailScoreSetSchema, type TrailPredictor } from './trail-prediction'

/** What run_eval.py writes when a trace does not fit the model; the scorer skips such files. */
export const CONTEXT_EXCEEDED_TEXT = 'Context window exceeded. No output generated.'
/** Default context window of the monolithic judge, in estimated tokens. */
export const DEFAULT_CONTEXT_TOKENS = 128_000
/** The baseline's completion cap (run_eval.py asks for at most 8000 tokens). */
const MAX_OUTPUT_TOKENS = 8000

/**
 * The trace does not fit the judge's context window: the harness writes {@link CONTEXT_EXCEEDED_TEXT}
 * for it, as the official pipeline does, and counts it.
 *
 * @example
 * if (err instanceof ContextWindowExceededError) console.log(err.promptTokens, '>', err.contextTokens)
 */
export class ContextWindowExceededError extends Error {
  override readonly name = 'ContextWindowExceededError'
  constructor(
    readonly promptTokens: number,
    readonly contextTokens: number,
  ) {
    super(`the whole-trace prompt needs ~${promptTokens} tokens, over the ${contextTokens}-token context window`)
  }
}

/** The baseline's reply: the TRAIL output template. */
export const MonolithicReplySchema = z.object({
  errors: z.array(TrailPredictedErrorSchema),
  scores: z.array(TrailScoreSetSchema),
})

/**
 * Estimated prompt tokens of the monolithic judge for a trace file's text (system + whole file + schema).
 *
 * @example
 * monolithicTokens(await readFile('trace.json', 'utf8')) > 128_000
 */
export function monolithicTokens(fileText: string): number {
  return requestTokens(SYSTEM, renderUser(fileText), MonolithicReplySchema)
}

/**
 * Monolithic mode: the raw trace file text in one prompt with the taxonomy and the output template.
 * A trace whose prompt exceeds `contextTokens` (estimated) is not sent: the predictor throws
 * {@link ContextWindowExceededError}.
 *
 * @example
 * await runTrailBench({ dir, mode: 'monolithic', predictor: monolithicPredictor(judge, { contextTokens: 200_000 }) })
 */
export function monolithicPredictor(judge: Judge, options: { contextTokens?: number } = {}): TrailPredictor {
  const context = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS
  return async (_trace, ctx) => {
    const text = renderUser(await readFile(ctx.file, 'utf8'))
    const tokens = requestTokens(SYSTEM, text, MonolithicReplySchema)
    if (tokens > context) throw new ContextWindowExceededError(tokens, context)
    const result = await callJudge(
      judge,
      {
        metric: 'trail-monolithic',
        promptVersion: PROMPT_VERSION,
        system: SYSTEM,
        content: [{ type: 'text', text }],
        schema: MonolithicReplySchema,
        schemaName: 'trail_prediction',
        maxOutputTokens: MAX_OUTPUT_TOKENS,
      },
      { scoreOf: (o) => o.errors.length, signal: ctx.signal },
    )
    if (result.status === 'unjudgeable') throw new Error(`judge gave no usable prediction: ${result.cause}`)
    return { errors: result.output.errors, scores: result.output.scores.slice(0, 1) }
  }
}
