// Sends the report's verdicts to an OTLP/HTTP endpoint or writes them as OTLP JSON lines (decision
// 0026), for the reporters and `agent-verdict diagnose --otlp`. The one module of src/report that does
// I/O: rendering is the pure src/report/otlp.ts; the OTel SDK packages are optional peers, loaded here only.
import { resolve } from 'node:path'
import { redactUrl } from '../config/secrets'
import { writeFileAtomic } from '../files/atomic'
import type { Report } from '../verdict/report'
import {
  evaluationRecords,
  logFieldsOf,
  renderOtlpJsonLines,
  renderOtlpTraces,
  EVALUATION_EVENT,
  type OtlpAnyValue,
  type OtlpEventsAs,
} from './otlp'

/** `endpoint`: base URL of an OTLP/HTTP receiver (`http://localhost:4318`); `file`: OTLP JSON lines. */
export interface OtlpTarget {
  endpoint?: string
  file?: string
  /** `logs` (default) or `span-events` for backends that only read traces. */
  as?: OtlpEventsAs
  /** Extra HTTP headers for the endpoint (an API key of a hosted backend). Never written anywhere. */
  headers?: Record<string, string>
  /** Give up on the endpoint after this long. Default 10 s. */
  timeoutMs?: number
}

export class OtlpExportError extends Error {
  override name = 'OtlpExportError'
}

const PEERS =
  '@opentelemetry/api @opentelemetry/api-logs @opentelemetry/sdk-logs @opentelemetry/exporter-logs-otlp-http @opentelemetry/resources'

/**
 * Exports the verdicts of a (scrubbed) report; returns where they went, for the run's output line.
 *
 * @example
 * await exportOtlp(report, { endpoint: 'http://localhost:4318' }, root) // 'http://localhost:4318'
 */
export async function exportOtlp(report: Report, target: OtlpTarget, root = process.cwd()): Promise<string> {
  const as = target.as ?? 'logs'
  if (target.file) return writeFileAtomic(resolve(root, target.file), renderOtlpJsonLines(report, as))
  const endpoint = target.endpoint
  if (!endpoint)
    throw new OtlpExportError(
      'agent-verdict otlp: give either endpoint (an OTLP/HTTP base URL such as http://localhost:4318) or file (OTLP JSON lines).',
    )
  const { base, authorization } = otlpBase(endpoint)
  if (authorization) target = { ...target, headers: { authorization, ...target.headers } }
  const traces = renderOtlpTraces(report, as)
  if (traces.resourceSpans.length) await postJson(`${base}/v1/traces`, traces, target)
  if (as === 'logs') await emitLogs(report, `${base}/v1/logs`, target)
  return redactUrl(endpoint)
}

/** The base URL: `http://host:4318` (a trailing `/v1/logs` or `/v1/traces` is taken off); `user:pass@` becomes Basic auth. */
function otlpBase(endpoint: string): { base: string; authorization?: string } {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new OtlpExportError(
      `agent-verdict otlp: endpoint ${JSON.stringify(redactUrl(endpoint))} is not a URL; give the OTLP/HTTP base URL, e.g. http://localhost:4318.`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OtlpExportError(
      `agent-verdict otlp: endpoint must be http(s), got ${url.protocol} — OTLP/gRPC is not supported; use the collector's HTTP port (4318).`,
    )
  let authorization: string | undefined
  if (url.username || url.password) {
    authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    url.username = ''
    url.password = ''
  }
  return {
    base: url
      .toString()
      .replace(/\/+$/, '')
      .replace(/\/v1\/(logs|traces)$/, ''),
    ...(authorization ? { authorization } : {}),
  }
}

async function postJson(url: string, body: unknown, target: OtlpTarget): Promise<void> {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs ?? 10_000),
    })
  } catch (error) {
    throw new OtlpExportError(
      `agent-verdict otlp: could not send test spans to ${redactUrl(url)}: ${error instanceof Error ? error.message : String(error)}. Is the collector running?`,
    )
  }
  if (!response.ok)
    throw new OtlpExportError(
      `agent-verdict otlp: ${redactUrl(url)} answered HTTP ${response.status} to the test spans.`,
    )
}

function plain(value: OtlpAnyValue): string | number | boolean {
  if ('stringValue' in value) return value.stringValue
  if ('doubleValue' in value) return value.doubleValue
  return value.boolValue
}

/** Through the OTel Logs SDK: one log record per verdict, with the trace context of the span it judges. */
async function emitLogs(report: Report, url: string, target: OtlpTarget): Promise<void> {
  const { records } = evaluationRecords(report)
  if (records.length === 0) return
  let sdk: [
    typeof import('@opentelemetry/api'),
    typeof import('@opentelemetry/sdk-logs'),
    typeof import('@opentelemetry/exporter-logs-otlp-http'),
    typeof import('@opentelemetry/resources'),
  ]
  try {
    sdk = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-logs'),
      import('@opentelemetry/exporter-logs-otlp-http'),
      import('@opentelemetry/resources'),
    ])
  } catch {
    throw new OtlpExportError(
      `agent-verdict otlp: exporting to an endpoint needs the OpenTelemetry logs SDK — npm install -D ${PEERS} — or write a file instead: otlp: { file: 'verdicts.otlp.jsonl' }.`,
    )
  }
  const [api, logs, exporterPkg, resources] = sdk
  const failures: string[] = []
  const inner = new exporterPkg.OTLPLogExporter({
    url,
    headers: target.headers,
    timeoutMillis: target.timeoutMs ?? 10_000,
  })
  const exporter: import('@opentelemetry/sdk-logs').LogRecordExporter = {
    export: (batch, done) =>
      inner.export(batch, (result) => {
        if (result.code !== 0) failures.push(result.error?.message ?? 'export failed')
        done(result)
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  }
  const provider = new logs.LoggerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': 'agent-verdict' }),
    // The queue holds every record (its default of 2048 would drop the rest of a large diagnosis);
    // nothing is sent on a timer, forceFlush below sends it all in batches of 512.
    processors: [
      new logs.BatchLogRecordProcessor({
        exporter,
        maxQueueSize: Math.max(2048, records.length),
        maxExportBatchSize: 512,
        scheduledDelayMillis: 60_000,
      }),
    ],
  })
  const logger = provider.getLogger('agent-verdict')
  for (const r of records) {
    const { severityNumber, severityText, body } = logFieldsOf(r)
    const ns = BigInt(r.timeUnixNano)
    const time: [number, number] = [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]
    logger.emit({
      eventName: EVALUATION_EVENT,
      timestamp: time,
      observedTimestamp: time,
      severityNumber,
      severityText,
      body,
      attributes: Object.fromEntries(r.attributes.map((a) => [a.key, plain(a.value)])),
      context: api.trace.setSpanContext(api.ROOT_CONTEXT, {
        traceId: r.traceId,
        spanId: r.spanId,
        traceFlags: api.TraceFlags.SAMPLED,
      }),
    })
  }
  await provider.forceFlush()
  await provider.shutdown()
  if (failures.length)
    throw new OtlpExportError(
      `agent-verdict otlp: ${redactUrl(url)} did not take the verdicts: ${failures[0]}. Is the collector running and reachable?`,
    )
}
