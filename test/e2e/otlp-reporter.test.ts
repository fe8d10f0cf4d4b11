// Export round trip (issue 15, item 2; decision 0026) through the real Vitest CLI: the reporter's
// `otlp: { endpoint }` sends every verdict of the fixture run, through the OTel logs SDK, to a loopback
// collector; decoded with otlp-transformer's types, each verdict of the written report appears exactly
// once as a gen_ai.evaluation.result record under the right span, with name, score, label and reason.
import { spawn } from 'node:child_process'
import { copyFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types'
import type {
  IExportLogsServiceRequest,
  ILogRecord,
} from '@opentelemetry/otlp-transformer/build/src/logs/internal-types'
import type { IExportTraceServiceRequest } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { readReport } from '../../src/report/artifact'
import { testSpanOf } from '../../src/report/otlp'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { REPO, makeScratchProject } from '../support/run-vitest'

let fake: FakeJudge
let collector: Server
const posts: Array<{ path: string; body: unknown }> = []
const dirs: string[] = []

beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [
      {
        name: 'emea',
        when: { contains: 'EMEA has the highest' },
        respond: { verdict: 'fail', reason: 'North America leads, not EMEA.' },
      },
    ],
  })
  collector = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      posts.push({ path: req.url ?? '', body: JSON.parse(body || '{}') })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((done) => collector.listen(0, '127.0.0.1', done))
})
afterAll(async () => {
  await fake.close()
  await new Promise((done) => collector.close(done))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function attr(attrs: IKeyValue[] | undefined, key: string): unknown {
  const value = attrs?.find((a) => a.key === key)?.value as Record<string, unknown> | undefined
  if (!value) return undefined
  // The logs SDK encodes a whole-number double (a score of 0 or 1) as intValue.
  return (
    value.stringValue ??
    value.doubleValue ??
    value.boolValue ??
    (value.intValue !== undefined ? Number(value.intValue) : undefined)
  )
}

test('every verdict of a fixture run arrives once as gen_ai.evaluation.result under the span it judges', async () => {
  const dir = makeScratchProject('otlp')
  dirs.push(dir)
  copyFileSync(join(REPO, 'test/e2e/fixtures/otlp/vitest.fixture.ts'), join(dir, 'otlp.test.ts'))
  const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`
  const reporter = [
    join(REPO, 'reporters/vitest-reporter.ts'),
    { outputFile: 'report.json', silent: false, otlp: { endpoint } },
  ]
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { include: ['**/*.test.ts'], setupFiles: [${JSON.stringify(join(REPO, 'matchers/vitest.ts'))}], testTimeout: 60000, reporters: ['default', ${JSON.stringify(reporter)}] } }\n`,
  )
  const child = spawn(
    process.execPath,
    [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NO_COLOR: '1',
        AGENT_VERDICT_JUDGE: `openai-compatible:${fake.baseURL}#fake-judge`,
        AGENT_VERDICT_MODE: 'live',
      },
    },
  )
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const code = await new Promise((done) => child.on('close', done))
  expect(code, output).toBe(1) // the failing output verdict
  expect(output).toContain(`verdicts exported as OTLP to ${endpoint}`)

  const report = await readReport(join(dir, 'report.json'))
  const verdicts = report.tests.flatMap((t) => t.verdicts.map((v) => ({ t, v })))
  expect(new Set(verdicts.map(({ v }) => v.level))).toEqual(new Set(['output', 'span', 'agent']))

  const records: ILogRecord[] = posts
    .filter((p) => p.path === '/v1/logs')
    .flatMap((p) => (p.body as IExportLogsServiceRequest).resourceLogs ?? [])
    .flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? []))
  expect(records).toHaveLength(verdicts.length)
  for (const { t, v } of verdicts) {
    const found = records.filter(
      (r) => attr(r.attributes, 'test.case.name') === t.name && attr(r.attributes, 'agent_verdict.verdict.id') === v.id,
    )
    expect(found, `${t.name} ${v.id}`).toHaveLength(1)
    const [r] = found
    const trace = t.traces?.[0]
    const parent =
      v.level === 'span'
        ? { traceId: trace!.id, spanId: v.spanId }
        : v.level === 'agent'
          ? { traceId: trace!.id, spanId: trace!.spans.find((s) => s.parentId === null)!.id }
          : { traceId: testSpanOf(report, t).traceId, spanId: testSpanOf(report, t).spanId }
    expect({ eventName: r.eventName, traceId: r.traceId, spanId: r.spanId }).toEqual({
      eventName: 'gen_ai.evaluation.result',
      ...parent,
    })
    expect(attr(r.attributes, 'gen_ai.evaluation.name')).toBe(v.metric)
    expect(attr(r.attributes, 'gen_ai.evaluation.score.value')).toBe(v.score ?? undefined)
    expect(attr(r.attributes, 'gen_ai.evaluation.score.label')).toBe(v.outcome)
    expect(attr(r.attributes, 'gen_ai.evaluation.explanation')).toBe(v.reason)
  }
  expect(
    records.filter((r) => attr(r.attributes, 'gen_ai.evaluation.explanation') === 'North America leads, not EMEA.'),
  ).toHaveLength(1)

  // The output verdicts' parents exist in the backend: the two test spans were sent to /v1/traces.
  const spans = posts
    .filter((p) => p.path === '/v1/traces')
    .flatMap((p) => (p.body as IExportTraceServiceRequest).resourceSpans ?? [])
    .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans ?? []))
  expect(spans.map((s) => s.name).sort()).toEqual(['test failing output verdict', 'test passing output verdict'])
}, 120_000)
