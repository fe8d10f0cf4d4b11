// Verdicts as OpenTelemetry `gen_ai.evaluation.result` events: a pure renderer over the report
// schema to OTLP/JSON (logs, or span events for trace-only backends). Decision 0026.
import { createHash } from 'node:crypto'
import type { Report, ReportTest, ReportTrace } from '../verdict/report'
import type { Verdict } from '../verdict/verdict'

export const EVALUATION_EVENT = 'gen_ai.evaluation.result'

/** An OTLP/JSON attribute value (the subset used here). */
export type OtlpAnyValue = { stringValue: string } | { doubleValue: number } | { boolValue: boolean }
export interface OtlpKeyValue {
  key: string
  value: OtlpAnyValue
}

/** One verdict as an evaluation event: where it attaches and what it says. */
export interface EvaluationRecord {
  /** Trace and span the event is parented to: the judged span, or the test's own span. */
  traceId: string
  spanId: string
  timeUnixNano: string
  attributes: OtlpKeyValue[]
  /** The report's test this verdict belongs to. */
  test: { file: string; name: string }
  verdictId?: string
}

/** A span created for a test that has none in the report: output-level verdicts hang under it. */
export interface TestSpan {
  traceId: string
  spanId: string
  name: string
  startTimeUnixNano: string
  endTimeUnixNano: string
  failed: boolean
  attributes: OtlpKeyValue[]
}

export interface OtlpLogsRequest {
  resourceLogs: Array<{
    resource: { attributes: OtlpKeyValue[]; droppedAttributesCount: number }
    scopeLogs: Array<{
      scope: { name: string }
      logRecords: Array<{
        timeUnixNano: string
        observedTimeUnixNano: string
        severityNumber: number
        severityText: string
        eventName: string
        body: { stringValue: string }
        attributes: OtlpKeyValue[]
        droppedAttributesCount: number
        traceId: string
        spanId: string
        flags: number
      }>
    }>
  }>
}

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: OtlpKeyValue[]
  droppedAttributesCount: number
  events: Array<{ timeUnixNano: string; name: string; attributes: OtlpKeyValue[]; droppedAttributesCount: number }>
  droppedEventsCount: number
  links: never[]
  droppedLinksCount: number
  status: { code: number; message?: string }
}

export interface OtlpTracesRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[]; droppedAttributesCount: number }
    scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>
  }>
}

/** `logs` (default): OTLP log records; `span-events`: events on spans, for backends that only read traces. */
export type OtlpEventsAs = 'logs' | 'span-events'

const SCOPE = { name: 'agent-verdict' }
const RESOURCE = { attributes: [str('service.name', 'agent-verdict')], droppedAttributesCount: 0 }
const TRACE_ID = /^[0-9a-f]{32}$/
const SPAN_ID = /^[0-9a-f]{16}$/
const ZERO_TRACE = '0'.repeat(32)
const ZERO_SPAN = '0'.repeat(16)
// Log severities of the OTel log data model.
const SEVERITY = { INFO: 9, WARN: 13, ERROR: 17 }

function str(key: string, value: string): OtlpKeyValue {
  return { key, value: { stringValue: value } }
}

function num(key: string, value: number): OtlpKeyValue {
  return { key, value: { doubleValue: value } }
}

function hex(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest('hex').slice(0, length)
  // An all-zero id is invalid in OTLP; a sha256 prefix of zeros is astronomically unlikely, but stay valid.
  return /^0+$/.test(digest) ? `1${digest.slice(1)}` : digest
}

function nanos(ms: number): string {
  return (BigInt(Math.round(ms)) * 1_000_000n).toString()
}

/** OTLP ids are lowercase hex; readers may keep other spellings (upper case, `0x` prefix). */
function normalizeId(id: string): string {
  return id.trim().toLowerCase().replace(/^0x/, '')
}

function validTraceId(id: string): boolean {
  return TRACE_ID.test(id) && id !== ZERO_TRACE
}

function validSpanId(id: string): boolean {
  return SPAN_ID.test(id) && id !== ZERO_SPAN
}

/**
 * The test's own span: a deterministic trace and span id from the run start, file and test name, so
 * rendering the same report twice gives the same ids (and a re-export does not duplicate the test).
 */
export function testSpanOf(report: Report, test: ReportTest): TestSpan {
  const seed = `${report.run.startedAt}\u0000${test.file}\u0000${test.name}`
  const start = Date.parse(report.run.startedAt)
  const startMs = Number.isFinite(start) ? start : 0
  return {
    traceId: hex(`${seed}\u0000trace`, 32),
    spanId: hex(`${seed}\u0000span`, 16),
    name: `test ${test.name}`,
    startTimeUnixNano: nanos(startMs),
    endTimeUnixNano: nanos(startMs + (test.durationMs ?? 0)),
    failed: test.state === 'fail',
    attributes: [
      str('test.case.name', test.name),
      str('code.file.path', test.file),
      str('test.case.result.status', test.state),
    ],
  }
}

