// TRAIL judge mode: the span-level diagnosis as TRAIL predictions (+ agent-level scores).
import { diagnose } from '../diagnosis/diagnose'
import type { Diagnosis, PropagationPolicy } from '../diagnosis/types'
import type { Judge } from '../judges/types'
import type { Verdict } from '../verdict/verdict'
import type { TrailPrediction, TrailPredictedError, TrailPredictor, TrailScoreSet } from './trail-prediction'

/** Options of {@link judgePredictor}. */
export interface JudgePredictorOptions {
  budgetTokens?: number
  policy?: PropagationPolicy
  /**
   * Also judge spans a detector already explained (default true here): a detector names one category,
   * and the oracle ceiling showed that skipping those spans hid 143 of 372 GAIA gold errors (joint 0.546
   * instead of 0.716 with a perfect judge).
   */
  judgeDetectorSpans?: boolean
}

/**
 * Judge mode: `diagnose` each trace with the judge and predict every failing (span, category) pair —
 * detector findings and judge categories alike (a failure with no category has no TRAIL label and is
 * left out). Spans a detector explained are judged too, unless `judgeDetectorSpans: false`. Scores come from the agent-level metrics (see {@link trailScores}).
 *
 * @example
 * await runTrailBench({ dir, mode: 'judge', predictor: judgePredictor(judge) })
 */
export function judgePredictor(judge: Judge, options: JudgePredictorOptions = {}): TrailPredictor {
  const judgeDetectorSpans = options.judgeDetectorSpans ?? true
  return async (trace, ctx) =>
    diagnosisToPrediction(
      await diagnose(trace, {
        judge,
        budgetTokens: options.budgetTokens,
        policy: options.policy,
        judgeDetectorSpans,
        signal: ctx.signal,
      }),
    )
}

const DETECTOR_IMPACT = { high: 'HIGH', medium: 'MEDIUM', low: 'LOW' } as const

/**
 * A diagnosis as a TRAIL prediction: one error per failing (span, category), in depth-first order.
 * Impact: detectors keep their severity (MEDIUM when none); judge errors are HIGH when an aspect
 * scored 1, MEDIUM at 2, LOW otherwise.
 *
 * @example
 * diagnosisToPrediction(await diagnose(trace, { judge })).errors[0].location // a span id of the trace
 */
export function diagnosisToPrediction(d: Diagnosis): TrailPrediction {
  const errors: TrailPredictedError[] = []
  for (const span of d.spans) {
    const seen = new Set<string>()
    const lowest = Math.min(
      5,
      ...span.verdicts.filter((v) => v.scale === 'likert5' && typeof v.raw === 'number').map((v) => v.raw as number),
    )
    for (const v of span.verdicts) {
      if (v.outcome !== 'fail' || !v.category || seen.has(v.category)) continue
      seen.add(v.category)
      const detector = v.metric.startsWith('detector:')
      const finding = detector
        ? d.findings.find((f) => f.spanId === span.spanId && f.category === v.category)
        : undefined
      errors.push({
        category: v.category,
        location: span.spanId,
        evidence: v.evidence ?? '',
        description: `${v.reason} [${v.metric}]`,
        impact: detector
          ? DETECTOR_IMPACT[finding?.severity ?? 'medium']
          : lowest <= 1
            ? 'HIGH'
            : lowest === 2
              ? 'MEDIUM'
              : 'LOW',
      })
    }
  }
  const scores = trailScores(d)
  return { errors, scores: scores ? [scores] : [] }
}

/**
 * TRAIL's trace scores from the agent-level judge verdicts, when they ran: reliability ← completeness,
 * instruction adherence ← median instruction-following score of the judged spans, plan optimality ←
 * plan efficiency, security ← 5 (not assessed: we have no security metric, and 5 means no issue found),
 * overall ← the mean of the four, as in TRAIL's gold. Undefined without judge verdicts.
 *
 * @example
 * trailScores(diagnosis)?.plan_opt_score // 2
 */
export function trailScores(d: Diagnosis): TrailScoreSet | undefined {
  const agent = (metric: string): Verdict | undefined =>
    d.agent.verdicts.find((v) => v.metric === metric && v.scale === 'likert5' && typeof v.raw === 'number')
  const completeness = agent('agent.completeness')
  const plan = agent('agent.plan_efficiency')
  const following = d.spans
    .flatMap((s) =>
      s.verdicts
        .filter((v) => v.metric === 'span.instruction_following' && typeof v.raw === 'number')
        .map((v) => v.raw as number),
    )
    .sort((a, b) => a - b)
  if (!completeness || !plan || following.length === 0) return undefined
  const adherence = following[Math.floor((following.length - 1) / 2)]
  const reliability = completeness.raw as number
  const planScore = plan.raw as number
  return {
    reliability_score: reliability,
    reliability_reasoning: `completeness: ${completeness.reason}`,
    security_score: 5,
    security_reasoning: 'not assessed (no security metric); 5 = no issue found',
    instruction_adherence_score: adherence,
    instruction_adherence_reasoning: `median instruction-following score over ${following.length} judged spans`,
    plan_opt_score: planScore,
    plan_opt_reasoning: `plan efficiency: ${plan.reason}`,
    overall: Math.round(((reliability + 5 + adherence + planScore) / 4) * 100) / 100,
  }
}
