// The judge passes of `agent-verdict diagnose`: progress on stderr, the result as text, the cost line.
import { diagnose } from '../diagnosis/diagnose'
import { formatFailingLeaf, metricLabel } from '../diagnosis/format'
import { describePolicy } from '../diagnosis/propagate'
import { isErrorCategory } from '../taxonomy'
import type { DiagnoseOptions, Diagnosis } from '../diagnosis/types'
import type { Finding } from '../metrics/detectors/finding'
import { MAX_EVIDENCE_CHARS } from '../metrics/detectors/finding'
import type { Trace } from '../trace/trace'

/** A stream the progress goes to. */
export interface ProgressStream {
  write(chunk: string): unknown
  isTTY?: boolean
}

/** Progress lines on a non-terminal: about this many per trace, so logs stay short. */
const PROGRESS_LINES = 10

/**
 * Diagnoses one trace with the judge, writing `judged 37/120 spans…` to `stderr` (one updating line on
 * a terminal, about ten lines per trace otherwise).
 *
 * @example
 * const d = await diagnoseWithProgress(trace, { judge }, process.stderr, 'trace 1/3: ')
 */
export async function diagnoseWithProgress(
  trace: Trace,
  options: Omit<DiagnoseOptions, 'onProgress'>,
  stderr: ProgressStream,
  label = '',
): Promise<Diagnosis> {
  const tty = stderr.isTTY === true
  let lastStep = -1
  const result = await diagnose(trace, {
    ...options,
    onProgress: ({ phase, done, total }) => {
      const what = phase === 'spans' ? `judged ${done}/${total} spans…` : `agent-level pass ${done}/${total}…`
      if (tty) {
        stderr.write(`\r\u001b[2K${label}${what}`)
        return
      }
      const step = Math.floor((done * PROGRESS_LINES) / Math.max(1, total))
      if (phase === 'agent' || step !== lastStep || done === total) stderr.write(`${label}${what}\n`)
      if (phase === 'spans') lastStep = step
    },
  })
  if (tty) stderr.write('\r\u001b[2K')
  return result
}

/**
 * Judge failures with a TRAIL category as findings, so the span tree marks them like detector findings.
 *
 * @example
 * renderTraceTree(trace, [...findings, ...judgeMarks(diagnosis)])
 */
export function judgeMarks(d: Diagnosis): Finding[] {
  const marks: Finding[] = []
  for (const s of d.spans) {
    for (const v of s.verdicts) {
      if (v.outcome !== 'fail' || v.metric.startsWith('detector:') || !isErrorCategory(v.category)) continue
      marks.push({
        spanId: s.spanId,
        category: v.category,
        detector: 'judge',
        evidence: (v.evidence ?? '').slice(0, MAX_EVIDENCE_CHARS),
        reason: `(judge) ${v.reason}`,
      })
    }
  }
  return marks
}

/**
 * What the judge found in one trace, after its tree: failing leaves, unjudgeable spans, agent-level
 * verdicts and the trace verdict.
 *
 * @example
 * process.stdout.write(renderJudgeSummary(diagnosis))
 */
export function renderJudgeSummary(d: Diagnosis): string {
  const out: string[] = []
  if (d.failingLeaves.length > 0) {
    out.push(`  failing spans (policy ${describePolicy(d.policy)}):`)
    for (const leaf of d.failingLeaves) out.push(`    ✗ ${formatFailingLeaf(leaf)}`)
  }
  const unjudgeable = d.spans.filter((s) => s.own === 'unjudgeable')
  for (const s of unjudgeable)
    out.push(
      `    ? ${s.kind}:${s.name} (id ${s.spanId}) unjudgeable: ${(s.verdicts.find((v) => v.outcome === 'unjudgeable')?.reason ?? '').replace(/^unjudgeable: /, '')}`,
    )
  for (const v of d.agent.verdicts) {
    const figure =
      v.scale === 'likert5' && typeof v.raw === 'number'
        ? ` ${v.raw}/5`
        : v.score !== null
          ? ` ${v.score.toFixed(2)}`
          : ''
    const mark = v.outcome === 'pass' ? '✓' : v.outcome === 'fail' ? '✗' : '?'
    out.push(`  ${mark} ${metricLabel(v.metric)}${figure}: ${v.reason}`)
  }
  out.push(`  verdict: ${d.verdict.outcome} — ${d.verdict.reason}`)
  return `${out.join('\n')}\n`
}

/**
 * One cost line over all diagnosed traces: calls made and replayed, tokens, cost (or n/a when no price
 * is known), the largest prompt sent and the budget.
 *
 * @example
 * costLine(diagnoses) // 'judge openai:gpt-4.1: 37 calls (12 replayed), 301,220 tokens (298,400 in / 2,820 out), cost $0.6123; largest prompt 15,932 tokens (budget 16,000)'
 */
export function costLine(diagnoses: readonly Diagnosis[]): string {
  const n = (x: number) => x.toLocaleString('en-US')
  const sum = (f: (d: Diagnosis) => number) => diagnoses.reduce((a, d) => a + f(d), 0)
  const input = sum((d) => d.stats.tokens.input)
  const output = sum((d) => d.stats.tokens.output)
  const costs = diagnoses.map((d) => d.stats.costUsd).filter((c): c is number => c !== null)
  const cost = costs.length > 0 ? `$${costs.reduce((a, c) => a + c, 0).toFixed(4)}` : 'n/a'
  const judge = diagnoses.find((d) => d.judge)?.judge ?? 'none'
  const unjudgeable = sum((d) => d.stats.unjudgeable)
  const maxPrompt = Math.max(0, ...diagnoses.map((d) => d.stats.maxPromptTokens))
  const budget = diagnoses[0]?.stats.budgetTokens ?? 0
  return `judge ${judge}: ${n(sum((d) => d.stats.judgeCalls))} calls (${n(sum((d) => d.stats.cachedCalls))} replayed${unjudgeable ? `, ${n(unjudgeable)} unjudgeable` : ''}), ${n(input + output)} tokens (${n(input)} in / ${n(output)} out), cost ${cost}; largest prompt ${n(maxPrompt)} tokens (budget ${n(budget)})`
}
