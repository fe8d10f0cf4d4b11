// Judge calibration: run a metric over human-labelled cases and measure how far the judge agrees.
import type { Judge } from '../judges/types'
import { correctnessMetric } from '../metrics/correctness'
import { faithfulnessMetric } from '../metrics/faithfulness'
import { instructionFollowingMetric } from '../metrics/instruction-following'
import type { MetricDefinition } from '../metrics/metric'
import { qualityMetric } from '../metrics/quality'
import { runMetric } from '../metrics/run-metric'
import {
  agreement,
  cohenKappa,
  confusionMatrix,
  quadraticWeightedKappa,
  type ConfusionMatrix,
} from '../stats/agreement'
import { spearman } from '../stats/rank'
import type { LabelledCase, LabelledFile } from './labelled'

type AnyMetric = MetricDefinition<{ output: string }, { reasoning: string; score: number }>

// A label key (snake or kebab case) → the metric and how a case becomes its input. Instruction
// Following never gets the reference (it distracts the judge from structural constraints).
const METRICS: Record<string, { metric: AnyMetric; input(c: LabelledCase): { output: string } }> = {
  correctness: {
    metric: correctnessMetric as unknown as AnyMetric,
    input: (c) => ({ output: c.response, input: c.instruction, reference: c.reference, image: c.image }),
  },
  faithfulness: {
    metric: faithfulnessMetric as unknown as AnyMetric,
    input: (c) => ({ output: c.response, context: c.context, image: c.image, instruction: c.instruction }),
  },
  'instruction-following': {
    metric: instructionFollowingMetric as unknown as AnyMetric,
    input: (c) => ({ output: c.response, instruction: c.instruction ?? '' }),
  },
  quality: {
    metric: qualityMetric as unknown as AnyMetric,
    input: (c) => ({
      output: c.response,
      instruction: c.instruction,
      reference: c.reference,
      context: c.context,
      image: c.image,
    }),
  },
}

/** Metric names `calibrate` can run (label keys may use `_` for `-`). */
export const CALIBRATION_METRICS = Object.keys(METRICS)

const metricOf = (label: string) => label.replace(/_/g, '-')

/** A case where the judge and the human label differ, with the judge's reason. */
export interface Disagreement {
  id: string
  label: number
  judge: number
  reason: string
}

/** Agreement of the judge with the labels for one metric. */
export interface MetricCalibration {
  metric: string
  scale: 'binary' | 'likert5'
  /** Cases with a label for this metric and a verdict. */
  n: number
  /** Share of cases where judge and label are equal. */
  agreement: number
  /** Cohen's κ (binary metrics). */
  kappa?: number
  /** Quadratic-weighted κ and Spearman ρ (1–5 metrics). */
  weightedKappa?: number
  spearman?: number
  /** Rows: human label; columns: judge (categories 0, 1 or 1..5). */
  confusion: ConfusionMatrix<number>
  disagreements: Disagreement[]
  unjudgeable: Array<{ id: string; reason: string }>
  judgeCalls: number
  cachedCalls: number
}

/** Options of {@link calibrate}. */
export interface CalibrateOptions {
  judge: Judge
  /** Metrics to run (default: every metric some case has a label for). */
  metrics?: string[]
  /** How many judge calls at once (default 4). */
  concurrency?: number
}

function labelValue(c: LabelledCase, key: string, scale: 'binary' | 'likert5'): number {
  const v = c.labels[key]
  const n = typeof v === 'boolean' ? (v ? 1 : 0) : v
  const ok = scale === 'binary' ? n === 0 || n === 1 : Number.isInteger(n) && n >= 1 && n <= 5
  if (!ok)
    throw new Error(
      `agent-verdict calibrate: case "${c.id}" has ${key} = ${String(v)}; ${scale === 'binary' ? 'a binary label is 1 (pass) or 0 (fail)' : 'a quality label is an integer 1–5'}`,
    )
  return n
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i])
      }
    }),
  )
  return out
}

/**
 * Runs each metric over the cases that carry its label and compares the judge with the people:
 * agreement, Cohen's κ (binary), quadratic-weighted κ and Spearman ρ (1–5), the confusion matrix and
 * the disagreeing cases with the judge's reasons. Pass a cassette-wrapped judge to replay a second run.
 *
 * @example
 * const results = await calibrate(await readLabelledFile('cases.json'), { judge: withCassette(judge, { file: 'cases.verdicts.json' }) })
 * results[0].kappa
 */
export async function calibrate(file: LabelledFile, options: CalibrateOptions): Promise<MetricCalibration[]> {
  const labelKeys = [...new Set(file.cases.flatMap((c) => Object.keys(c.labels)))]
  const wanted = options.metrics?.map(metricOf) ?? labelKeys.map(metricOf).filter((m) => m in METRICS)
  for (const m of wanted) {
    if (!(m in METRICS))
      throw new Error(`agent-verdict calibrate: unknown metric "${m}"; choose from ${CALIBRATION_METRICS.join(', ')}`)
  }
  if (wanted.length === 0)
    throw new Error(
      `agent-verdict calibrate: no case has a label for a known metric (${CALIBRATION_METRICS.join(', ')})`,
    )
  const results: MetricCalibration[] = []
  for (const name of [...new Set(wanted)]) {
    const { metric, input } = METRICS[name]
    const scale = metric.scale === 'binary' ? 'binary' : 'likert5'
    const labelled = file.cases.flatMap((c) => {
      const key = Object.keys(c.labels).find((k) => metricOf(k) === name)
      return key === undefined ? [] : [{ c, label: labelValue(c, key, scale) }]
    })
    if (labelled.length === 0) throw new Error(`agent-verdict calibrate: no case has a "${name}" label`)
    const verdicts = await mapLimit(labelled, options.concurrency ?? 4, ({ c }) =>
      runMetric(metric, input(c), { judge: options.judge }),
    )
    const labels: number[] = []
    const judged: number[] = []
    const disagreements: Disagreement[] = []
    const unjudgeable: MetricCalibration['unjudgeable'] = []
    verdicts.forEach((v, i) => {
      const { c, label } = labelled[i]
      if (v.outcome === 'unjudgeable' || typeof v.raw !== 'number') {
        unjudgeable.push({ id: c.id, reason: v.reason })
        return
      }
      labels.push(label)
      judged.push(v.raw)
      if (v.raw !== label) disagreements.push({ id: c.id, label, judge: v.raw, reason: v.reason })
    })
    const categories = scale === 'binary' ? [0, 1] : [1, 2, 3, 4, 5]
    const confusion = confusionMatrix(labels, judged, categories) as ConfusionMatrix<number>
    disagreements.sort((a, b) => Math.abs(b.judge - b.label) - Math.abs(a.judge - a.label))
    results.push({
      metric: name,
      scale,
      n: labels.length,
      agreement: agreement(confusion),
      ...(scale === 'binary'
        ? { kappa: cohenKappa(confusion) }
        : { weightedKappa: quadraticWeightedKappa(confusion), spearman: spearman(labels, judged) }),
      confusion,
      disagreements,
      unjudgeable,
      judgeCalls: verdicts.filter((v) => v.judge && !v.judge.cached).length,
      cachedCalls: verdicts.filter((v) => v.judge?.cached).length,
    })
  }
  return results
}
