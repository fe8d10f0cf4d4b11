// `agent-verdict diagnose --otlp <endpoint|file>`: the diagnoses as the report schema, exported as
// gen_ai.evaluation.result events beside the spans they judge (decision 0026).
import type { Diagnosis } from '../diagnosis/types'
import { reportTraceOf, verdictsOfDiagnosis } from '../diagnosis/report-trace'
import { scrubDeep } from '../config/secrets'
import { exportOtlp, type OtlpTarget } from '../report/otlp-export'
import { REPORT_SCHEMA_VERSION, ReportSchema, type Report } from '../verdict/report'
import { computeTotals } from '../report/artifact'

/**
 * The diagnosed traces as a report: one "test" per trace (its file and trace id), with its span and
 * agent verdicts and its span tree, so the OTLP renderer parents each verdict to its span.
 *
 * @example
 * reportOfDiagnoses([{ source: 'runs/a.json', diagnosis }], new Date())
 */
export function reportOfDiagnoses(
  items: ReadonlyArray<{ source: string; diagnosis: Diagnosis }>,
  startedAt: Date,
): Report {
  const tests = items.map(({ source, diagnosis }) => ({
    file: source,
    name: `trace ${diagnosis.traceId}`,
    state: diagnosis.verdict.pass ? ('pass' as const) : ('fail' as const),
    verdicts: verdictsOfDiagnosis(diagnosis),
    traces: [reportTraceOf(diagnosis)],
  }))
  return ReportSchema.parse({
    schemaVersion: REPORT_SCHEMA_VERSION,
    run: {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      judge: null,
      mode: 'diagnose',
      // The one set of totals every report shows (judge calls and tokens as the verdicts recorded them).
      totals: computeTotals(tests),
    },
    tests,
  })
}

/**
 * `--otlp` value → target: an http(s) URL is an OTLP/HTTP endpoint, anything else a file of OTLP JSON lines.
 *
 * @example
 * otlpTargetOf('http://localhost:4318') // { endpoint: 'http://localhost:4318' }
 */
export function otlpTargetOf(value: string): OtlpTarget {
  return /^https?:\/\//i.test(value.trim()) ? { endpoint: value.trim() } : { file: value }
}

/** Exports the diagnoses (scrubbed) and returns where they went. */
export async function exportDiagnoses(
  items: ReadonlyArray<{ source: string; diagnosis: Diagnosis }>,
  value: string,
  startedAt: Date,
): Promise<string> {
  return exportOtlp(scrubDeep(reportOfDiagnoses(items, startedAt)), otlpTargetOf(value))
}