/** Where a span verdict's span lives: its trace id and normalized span id, when both are valid OTLP ids. */
function judgedSpan(
  traces: readonly ReportTrace[] | undefined,
  spanId: string,
): { traceId: string; spanId: string } | undefined {
  for (const trace of traces ?? []) {
    if (!trace.spans.some((s) => s.id === spanId)) continue
    const ids = { traceId: normalizeId(trace.id), spanId: normalizeId(spanId) }
    return validTraceId(ids.traceId) && validSpanId(ids.spanId) ? ids : undefined
  }
  return undefined
}

/** An agent-level verdict judges the whole run: its root span, when the test holds exactly one trace with one root. */
function rootSpan(traces: readonly ReportTrace[] | undefined): { traceId: string; spanId: string } | undefined {
  if (traces?.length !== 1) return undefined
  const roots = traces[0].spans.filter((s) => s.parentId === null || !traces[0].spans.some((p) => p.id === s.parentId))
  return roots.length === 1 ? judgedSpan(traces, roots[0].id) : undefined
}

/**
 * The `gen_ai.evaluation.result` attributes of one verdict (OTel GenAI semantic conventions), plus
 * agent-verdict's own under `agent_verdict.*`. The score is the normalized one (0..1) the threshold
 * applies to; the judge's own value is `agent_verdict.score.raw`.
 *
 * @example
 * evaluationAttributes(verdict) // [{ key: 'gen_ai.evaluation.name', value: { stringValue: 'faithfulness' } }, …]
 */
export function evaluationAttributes(verdict: Verdict): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [str('gen_ai.evaluation.name', verdict.metric)]
  if (verdict.score !== null) out.push(num('gen_ai.evaluation.score.value', verdict.score))
  out.push(str('gen_ai.evaluation.score.label', verdict.outcome))
  out.push(str('gen_ai.evaluation.explanation', verdict.reason))
  if (verdict.outcome === 'unjudgeable') out.push(str('error.type', 'unjudgeable'))
  out.push(str('agent_verdict.level', verdict.level), num('agent_verdict.threshold', verdict.threshold), {
    key: 'agent_verdict.pass',
    value: { boolValue: verdict.pass },
  })
  if (typeof verdict.raw === 'number') out.push(num('agent_verdict.score.raw', verdict.raw))
  if (verdict.category) out.push(str('agent_verdict.category', verdict.category))
  if (verdict.spanId) out.push(str('agent_verdict.span.id', verdict.spanId))
  if (verdict.id) out.push(str('agent_verdict.verdict.id', verdict.id))
  if (verdict.judge) out.push(str('agent_verdict.judge', `${verdict.judge.provider}:${verdict.judge.model}`))
  return out
}

/**
 * Every verdict of the report as an evaluation record, parented to the span it judges (span
 * verdicts, with the original trace's ids), to the run's root span (agent verdicts) or to the test's
 * own span (output verdicts, and any verdict whose span ids are not valid OTLP ids). Also returns the
 * test spans that records point to, which the exporter must send as well.
 *
 * @example
 * const { records, testSpans } = evaluationRecords(report)
 */
export function evaluationRecords(report: Report): { records: EvaluationRecord[]; testSpans: TestSpan[] } {
  const records: EvaluationRecord[] = []
  const testSpans: TestSpan[] = []
  for (const test of report.tests) {
    if (test.verdicts.length === 0) continue
    const own = testSpanOf(report, test)
    let usesOwn = false
    for (const verdict of test.verdicts) {
      const target =
        (verdict.level === 'span' && verdict.spanId ? judgedSpan(test.traces, verdict.spanId) : undefined) ??
        (verdict.level === 'agent' ? rootSpan(test.traces) : undefined)
      if (!target) usesOwn = true
      const parent = target ?? own
      records.push({
        traceId: parent.traceId,
        spanId: parent.spanId,
        timeUnixNano: own.endTimeUnixNano,
        attributes: [
          ...evaluationAttributes(verdict),
          str('test.case.name', test.name),
          str('code.file.path', test.file),
        ],
        test: { file: test.file, name: test.name },
        ...(verdict.id ? { verdictId: verdict.id } : {}),
      })
    }
    if (usesOwn) testSpans.push(own)
  }
  return { records, testSpans }
}

function severityOf(record: EvaluationRecord): { severityNumber: number; severityText: string } {
  const label = record.attributes.find((a) => a.key === 'gen_ai.evaluation.score.label')?.value
  const outcome = label && 'stringValue' in label ? label.stringValue : 'pass'
  if (outcome === 'fail') return { severityNumber: SEVERITY.ERROR, severityText: 'ERROR' }
  if (outcome === 'unjudgeable') return { severityNumber: SEVERITY.WARN, severityText: 'WARN' }
  return { severityNumber: SEVERITY.INFO, severityText: 'INFO' }
}

