// One multi-aspect judge call per span, and its reply turned into span verdicts.
import { scrubSecrets } from '../config/secrets'
import { callJudge } from '../judges/judge-call'
import type { Judge, JudgeResponse } from '../judges/types'
import { judgeInfo } from '../metrics/judge-calls'
import { PROMPT_VERSION, SYSTEM } from '../metrics/prompts/span-diagnosis'
import type { Span } from '../trace/span'
import type { Trace } from '../trace/trace'
import type { JudgeInfo, Verdict } from '../verdict/verdict'
import { oneLineExcerpt } from '../verdict/text'
import { canonicalView } from './canonical'
import { fitToTokens } from './fit-tokens'
import { errorText, plainText } from './render'
import { spanPrompt } from './span-context'
import { SPAN_ASPECTS, SpanJudgementSchema, type SpanJudgement } from './span-judgement'
import type { CompactStep } from './steps'
import { SPAN_CATEGORY_METRIC } from './types'

/** What judging one span needs besides the span. */
export interface SpanJudgeContext {
  trace: Trace
  judge: Judge
  budgetTokens: number
  threshold: number
  steps: readonly CompactStep[]
  contextSteps: number
  signal?: AbortSignal
}

/** The verdicts of one span and what the call cost. */
export interface SpanJudgeResult {
  verdicts: Verdict[]
  /** Prompt tokens of the request sent (system + user + schema): the judge's real count where the budget was at stake, else the chars/4 estimate (see `fitToTokens`). */
  promptTokens: number
  /** Judge calls made (an unjudgeable one included) and replayed from a cassette. */
  calls: { made: number; cached: number }
  unjudgeable: boolean
}

/** Room for the reply: reasoning, three reasons, a quote. */
export const MAX_OUTPUT_TOKENS = 1500
const SUBJECT_CHARS = 300

/**
 * Judges one span with one call: the prompt is built within the budget, the reply becomes one verdict
 * per aspect plus the category verdict (which carries the judge info, so reports count one call). A
 * judge failure makes every verdict of this span `unjudgeable` and never throws (config errors and
 * aborts do).
 *
 * @example
 * const { verdicts } = await judgeSpan(span, { trace, judge, budgetTokens: 16_000, threshold: 0.5, steps, contextSteps: 4 })
 */
export async function judgeSpan(span: Span, ctx: SpanJudgeContext): Promise<SpanJudgeResult> {
  // Built by characters, then counted with the judge's real tokenizer and rebuilt smaller if over budget.
  const [prompt] = await fitToTokens(
    (budgetTokens) => [
      spanPrompt(ctx.trace, span, {
        system: SYSTEM,
        schema: SpanJudgementSchema,
        budgetTokens,
        steps: ctx.steps,
        contextSteps: ctx.contextSteps,
      }),
    ],
    { budgetTokens: ctx.budgetTokens, system: SYSTEM, schema: SpanJudgementSchema, judge: ctx.judge },
  )
  const started = performance.now()
  const result = await callJudge(
    ctx.judge,
    {
      metric: 'span-diagnosis',
      promptVersion: PROMPT_VERSION,
      system: SYSTEM,
      content: [{ type: 'text', text: prompt.text }],
      schema: SpanJudgementSchema,
      schemaName: 'span_diagnosis',
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      about: { spanId: span.id, span: `${canonicalView(ctx.trace).position(span.id)} ${span.kind}:${span.name}` },
      spanId: span.id,
    },
    {
      scoreOf: (o) => Math.min(o.instruction_following.score, o.reasoning_integrity.score, o.tool_completeness.score),
      signal: ctx.signal,
    },
  )
  // A long text is scrubbed before it is cut: a cut through a key would leave a part no later scrub recognises.
  const shown = plainText(span.output) || plainText(span.input)
  const subject = oneLineExcerpt(shown.length > SUBJECT_CHARS ? scrubSecrets(shown) : shown, SUBJECT_CHARS)
  if (result.status === 'unjudgeable') {
    const info = judgeInfo({
      provider: ctx.judge.provider,
      model: ctx.judge.model,
      promptVersion: PROMPT_VERSION,
      responses: [],
      errors: [result.error],
      latencyMs: Math.round(performance.now() - started),
    })
    const reason = `unjudgeable: ${result.cause}`
    const verdicts: Verdict[] = [
      ...SPAN_ASPECTS.map((a) => unjudgeable(span.id, a.metric, 'likert5', ctx.threshold, reason)),
      { ...unjudgeable(span.id, SPAN_CATEGORY_METRIC, 'binary', 1, reason), subject, judge: info },
    ]
    return { verdicts, promptTokens: prompt.tokens, calls: { made: 1, cached: 0 }, unjudgeable: true }
  }
  const verdicts = judgementVerdicts(
    span,
    result.output,
    ctx.threshold,
    judgeInfo({
      provider: result.responses[0].provider,
      model: result.responses[0].model,
      promptVersion: PROMPT_VERSION,
      responses: result.responses,
      errors: result.errors,
    }),
  )
  verdicts[verdicts.length - 1].subject = subject
  return { verdicts, promptTokens: prompt.tokens, calls: countCalls(result.responses), unjudgeable: false }
}

