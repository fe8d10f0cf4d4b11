// TRAIL oracle mode: the judge path with a scripted judge that knows the gold. What it still misses is
// what span selection, truncation, detector skips and the one-category-per-evidence rule lose before any judge answers.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as z from 'zod'
import { diagnose } from '../diagnosis/diagnose'
import { spanPrompt } from '../diagnosis/span-context'
import { additionalErrors } from '../diagnosis/span-judge'
import { SpanJudgementSchema, type SpanJudgement } from '../diagnosis/span-judgement'
import { compactSteps } from '../diagnosis/steps'
import { JUDGE_CATEGORIES } from '../taxonomy'
import { DEFAULT_BUDGET_TOKENS, type PropagationPolicy } from '../diagnosis/types'
import type { Judge, JudgeRequest, JudgeResponse } from '../judges/types'
import { SYSTEM } from '../metrics/prompts/span-diagnosis'
import type { Trace } from '../trace/trace'
import { diagnosisToPrediction, type JudgePredictorOptions } from './judge-predictor'
import { normalizeCategory } from './normalize-category'
import { pyJsonLoads } from './py-json'
import { TRAIL_SPLIT_DIRS } from './splits'
import type { TrailPredictor } from './trail-prediction'

/**
 * Why a gold error never reached the prediction, in pipeline order:
 * - `span not in trace`: the gold location is no span id of the trace file;
 * - `span not selected`: the span is not a selected leaf (not an LLM/TOOL span, or one with a selected descendant);
 * - `skipped: detector explained the span`: a detector finding on the span kept it from the judge, with another category;
 * - `category not offered to the judge`: the gold label is not among the reply's categories;
 * - `truncated away`: the evidence is in the span's uncut prompt but not in the prompt sent (cut to the budget);
 * - `second category on the same evidence`: the gold names another category of the span on the same passage,
 *   and one piece of evidence supports one category in a reply (the first gold category for it is named);
 * - `lost after the judge`: the oracle named it, but it is not in the prediction (propagation, conversion).
 */
export const OracleLossReasonSchema = z.enum([
  'span not in trace',
  'span not selected',
  'skipped: detector explained the span',
  'category not offered to the judge',
  'truncated away',
  'second category on the same evidence',
  'lost after the judge',
])
export type OracleLossReason = z.infer<typeof OracleLossReasonSchema>

/** One gold error the pipeline never put in front of the judge (or lost after it), and why. */
export const OracleLossSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  category: z.string(),
  reason: OracleLossReasonSchema,
  detail: z.string(),
})
export type OracleLoss = z.infer<typeof OracleLossSchema>

/** A gold error as the oracle reads it (category normalized like the official scorer does). */
interface GoldError {
  category: string
  location: string
  evidence: string
}

/** Options of {@link oraclePredictor}. */
export interface OraclePredictorOptions {
  /** The TRAIL folder whose gold folders hold `<trace_id>.json` annotations. */
  dir: string
  /** Per-call budget of the span prompts (default the diagnosis default, 16 000). */
  budgetTokens?: number
  policy?: PropagationPolicy
  /** Receives each trace's losses once its prediction is made. */
  onLosses?: (losses: OracleLoss[]) => void
}

/** As judge mode does by default (see {@link JudgePredictorOptions}): detector spans are judged too. */
const JUDGE_DETECTOR_SPANS = true

const ORACLE_ID = { id: 'oracle:gold', provider: 'oracle', model: 'gold' } as const

/**
 * Oracle mode: `diagnose` each trace exactly as judge mode does (same selection, prompts, budget,
 * detectors, propagation) with a scripted judge that answers each span call from the gold errors of that
 * span only: the first gold category whose evidence is in the prompt it was sent (or whose evidence is no
 * verbatim quote of the span, so visibility cannot be told) as the reply's category, every further such gold
 * error as an additional error with its own quote, and "none" otherwise. The agent-level calls
 * are answered with neutral scores and the prediction carries no trace scores. Every gold error missing
 * from the prediction is reported to `onLosses` with its reason.
 *
 * @example
 * const losses: OracleLoss[] = []
 * await runTrailBench({ dir, mode: 'oracle', predictor: oraclePredictor({ dir, onLosses: (l) => losses.push(...l) }) })
 */
