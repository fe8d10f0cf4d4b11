// Verdicts exported to OpenTelemetry (issue 15, item 2; decision 0026): what the real OTLP/HTTP logs
// exporter POSTs, and the OTLP JSON lines file, decoded with @opentelemetry/otlp-transformer's types
// and compared with the report — every verdict once, under the right span, with its score and reason.
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type {
  IExportLogsServiceRequest,
  ILogRecord,
} from '@opentelemetry/otlp-transformer/build/src/logs/internal-types'
import type { IExportTraceServiceRequest } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types'
import type { IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types'
import { afterEach, describe, expect, it } from 'vitest'
import { exportOtlp } from '../../src/report/otlp-export'
import { publishReport } from '../../reporters/publish'
import {
  evaluationRecords,
  renderOtlpJsonLines,
  renderOtlpLogs,
  renderOtlpTraces,
  testSpanOf,
} from '../../src/report/otlp'
import type { Report } from '../../src/verdict/report'
import { parseReport } from '../../src/report/artifact'
import type { Verdict } from '../../src/verdict/verdict'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const v = (over: Partial<Verdict>): Verdict => ({
  metric: 'faithfulness',
  level: 'output',
  scale: 'binary',
  raw: 1,
  score: 1,
  threshold: 1,
  pass: true,
  outcome: 'pass',
  reason: 'ok',
  ...over,
})

// A version-1 report as written before `.not` and the new totals: read the way readReport reads it.
const report: Report = parseReport(
  {
    schemaVersion: 1,
    run: {
      startedAt: '2026-12-03T10:00:00.000Z',
      runner: 'vitest',
      judge: 'openai-compatible:fake',
      mode: 'replay',
      totals: { verdicts: 7, failed: 3, unjudgeable: 1, judgeCalls: 0, cachedCalls: 5, tokens: 0, costUsd: null },
    },
    tests: [
      {
        file: 'answers.test.ts',
        name: 'chart agent > cites a missing figure',
        state: 'fail',
        durationMs: 1234,
        verdicts: [
          v({
            id: 'm1',
            raw: 0,
            score: 0,
            pass: false,
            outcome: 'fail',
            reason: 'cites a <b>2019</b> figure "the chart" lacks\nline two',
          }),
          v({
            id: 'm2',
            metric: 'quality',
            scale: 'likert5',
            raw: 4,
            score: 0.75,
            threshold: 0.75,
            reason: 'clear and complete',
          }),
        ],
      },
      {
        file: 'trace.test.ts',
        name: 'agent run has no failing spans',
        state: 'fail',
        verdicts: [
          v({
            id: '00f067aa0ba902b7:span-quality',
            metric: 'span-quality',
            level: 'span',
            spanId: '00f067aa0ba902b7',
            scale: 'likert5',
            raw: 5,
            score: 1,
            threshold: 0.5,
            reason: 'fine',
          }),
          v({
            id: 'b7ad6b7169203331:span-quality',
            metric: 'span-quality',
            level: 'span',
            spanId: 'b7ad6b7169203331',
            scale: 'likert5',
            raw: 1,
            score: 0,
            threshold: 0.5,
            pass: false,
            outcome: 'fail',
            category: 'Authentication Errors',
            reason: 'HTTP 403 from the page',
          }),
          v({
            id: 'c0ffee0000000001:span-quality',
            metric: 'span-quality',
            level: 'span',
            spanId: 'c0ffee0000000001',
            scale: 'likert5',
            raw: null,
            score: null,
            threshold: 0.5,
            pass: false,
            outcome: 'unjudgeable',
            reason: 'judge reply was not JSON after 3 attempts',
          }),
          v({
            id: 'agent:tool-use',
            metric: 'tool-use',
            level: 'agent',
            scale: 'likert5',
            raw: 2,
            score: 0.25,
            threshold: 0.5,
            pass: false,
            outcome: 'fail',
            reason: 'searched the same query 4 times',
          }),
        ],
        traces: [
          {
            id: TRACE,
            spans: [
              {
                id: '00f067aa0ba902b7',
                parentId: null,
                name: 'agent.run',
                kind: 'agent',
                failed: true,
                verdictIds: ['00f067aa0ba902b7:span-quality'],
              },
              {
                id: 'b7ad6b7169203331',
                parentId: '00f067aa0ba902b7',
                name: 'visit_page',
                kind: 'tool',
                failed: true,
                verdictIds: ['b7ad6b7169203331:span-quality'],
              },
              {
                id: 'c0ffee0000000001',
                parentId: '00f067aa0ba902b7',
                name: 'chat',
                kind: 'llm',
                failed: false,
                verdictIds: ['c0ffee0000000001:span-quality'],
              },
            ],
          },
        ],
      },
      {
        // TRAIL-style ids that are not OTLP ids: the verdict falls back to the test's own span.
        file: 'trail.test.ts',
        name: 'trail run',
        state: 'pass',
        verdicts: [
          v({
            id: 'step-3:span-quality',
            metric: 'span-quality',
            level: 'span',
            spanId: 'step-3',
            scale: 'likert5',
            raw: 4,
            score: 0.75,
            threshold: 0.5,
            reason: 'good step',
          }),
        ],
        traces: [
          {
            id: 'run-42',
            spans: [
              {
                id: 'step-3',
                parentId: null,
                name: 'step',
                kind: 'chain',
                failed: false,
                verdictIds: ['step-3:span-quality'],
              },
            ],
          },
        ],
      },
    ],
  },
  'otlp fixture',
)

const allVerdicts = report.tests.flatMap((t) => t.verdicts.map((verdict) => ({ test: t, verdict })))

function attr(attrs: IKeyValue[] | undefined, key: string): unknown {
  const value = attrs?.find((a) => a.key === key)?.value as Record<string, unknown> | undefined
  if (!value) return undefined
  return (
    value.stringValue ??
    value.doubleValue ??
    value.boolValue ??
    (value.intValue !== undefined ? Number(value.intValue) : undefined)
  )
}

/** The parent each verdict must have: judged span (original trace), trace root (agent), else the test's span. */
function expectedParent(test: Report['tests'][number], verdict: Verdict): { traceId: string; spanId: string } {
  if (verdict.level === 'span' && test.traces?.[0].id === TRACE) return { traceId: TRACE, spanId: verdict.spanId! }
  if (verdict.level === 'agent') return { traceId: TRACE, spanId: '00f067aa0ba902b7' }
  const own = testSpanOf(report, test)
  return { traceId: own.traceId, spanId: own.spanId }
}

/** Every verdict appears exactly once, under the right parent, with name, score, label and explanation. */
function expectRoundTrip(records: ILogRecord[]) {
  expect(records).toHaveLength(allVerdicts.length)
  for (const { test, verdict } of allVerdicts) {
    const matching = records.filter(
      (r) =>
        attr(r.attributes, 'agent_verdict.verdict.id') === verdict.id &&
        attr(r.attributes, 'test.case.name') === test.name,
    )
    expect(matching, verdict.id).toHaveLength(1)
    const [r] = matching
    expect(r.eventName).toBe('gen_ai.evaluation.result')
    expect({ traceId: r.traceId, spanId: r.spanId }).toEqual(expectedParent(test, verdict))
    expect(attr(r.attributes, 'gen_ai.evaluation.name')).toBe(verdict.metric)
    expect(attr(r.attributes, 'gen_ai.evaluation.score.value')).toBe(verdict.score ?? undefined)
    expect(attr(r.attributes, 'gen_ai.evaluation.score.label')).toBe(verdict.outcome)
    expect(attr(r.attributes, 'gen_ai.evaluation.explanation')).toBe(verdict.reason)
    expect(attr(r.attributes, 'error.type')).toBe(verdict.outcome === 'unjudgeable' ? 'unjudgeable' : undefined)
  }
}

describe('renderOtlpLogs / renderOtlpTraces (pure)', () => {
  it('renders every verdict once, parented to the span it judges, the run root or the test span', () => {
    const logs = renderOtlpLogs(report) satisfies IExportLogsServiceRequest
    expectRoundTrip(logs.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords)) as ILogRecord[])
  })

  it('emits the test spans the records point to (and only those), deterministically', () => {
    const traces = renderOtlpTraces(report) satisfies IExportTraceServiceRequest
    const spans = traces.resourceSpans[0].scopeSpans[0].spans
    expect(spans.map((s) => s.name)).toEqual(['test chart agent > cites a missing figure', 'test trail run'])
    expect(spans[0].status).toEqual({ code: 2, message: 'test failed' })
    expect(BigInt(spans[0].endTimeUnixNano) - BigInt(spans[0].startTimeUnixNano)).toBe(1_234_000_000n)
    expect(renderOtlpTraces(report)).toEqual(traces)
    const { testSpans } = evaluationRecords(report)
    for (const s of testSpans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/)
    }
  })

  it('span-events mode: events on the test span, or on one evaluation child span under the judged span', () => {
    const spans = renderOtlpTraces(report, 'span-events').resourceSpans[0].scopeSpans[0].spans
    const events = spans.flatMap((s) => s.events.map((e) => ({ span: s, e })))
    expect(events).toHaveLength(allVerdicts.length)
    expect(events.every(({ e }) => e.name === 'gen_ai.evaluation.result')).toBe(true)
    const failing = events.find(
      ({ e }) => attr(e.attributes as IKeyValue[], 'agent_verdict.verdict.id') === 'b7ad6b7169203331:span-quality',
    )!
    expect(failing.span).toMatchObject({
      traceId: TRACE,
      parentSpanId: 'b7ad6b7169203331',
      name: 'gen_ai.evaluation span-quality',
    })
    const output = events.find(({ e }) => attr(e.attributes as IKeyValue[], 'agent_verdict.verdict.id') === 'm1')!
    expect(output.span.name).toBe('test chart agent > cites a missing figure')
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length)
    // No log line in span-events mode.
    expect(renderOtlpJsonLines(report, 'span-events').trim().split('\n')).toHaveLength(1)
  })

  it('renders nothing for a report without verdicts', () => {
    const empty = { ...report, tests: [] }
    expect(renderOtlpJsonLines(empty)).toBe('')
    expect(renderOtlpLogs(empty).resourceLogs).toEqual([])
  })
})

