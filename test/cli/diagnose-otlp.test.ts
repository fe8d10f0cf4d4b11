// `agent-verdict diagnose --otlp` (issue 15, item 2): every verdict of the diagnosis exported once as a
// gen_ai.evaluation.result record parented to the span it judges, to a file and to a loopback endpoint.
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type {
  IExportLogsServiceRequest,
  ILogRecord,
} from '@opentelemetry/otlp-transformer/build/src/logs/internal-types'
import type { IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { diagnoseCommand } from '../../src/cli/diagnose'
import { DiagnoseReportSchema } from '../../src/diagnosis/diagnose-report'
import { otlpTargetOf } from '../../src/cli/diagnose-otlp'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import { FIXTURE_DIR } from '../helpers/trail'

const GAIA = join(FIXTURE_DIR, '0ebe673d64647ec44c370638b82d3c78.json')

async function run(args: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await diagnoseCommand(args, {
    stdout: { write: (c: string) => (stdout += c) },
    stderr: { write: (c: string) => (stderr += c) },
  })
  return { code, stdout, stderr }
}

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

let fake: FakeJudge
let spec: string
beforeAll(async () => {
  fake = await startFakeJudge({
    rules: [{ when: { contains: 'reverse' }, respond: { verdict: 'fail', reason: 'did not check the reversed text' } }],
  })
  spec = `openai-compatible:${fake.baseURL}#fake`
})
afterAll(() => fake.close())

/** The span verdicts of the --json report, keyed by verdict id, with the span each judges. */
function expectedFrom(jsonPath: string) {
  const report = DiagnoseReportSchema.parse(JSON.parse(readFileSync(jsonPath, 'utf8')))
  const entry = report.traces[0]
  const diagnosis = entry.diagnosis!
  const spanVerdicts = diagnosis.spans.flatMap((s) => s.verdicts.map((v) => ({ v, spanId: s.spanId })))
  return { traceId: diagnosis.traceId, spanVerdicts, agentVerdicts: diagnosis.agent.verdicts }
}

function checkRecords(records: ILogRecord[], expected: ReturnType<typeof expectedFrom>) {
  expect(expected.spanVerdicts.length).toBeGreaterThan(0)
  expect(records).toHaveLength(expected.spanVerdicts.length + expected.agentVerdicts.length)
  for (const { v, spanId } of expected.spanVerdicts) {
    const found = records.filter((r) => attr(r.attributes, 'agent_verdict.verdict.id') === v.id)
    expect(found, v.id).toHaveLength(1)
    expect(found[0]).toMatchObject({ eventName: 'gen_ai.evaluation.result', traceId: expected.traceId, spanId })
    expect(attr(found[0].attributes, 'gen_ai.evaluation.name')).toBe(v.metric)
    expect(attr(found[0].attributes, 'gen_ai.evaluation.score.value')).toBe(v.score ?? undefined)
    expect(attr(found[0].attributes, 'gen_ai.evaluation.score.label')).toBe(v.outcome)
    expect(attr(found[0].attributes, 'gen_ai.evaluation.explanation')).toBe(v.reason)
  }
  expect(records.some((r) => attr(r.attributes, 'gen_ai.evaluation.score.label') === 'fail')).toBe(true)
}

describe('agent-verdict diagnose --otlp', () => {
  test('file: OTLP JSON lines with every verdict under the span it judges', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'av-diag-otlp-'))
    const file = join(dir, 'verdicts.jsonl')
    const { stderr } = await run([GAIA, '--judge', spec, '--json', join(dir, 'd.json'), '--otlp', file])
    expect(stderr).toContain(`verdicts exported as OTLP to ${file}`)
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as IExportLogsServiceRequest)
    const records = lines
      .flatMap((l) => l.resourceLogs ?? [])
      .flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? []))
    checkRecords(records, expectedFrom(join(dir, 'd.json')))
  })

  test('endpoint: the logs SDK posts the same records to a loopback collector', async () => {
    const bodies: IExportLogsServiceRequest[] = []
    const server: Server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        if (req.url === '/v1/logs') bodies.push(JSON.parse(body) as IExportLogsServiceRequest)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      })
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    try {
      const dir = mkdtempSync(join(tmpdir(), 'av-diag-otlp-'))
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      const { stderr } = await run([GAIA, '--judge', spec, '--json', join(dir, 'd.json'), '--otlp', url])
      expect(stderr).toContain(`verdicts exported as OTLP to ${url}`)
      checkRecords(
        bodies.flatMap((b) => b.resourceLogs ?? []).flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords ?? [])),
        expectedFrom(join(dir, 'd.json')),
      )
    } finally {
      await new Promise((done) => server.close(done))
    }
  })

  test('without a judge there is nothing to export: exit 2 before any work, saying why', async () => {
    const prev = process.env.AGENT_VERDICT_JUDGE
    delete process.env.AGENT_VERDICT_JUDGE
    try {
      const { code, stderr } = await run([GAIA, '--otlp', 'x.jsonl'])
      expect(code).toBe(2)
      expect(stderr).toContain('--otlp exports judge verdicts, and no judge is configured')
    } finally {
      if (prev !== undefined) process.env.AGENT_VERDICT_JUDGE = prev
    }
  })

  test('a collector that is down: exit 2 with the endpoint named', async () => {
    const { code, stderr } = await run([GAIA, '--judge', spec, '--otlp', 'http://127.0.0.1:9/'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/could not send test spans|did not take the verdicts/)
  })

  test('--otlp value: http(s) URL is an endpoint, anything else a file', () => {
    expect(otlpTargetOf('http://localhost:4318')).toEqual({ endpoint: 'http://localhost:4318' })
    expect(otlpTargetOf('HTTPS://otel.example.com')).toEqual({ endpoint: 'HTTPS://otel.example.com' })
    expect(otlpTargetOf('out/v.jsonl')).toEqual({ file: 'out/v.jsonl' })
  })
})