function unjudgeable(
  spanId: string,
  metric: string,
  scale: 'likert5' | 'binary',
  threshold: number,
  reason: string,
): Verdict {
  return {
    id: `${spanId}:${metric}`,
    metric,
    level: 'span',
    spanId,
    scale,
    raw: null,
    score: null,
    threshold,
    pass: false,
    outcome: 'unjudgeable',
    reason,
  }
}

/**
 * A span judgement as verdicts: one per aspect (likert5, normalized (raw − 1) / 4, pass at or above
 * `threshold`) and `span.error_category` (binary: pass only for "none"; carries category, evidence and
 * the judge info), then one failing `span.error_category` verdict (id `<span>:span.error_category.2`, …)
 * per further error the reply names with its own category and its own quote (see {@link additionalErrors}).
 * A span fails when its category is not "none" or any aspect is below the threshold.
 *
 * @example
 * judgementVerdicts(span, reply, 0.5, info).filter((v) => !v.pass)
 */
export function judgementVerdicts(span: Span, reply: SpanJudgement, threshold: number, judge?: JudgeInfo): Verdict[] {
  const verdicts: Verdict[] = SPAN_ASPECTS.map(({ key, metric }) => {
    const raw = reply[key].score
    const score = (raw - 1) / 4
    const pass = score >= threshold
    return {
      id: `${span.id}:${metric}`,
      metric,
      level: 'span',
      spanId: span.id,
      scale: 'likert5',
      raw,
      score,
      threshold,
      pass,
      outcome: pass ? 'pass' : 'fail',
      reason: reply[key].reason.trim(),
    }
  })
  const none = reply.error_category === 'none'
  const evidence = reply.evidence.trim()
  const grounded = evidence === '' || quotedFrom(span, evidence)
  verdicts.push({
    id: `${span.id}:${SPAN_CATEGORY_METRIC}`,
    metric: SPAN_CATEGORY_METRIC,
    level: 'span',
    spanId: span.id,
    scale: 'binary',
    raw: reply.error_category,
    score: none ? 1 : 0,
    threshold: 1,
    pass: none,
    outcome: none ? 'pass' : 'fail',
    reason: `${reply.reasoning.trim()}${grounded ? '' : ' (the evidence is not a verbatim quote of this span)'}`,
    ...(none ? {} : { category: reply.error_category }),
    ...(evidence ? { evidence } : {}),
    ...(judge ? { judge } : {}),
  })
  // "none" beside further errors is refused by the reply schema (a contradiction), never read as a pass.
  if (none) return verdicts
  // Further errors carry no judge info: the call is counted once, on the first category verdict.
  additionalErrors(reply).forEach((extra, i) => {
    const quote = extra.evidence.trim()
    verdicts.push({
      id: `${span.id}:${SPAN_CATEGORY_METRIC}.${i + 2}`,
      metric: SPAN_CATEGORY_METRIC,
      level: 'span',
      spanId: span.id,
      scale: 'binary',
      raw: extra.category,
      score: 0,
      threshold: 1,
      pass: false,
      outcome: 'fail',
      reason: `a further error of this span, besides ${reply.error_category}, with its own quote${quotedFrom(span, quote) ? '' : ' (the evidence is not a verbatim quote of this span)'}`,
      category: extra.category,
      evidence: quote,
    })
  })
  return verdicts
}

/**
 * The further errors of a reply that stand on their own evidence, in reply order: a category already
 * named (first or further) is dropped, and so is an error whose quote is empty or is the same passage as an
 * earlier error's quote (equal, or one inside the other, ignoring whitespace and case) — one piece of
 * evidence supports one category, and the first category the judge named for it (the most specific, as
 * the prompt asks) is the one kept.
 *
 * @example
 * additionalErrors({ ...reply, error_category: 'Formatting Errors', evidence: 'no code block',
 *   additional_errors: [{ category: 'Instruction Non-compliance', evidence: 'No code block' }] }) // []
 */
export function additionalErrors(reply: SpanJudgement): Array<{ category: string; evidence: string }> {
  if (reply.error_category === 'none') return []
  const categories = new Set([reply.error_category])
  const quotes = [samePassageKey(reply.evidence)].filter((q) => q !== '')
  const kept: Array<{ category: string; evidence: string }> = []
  for (const extra of reply.additional_errors) {
    const quote = samePassageKey(extra.evidence)
    if (categories.has(extra.category) || quote === '' || quotes.some((q) => q.includes(quote) || quote.includes(q)))
      continue
    categories.add(extra.category)
    quotes.push(quote)
    kept.push(extra)
  }
  return kept
}

/** A quote as compared for "the same passage": whitespace collapsed, case and surrounding quote marks ignored. */
function samePassageKey(quote: string): string {
  return quote
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'“]|["'”]$/g, '')
    .toLowerCase()
}

/** Whether the quote occurs in the span (whitespace-insensitive): judges paraphrase, reports should say so. */
function quotedFrom(span: Span, quote: string): boolean {
  const flat = (s: string) => s.replace(/\s+/g, ' ').trim()
  const haystack = flat([plainText(span.input), plainText(span.output), errorText(span)].join(' '))
  return haystack.includes(flat(quote).replace(/^["'“]|["'”]$/g, ''))
}

/** Calls a successful judgement took: replayed ones are not calls made. */
export function countCalls(responses: readonly JudgeResponse<unknown>[]): { made: number; cached: number } {
  const cached = responses.filter((r) => r.cached).length
  return { made: responses.length - cached, cached }
}
