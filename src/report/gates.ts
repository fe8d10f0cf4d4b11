// Suite gates: limits on a whole run's verdicts that break it even when every test passed.
import * as z from 'zod'
import type { Report } from '../verdict/report'
import { assertionStatus, callsOf } from '../verdict/assertion'

const Rate = z.number().min(0).max(1)

/**
 * Limits over a run's report (reporter option `gates`, or `agent-verdict report gate`).
 *
 * - `minPassRate`: share of all verdicts that pass as asserted (`assertionStatus`: a verdict judged `fail`
 *   under a passing `.not` passes; unjudgeable counts as not passing);
 * - `maxUnjudgeable`: most verdicts allowed to be unjudgeable;
 * - `maxCostUsd`: most the judge calls actually made may cost (replays cost 0); broken when the cost is
 *   unknown: a model without a price, or a verdict whose token counts are unknown (`tokens.invalid`);
 * - `metrics`: per metric name, `minPassRate` and/or `minMeanScore` (mean of the 0..1 scores).
 */
export const GatesSchema = z
  .object({
    minPassRate: Rate.optional(),
    maxUnjudgeable: z.number().int().nonnegative().optional(),
    maxCostUsd: z.number().nonnegative().optional(),
    metrics: z
      .record(z.string().min(1), z.object({ minPassRate: Rate.optional(), minMeanScore: Rate.optional() }).strict())
      .optional(),
  })
  .strict()
export type Gates = z.infer<typeof GatesSchema>

/** One gate checked against a report. `measured` is null when the report cannot tell (e.g. unknown cost). */
export interface GateResult {
  gate: string
  measured: number | null
  limit: number
  ok: boolean
  /** One line: the gate, the measured value and the limit (and why, when it could not be measured). */
  line: string
}

const fmt = (n: number) => String(Math.round(n * 10_000) / 10_000)

/**
 * Checks every configured gate against `report`, in a fixed order (pass rate, unjudgeable, cost,
 * metrics by name). A metric gate on a metric with no verdicts is broken: a gate that measured
 * nothing must not read as green.
 *
 * @example
 * evaluateGates(report, { minPassRate: 0.9, maxUnjudgeable: 0 }).filter((g) => !g.ok)
 */
export function evaluateGates(report: Report, gates: Gates): GateResult[] {
  const verdicts = report.tests.flatMap((t) => t.verdicts)
  const results: GateResult[] = []
  // `holds` / `breaks`: the relation printed when the gate holds or breaks (≥ / <, ≤ / >).
  const check = (
    gate: string,
    measured: number | null,
    limit: number,
    ok: boolean,
    what: string,
    [holds, breaks]: [string, string],
  ) => {
    const value = measured === null ? 'unknown' : fmt(measured)
    results.push({
      gate,
      measured,
      limit,
      ok,
      line: `gate ${gate} ${ok ? 'ok' : 'broken'}: ${what} ${value} ${ok ? holds : breaks} ${fmt(limit)}`,
    })
  }
  if (gates.minPassRate !== undefined) {
    const passed = verdicts.filter((v) => assertionStatus(v) === 'pass').length
    const rate = verdicts.length === 0 ? null : passed / verdicts.length
    check(
      'minPassRate',
      rate,
      gates.minPassRate,
      rate !== null && rate >= gates.minPassRate,
      `pass rate (${passed}/${verdicts.length} verdicts)`,
      ['≥', '<'],
    )
  }
  if (gates.maxUnjudgeable !== undefined) {
    const n = report.run.totals.unjudgeable
    check('maxUnjudgeable', n, gates.maxUnjudgeable, n <= gates.maxUnjudgeable, 'unjudgeable verdicts', ['≤', '>'])
  }
  if (gates.maxCostUsd !== undefined) {
    // Unknown counts are read from the verdicts, not only the totals, so a report's totals cannot hide them.
    const unknown = verdicts.filter((v) => v.judge?.tokens.invalid && callsOf(v.judge).made > 0)
    // null = the cost is unknown (no price, or unknown counts): the limit cannot be shown to hold, so it does not.
    const cost = unknown.length > 0 ? null : report.run.totals.costUsd
    check('maxCostUsd', cost, gates.maxCostUsd, cost !== null && cost <= gates.maxCostUsd, 'judge cost USD', ['≤', '>'])
    if (unknown.length > 0)
      results[results.length - 1].line +=
        ` (${unknown.length} verdict(s) have unknown token counts, e.g. ${unknown[0].metric}: ${unknown[0].judge?.tokens.invalid}; fix the judge server's usage or drop this gate)`
    else if (cost === null)
      results[results.length - 1].line +=
        ' (the judge model has no known price: add it to the price table or drop this gate)'
  }
  for (const [metric, limits] of Object.entries(gates.metrics ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const mine = verdicts.filter((v) => v.metric === metric)
    if (limits.minPassRate !== undefined) {
      const passed = mine.filter((v) => assertionStatus(v) === 'pass').length
      const rate = mine.length === 0 ? null : passed / mine.length
      check(
        `metrics.${metric}.minPassRate`,
        rate,
        limits.minPassRate,
        rate !== null && rate >= limits.minPassRate,
        `${metric} pass rate (${passed}/${mine.length} verdicts)`,
        ['≥', '<'],
      )
    }
    if (limits.minMeanScore !== undefined) {
      const scores = mine.map((v) => v.score).filter((s): s is number => s !== null)
      const mean = scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length
      check(
        `metrics.${metric}.minMeanScore`,
        mean,
        limits.minMeanScore,
        mean !== null && mean >= limits.minMeanScore,
        `${metric} mean score (${scores.length} scored verdicts)`,
        ['≥', '<'],
      )
    }
    if (mine.length === 0)
      results[results.length - 1].line +=
        ` (no verdict of metric "${metric}" in this run: check the name or that its tests ran)`
  }
  return results
}

/**
 * Validates gate settings; an unknown key or a wrong type throws, naming it.
 *
 * @example
 * parseGates({ minPassRate: 0.9, metrics: { faithfulness: { minMeanScore: 0.7 } } })
 */
export function parseGates(value: unknown, where = 'gates'): Gates {
  const parsed = GatesSchema.safeParse(value ?? {})
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new Error(
    `agent-verdict: invalid ${where}${issue.path.length ? '.' + issue.path.join('.') : ''}: ${issue.message}. ` +
      'Valid gates: minPassRate (0..1), maxUnjudgeable (integer ≥ 0), maxCostUsd (≥ 0), metrics: { <metric>: { minPassRate?, minMeanScore? } } (0..1).',
  )
}