export function oraclePredictor(options: OraclePredictorOptions): TrailPredictor {
  const budgetTokens = options.budgetTokens ?? DEFAULT_BUDGET_TOKENS
  return async (trace, ctx) => {
    const gold = await readGold(join(options.dir, TRAIL_SPLIT_DIRS[ctx.split].gold, `${ctx.traceId}.json`))
    const answered = new Map<string, Set<string>>()
    const losses: OracleLoss[] = []
    const loss = (e: GoldError, reason: OracleLossReason, detail: string) =>
      losses.push({ traceId: ctx.traceId, spanId: e.location, category: e.category, reason, detail })
    const steps = compactSteps(trace)
    const judge: Judge = {
      ...ORACLE_ID,
      async evaluate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
        const text = request.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
        if (request.metric !== 'span-diagnosis') return response(request.schema.parse(neutralAgentReply()) as T)
        if (!request.spanId)
          throw new Error(
            'oracle: a span-diagnosis request without spanId; the oracle cannot tell which span it judges',
          )
        const reply = spanReply(trace, request.spanId, text, gold, { budgetTokens, steps }, answered, loss)
        return response(request.schema.parse(reply) as T)
      },
    }
    const diagnosis = await diagnose(trace, {
      judge,
      budgetTokens,
      policy: options.policy,
      judgeDetectorSpans: JUDGE_DETECTOR_SPANS,
      signal: ctx.signal,
    })
    const prediction = diagnosisToPrediction(diagnosis)
    const predicted = new Set(prediction.errors.map((e) => `${e.location}\u0000${normalizeCategory(e.category)}`))
    const judged = new Set(
      diagnosis.spans.flatMap((s) => (s.verdicts.some((v) => v.metric === 'span.error_category') ? [s.spanId] : [])),
    )
    const selected = new Set(trace.find({ kind: ['llm', 'tool'] }).map((s) => s.id))
    const explained = new Set(diagnosis.findings.map((f) => f.spanId))
    const reported = new Set(losses.map((l) => `${l.spanId}\u0000${l.category}`))
    for (const e of gold) {
      const key = `${e.location}\u0000${e.category}`
      if (predicted.has(key) || reported.has(key)) continue
      reported.add(key)
      const span = trace.get(e.location)
      if (!span) loss(e, 'span not in trace', 'no span of the trace file has this id')
      else if (!(JUDGE_CATEGORIES as readonly string[]).includes(e.category))
        loss(e, 'category not offered to the judge', `"${e.category}" is not among the span reply's categories`)
      else if (answered.get(e.location)?.has(e.category))
        loss(e, 'lost after the judge', 'the oracle named it; propagation or the prediction dropped it')
      else if (judged.has(e.location))
        loss(
          e,
          'second category on the same evidence',
          'its quote is empty or the same passage as another gold error of this span, and a reply names one category per piece of evidence',
        )
      else if (!selected.has(e.location) || !explained.has(e.location))
        loss(
          e,
          'span not selected',
          `a ${span.kind} span${selected.has(e.location) ? ' with a selected descendant' : ''}; diagnosis judges LLM and TOOL leaves`,
        )
      else
        loss(
          e,
          'skipped: detector explained the span',
          `detector finding(s) ${[...new Set(diagnosis.findings.filter((f) => f.spanId === e.location).map((f) => `${f.detector} (${f.category})`))].join(', ')} kept the span from the judge`,
        )
    }
    options.onLosses?.(dedupe(losses))
    return { errors: prediction.errors, scores: [] }
  }
}