// --- a loopback OTLP/HTTP receiver capturing what the exporters POST ---

interface Capture {
  server: Server
  url: string
  posts: Array<{ path: string; contentType: string; body: unknown }>
}

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))))
})

async function receiver(status = 200): Promise<Capture> {
  const posts: Capture['posts'] = []
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let raw = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
      posts.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        body: JSON.parse(raw.toString('utf8') || '{}'),
      })
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  servers.push(server)
  return { server, posts, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
}

describe('exportOtlp', () => {
  it('endpoint: the OTel logs SDK POSTs one gen_ai.evaluation.result record per verdict, the test spans go to /v1/traces', async () => {
    const rx = await receiver()
    await expect(exportOtlp(report, { endpoint: rx.url })).resolves.toBe(rx.url)
    const logs = rx.posts.filter((p) => p.path === '/v1/logs')
    const traces = rx.posts.filter((p) => p.path === '/v1/traces')
    expect(logs.length).toBeGreaterThan(0)
    expect(logs[0].contentType).toContain('application/json')
    const records = logs
      .flatMap((p) => (p.body as IExportLogsServiceRequest).resourceLogs ?? [])
      .flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? []))
    expectRoundTrip(records)
    const resource = (logs[0].body as IExportLogsServiceRequest).resourceLogs![0].resource
    expect(attr(resource?.attributes, 'service.name')).toBe('agent-verdict')
    const spans = traces
      .flatMap((p) => (p.body as IExportTraceServiceRequest).resourceSpans ?? [])
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans ?? []))
    expect(spans.map((s) => s.name)).toEqual(['test chart agent > cites a missing figure', 'test trail run'])
  })

  it('endpoint: a large run (3,000 verdicts, over the logs SDK default queue of 2,048) loses none', async () => {
    const rx = await receiver()
    const many = {
      ...report,
      tests: [
        { ...report.tests[0], verdicts: Array.from({ length: 3000 }, (_, i) => v({ id: `m${i}`, reason: `r${i}` })) },
      ],
    }
    await exportOtlp(many, { endpoint: rx.url })
    const ids = rx.posts
      .filter((p) => p.path === '/v1/logs')
      .flatMap((p) => (p.body as IExportLogsServiceRequest).resourceLogs ?? [])
      .flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? []))
      .map((r) => attr(r.attributes, 'agent_verdict.verdict.id'))
    expect(ids).toHaveLength(3000)
    expect(new Set(ids).size).toBe(3000)
  })

  it('endpoint given as …/v1/logs is taken as the base; span-events mode sends traces only', async () => {
    const rx = await receiver()
    await exportOtlp(report, { endpoint: `${rx.url}/v1/logs`, as: 'span-events' })
    expect(rx.posts.map((p) => p.path)).toEqual(['/v1/traces'])
    const spans = (rx.posts[0].body as IExportTraceServiceRequest).resourceSpans![0].scopeSpans[0].spans!
    expect(spans.flatMap((s) => s.events ?? [])).toHaveLength(allVerdicts.length)
  })

  it('file: OTLP JSON lines, a traces line then a logs line, equal to the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-otlp-'))
    const path = await exportOtlp(report, { file: 'out/verdicts.otlp.jsonl' }, dir)
    expect(path).toBe(join(dir, 'out/verdicts.otlp.jsonl'))
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as IExportLogsServiceRequest & IExportTraceServiceRequest)
    expect(lines.map((l) => Object.keys(l))).toEqual([['resourceSpans'], ['resourceLogs']])
    expectRoundTrip(lines[1].resourceLogs!.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? [])))
  })

  it('a collector that is down or refuses gives an error naming the endpoint (credentials redacted) and what to check', async () => {
    const rx = await receiver(500)
    const withCreds = rx.url.replace('http://', 'http://user:hunter2secret@')
    const error = await exportOtlp(report, { endpoint: withCreds }).catch((e: Error) => e)
    expect(String(error)).toMatch(/OtlpExportError: agent-verdict otlp: .*answered HTTP 500/)
    expect(String(error)).not.toContain('hunter2secret')
    await expect(exportOtlp(report, { endpoint: 'localhost:4318' })).rejects.toThrow(/must be http\(s\)|not a URL/)
    await expect(exportOtlp(report, {})).rejects.toThrow(/give either endpoint .* or file/)
  })

  it('logs SDK export failure (collector answers 400 to logs only) is reported, not swallowed', async () => {
    const posts: string[] = []
    const server = createServer((req, res) => {
      posts.push(req.url ?? '')
      req.resume()
      req.on('end', () => {
        res.writeHead(req.url === '/v1/logs' ? 400 : 200, { 'content-type': 'application/json' })
        res.end('{}')
      })
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    servers.push(server)
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    await expect(exportOtlp(report, { endpoint: url, timeoutMs: 3000 })).rejects.toThrow(/did not take the verdicts/)
    expect(posts).toContain('/v1/logs')
  })
})