/** The one-line body of a record, for log views that show only the body. */
function bodyOf(record: EvaluationRecord): string {
  const get = (key: string) => {
    const v = record.attributes.find((a) => a.key === key)?.value
    return v ? ('stringValue' in v ? v.stringValue : 'doubleValue' in v ? String(v.doubleValue) : '') : ''
  }
  return `${get('gen_ai.evaluation.name')}: ${get('gen_ai.evaluation.score.label')} — ${get('gen_ai.evaluation.explanation')}`
}

/** The severity and body a record carries as a log record. */
export function logFieldsOf(record: EvaluationRecord): { severityNumber: number; severityText: string; body: string } {
  return { ...severityOf(record), body: bodyOf(record) }
}

/**
 * The test spans as an OTLP/JSON `ExportTraceServiceRequest` (in `span-events` mode also the evaluation
 * events: on the test span itself, or on one `gen_ai.evaluation <metric>` child span per verdict under
 * the judged span, since a span already exported cannot be given new events).
 *
 * @example
 * renderOtlpTraces(report, 'span-events').resourceSpans[0].scopeSpans[0].spans
 */
export function renderOtlpTraces(report: Report, as: OtlpEventsAs = 'logs'): OtlpTracesRequest {
  const { records, testSpans } = evaluationRecords(report)
  const spans: OtlpSpan[] = testSpans.map((t) => ({
    traceId: t.traceId,
    spanId: t.spanId,
    name: t.name,
    kind: 1, // INTERNAL
    startTimeUnixNano: t.startTimeUnixNano,
    endTimeUnixNano: t.endTimeUnixNano,
    attributes: t.attributes,
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: t.failed ? { code: 2, message: 'test failed' } : { code: 1 },
  }))
  if (as === 'span-events') {
    const own = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]))
    records.forEach((r, i) => {
      const event = {
        timeUnixNano: r.timeUnixNano,
        name: EVALUATION_EVENT,
        attributes: r.attributes,
        droppedAttributesCount: 0,
      }
      const testSpan = own.get(`${r.traceId}/${r.spanId}`)
      if (testSpan) {
        testSpan.events.push(event)
        return
      }
      const metric = r.attributes.find((a) => a.key === 'gen_ai.evaluation.name')?.value
      spans.push({
        traceId: r.traceId,
        spanId: hex(
          `${report.run.startedAt}\u0000${r.test.file}\u0000${r.test.name}\u0000${r.verdictId ?? i}\u0000evaluation`,
          16,
        ),
        parentSpanId: r.spanId,
        name: `gen_ai.evaluation ${metric && 'stringValue' in metric ? metric.stringValue : ''}`.trim(),
        kind: 1,
        startTimeUnixNano: r.timeUnixNano,
        endTimeUnixNano: r.timeUnixNano,
        attributes: [],
        droppedAttributesCount: 0,
        events: [event],
        droppedEventsCount: 0,
        links: [],
        droppedLinksCount: 0,
        status: { code: 0 },
      })
    })
  }
  return { resourceSpans: spans.length ? [{ resource: RESOURCE, scopeSpans: [{ scope: SCOPE, spans }] }] : [] }
}

/**
 * The verdicts as an OTLP/JSON `ExportLogsServiceRequest`: one `gen_ai.evaluation.result` log record
 * per verdict, carrying the trace and span id it is parented to.
 *
 * @example
 * renderOtlpLogs(report).resourceLogs[0].scopeLogs[0].logRecords.length === report.run.totals.verdicts
 */
export function renderOtlpLogs(report: Report): OtlpLogsRequest {
  const { records } = evaluationRecords(report)
  const logRecords = records.map((r) => {
    const { severityNumber, severityText, body } = logFieldsOf(r)
    return {
      timeUnixNano: r.timeUnixNano,
      observedTimeUnixNano: r.timeUnixNano,
      severityNumber,
      severityText,
      eventName: EVALUATION_EVENT,
      body: { stringValue: body },
      attributes: r.attributes,
      droppedAttributesCount: 0,
      traceId: r.traceId,
      spanId: r.spanId,
      flags: 1, // sampled
    }
  })
  return { resourceLogs: logRecords.length ? [{ resource: RESOURCE, scopeLogs: [{ scope: SCOPE, logRecords }] }] : [] }
}

/**
 * OTLP JSON lines (the OpenTelemetry Collector's `otlpjsonfile` format): a traces line with the test
 * spans (and, in `span-events` mode, the events), then in `logs` mode a logs line. Empty when the
 * report has no verdicts.
 *
 * @example
 * writeFileSync('verdicts.otlp.jsonl', renderOtlpJsonLines(report))
 */
export function renderOtlpJsonLines(report: Report, as: OtlpEventsAs = 'logs'): string {
  const lines: string[] = []
  const traces = renderOtlpTraces(report, as)
  if (traces.resourceSpans.length) lines.push(JSON.stringify(traces))
  if (as === 'logs') {
    const logs = renderOtlpLogs(report)
    if (logs.resourceLogs.length) lines.push(JSON.stringify(logs))
  }
  return lines.map((l) => `${l}\n`).join('')
}