/**
 * The oracle's reply to one span call: the gold errors of the span whose evidence the prompt shows (or
 * cannot be checked: not a verbatim quote of the span) — the first as the category, the others as
 * additional errors with their own quotes — else "none". What the reply keeps of them is decided by the
 * same rule as for any judge (`additionalErrors`: one category per piece of evidence). Gold errors of the
 * span it cannot name are reported (truncated away; second category on the same evidence).
 */
function spanReply(
  trace: Trace,
  spanId: string,
  prompt: string,
  gold: readonly GoldError[],
  ctx: { budgetTokens: number; steps: ReturnType<typeof compactSteps> },
  answered: Map<string, Set<string>>,
  loss: (e: GoldError, reason: OracleLossReason, detail: string) => void,
): SpanJudgement {
  const here = gold.filter((e) => e.location === spanId && (JUDGE_CATEGORIES as readonly string[]).includes(e.category))
  const span = trace.get(spanId)
  let uncut: string | undefined
  const visible = here.filter((e) => {
    const quote = flat(e.evidence)
    if (quote === '' || flat(prompt).includes(quote)) return true
    uncut ??= span
      ? spanPrompt(trace, span, {
          system: SYSTEM,
          schema: SpanJudgementSchema,
          budgetTokens: Number.MAX_SAFE_INTEGER,
          steps: ctx.steps,
          contextSteps: 4,
        }).text
      : ''
    if (!flat(uncut).includes(quote)) return true // not a verbatim quote of what the span shows: cannot tell, so answer
    loss(
      e,
      'truncated away',
      `the evidence (${e.evidence.length} chars) is in the span's uncut prompt (${uncut.length} chars) but not in the ${prompt.length}-char prompt sent`,
    )
    return false
  })
  const [chosen, ...others] = visible
  if (!chosen) return reply('none', '')
  const answer = reply(chosen.category, chosen.evidence, others)
  answered.set(spanId, new Set([chosen.category, ...additionalErrors(answer).map((e) => e.category)]))
  return answer
}

function reply(category: string, evidence: string, others: readonly GoldError[] = []): SpanJudgement {
  const score = category === 'none' ? 5 : 1
  const aspect = { reason: 'oracle: from the gold annotation of this span', score }
  return {
    reasoning: 'oracle',
    instruction_following: aspect,
    reasoning_integrity: aspect,
    tool_completeness: aspect,
    error_category: category,
    evidence,
    additional_errors: others.map((e) => ({ category: e.category, evidence: e.evidence })),
  }
}

function neutralAgentReply() {
  const aspect = { reason: 'oracle: not scored', score: 5 }
  return {
    reasoning: 'oracle',
    plan_efficiency: aspect,
    tool_coverage: aspect,
    tool_abuse: aspect,
    completeness: aspect,
  }
}

function response<T>(output: T): JudgeResponse<T> {
  return {
    output,
    usage: { inputTokens: 0, outputTokens: 0 },
    latencyMs: 0,
    provider: ORACLE_ID.provider,
    model: ORACLE_ID.model,
    costUsd: null,
    cached: false,
    attempts: 1,
  }
}

const flat = (s: string) => s.replace(/\s+/g, ' ').trim()

function dedupe(losses: OracleLoss[]): OracleLoss[] {
  const seen = new Set<string>()
  return losses.filter((l) => {
    const key = `${l.spanId}\u0000${l.category}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The gold errors of one trace file, with categories normalized as the official scorer does. */
async function readGold(path: string): Promise<GoldError[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new Error(
      `oracle: no gold annotation at ${path} (${(err as Error).message}); oracle mode needs the TRAIL annotations beside the traces`,
    )
  }
  const parsed = pyJsonLoads(text) as { errors?: unknown }
  const errors = Array.isArray(parsed?.errors) ? parsed.errors : []
  return errors.flatMap((e) => {
    const r = e as Record<string, unknown>
    if (typeof r?.location !== 'string' || typeof r.category !== 'string') return []
    return [
      {
        category: normalizeCategory(r.category),
        location: r.location,
        evidence: typeof r.evidence === 'string' ? r.evidence : '',
      },
    ]
  })
}