describe('a collector that never answers', () => {
  it('gives up after timeoutMs with an error, for the test spans and for the logs', async () => {
    const server = createServer((req, res) => {
      req.resume()
      // /v1/traces answers and /v1/logs hangs; with the x-hang-all header both hang.
      if (req.url === '/v1/traces' && !req.headers['x-hang-all']) req.on('end', () => res.writeHead(200).end('{}'))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    servers.push(server)
    server.on('close', () => server.closeAllConnections())
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    await expect(exportOtlp(report, { endpoint: url, timeoutMs: 300, headers: { 'x-hang-all': '1' } })).rejects.toThrow(
      /could not send test spans to .*\/v1\/traces/,
    )
    await expect(exportOtlp(report, { endpoint: url, timeoutMs: 300 })).rejects.toThrow(/did not take the verdicts/)
    server.closeAllConnections()
  })
})

describe('reporter option otlp', () => {
  it('exports the scrubbed report: a secret planted in a reason and an OTLP header value never reach the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-otlp-pub-'))
    const secret = 'sk-live-planted-9f8e7d6c5b4a'
    const prev = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = secret
    try {
      const out: string[] = []
      const tests = [
        { ...report.tests[0], verdicts: [v({ id: 'm1', reason: `the agent printed ${secret} to the user` })] },
      ]
      const result = await publishReport({
        tests,
        startedAt: new Date('2026-12-03T10:00:00Z'),
        runner: 'vitest',
        root: dir,
        options: { silent: false, otlp: { file: 'v.jsonl', headers: { authorization: 'Bearer hdr-secret-123456' } } },
        out: { write: (t: string) => void out.push(t) } as unknown as NodeJS.WritableStream,
        env: { OPENAI_API_KEY: secret },
      })
      const text = readFileSync(join(dir, 'v.jsonl'), 'utf8')
      expect(text).toContain('gen_ai.evaluation.result')
      expect(text).not.toContain(secret)
      expect(text).not.toContain('hdr-secret')
      expect(result.otlpTarget).toBe(join(dir, 'v.jsonl'))
      expect(out.join('')).toMatch(/verdicts exported as OTLP to .*v\.jsonl/)
    } finally {
      if (prev === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = prev
    }
  })

  it('rejects a bad otlp option with the valid shape', async () => {
    const { parseReporterOptions } = await import('../../reporters/options')
    expect(() => parseReporterOptions({ otlp: { endpoint: 'http://x:4318', file: 'a' } })).toThrow(
      /give exactly one of endpoint/,
    )
    expect(() => parseReporterOptions({ otlp: { url: 'http://x' } })).toThrow(/invalid option otlp/)
    expect(parseReporterOptions({ otlp: { file: 'v.jsonl', as: 'span-events' } }).otlp).toEqual({
      file: 'v.jsonl',
      as: 'span-events',
    })
  })
})
