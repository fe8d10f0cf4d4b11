// HTTP and timeout errors TRAIL lacks, recorded with the real OTel SDK (test/helpers/otel.ts) and read back from OTLP JSON.
import type { Attributes } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { detect } from '../../../src/metrics/detectors/index'
import type { Finding } from '../../../src/metrics/detectors/finding'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'
import {
  agentRun,
  agentSpan,
  at,
  createRecorder,
  HTTP_FAILURES,
  record,
  type HttpFailure,
  type SpanSpec,
} from '../../helpers/otel'
import { spanText } from './trail'

function otlp(build: (rec: ReturnType<typeof createRecorder>) => void): Trace {
  const rec = createRecorder({ seed: 7 })
  build(rec)
  return parseTrace(rec.otlpJson(), 'sdk-run.json')
}

const chat = (start: number, tool: string, args: unknown): SpanSpec => ({
  name: 'chat gpt-4o-mini',
  start: at(start),
  end: at(start + 500),
  ok: true,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.output.messages': JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call', name: tool, arguments: args }] },
    ]),
  },
})

const tool = (start: number, name: string, extra: Partial<SpanSpec> & { attributes?: Attributes } = {}): SpanSpec => ({
  name: `execute_tool ${name}`,
  start: at(start),
  end: at(start + 300),
  ...extra,
  attributes: {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.arguments': '{"id": 7}',
    ...extra.attributes,
  },
})

/** An agent run whose children are `children`. */
const agent = (children: SpanSpec[]): SpanSpec => agentSpan(children)

function only(findings: Finding[]): Finding {
  expect(findings).toHaveLength(1)
  return findings[0]
}

describe('HTTP failures of a tool call → TRAIL categories (OTel SDK, GenAI semconv, OTLP JSON)', () => {
  const expected: Record<HttpFailure, Finding['category']> = {
    401: 'Authentication Errors',
    403: 'Authentication Errors',
    404: 'Resource Not Found',
    429: 'Rate Limiting',
    500: 'Service Errors',
    503: 'Service Errors',
    timeout: 'Timeout Issues',
  }

  it.each(Object.keys(expected))('%s', (key) => {
    const failure = (key === 'timeout' ? key : Number(key)) as HttpFailure
    const trace = otlp((rec) => agentRun(rec.tracer, { failure }))
    const toolSpan = trace.spansByKind('tool')[0]
    expect(toolSpan.status).toBe('error')
    const f = only(detect(trace))
    expect(f).toMatchObject({
      spanId: toolSpan.id,
      category: expected[failure],
      detector: 'error-status',
      severity: 'medium',
    })
    expect(f.evidenceSpanId).toBeUndefined()
    expect(spanText(toolSpan)).toContain(f.evidence)
    expect(f.evidence).toContain(HTTP_FAILURES[failure].message.slice(0, 20))
  })

  it('finds nothing in the same run when the tool call succeeds', () => {
    expect(detect(otlp((rec) => agentRun(rec.tracer)))).toEqual([])
  })
})

describe('other ways instrumentations record errors', () => {
  it('an HTTP status attribute alone (no message), in current and older conventions, or error.type', () => {
    const trace = otlp((rec) =>
      record(
        rec.tracer,
        agent([
          tool(100, 'a', { attributes: { 'http.response.status_code': 403 } }),
          tool(500, 'b', { attributes: { 'http.status_code': 500 } }),
          tool(900, 'c', { attributes: { 'error.type': '504' } }),
          tool(1300, 'd', { attributes: { 'http.response.status_code': 404 }, ok: true }),
        ]),
      ),
    )
    const byTool = Object.fromEntries(detect(trace).map((f) => [trace.get(f.spanId)!.toolName, f.category]))
    // 'c' has error.type but no error status or exception: not an error; 'd' was set OK explicitly.
    expect(byTool).toEqual({ a: 'Authentication Errors', b: 'Service Errors' })
  })

  it('gRPC DEADLINE_EXCEEDED in the status message → Timeout Issues', () => {
    const trace = otlp((rec) =>
      record(
        rec.tracer,
        agent([
          tool(100, 'rpc', {
            error: { type: 'Error', message: '4 DEADLINE_EXCEEDED: Deadline exceeded after 30.001s', time: at(390) },
          }),
        ]),
      ),
    )
    expect(only(detect(trace))).toMatchObject({
      category: 'Timeout Issues',
      evidence: '4 DEADLINE_EXCEEDED: Deadline exceeded after 30.001s',
    })
  })

  it('blames malformed tool-call arguments on the chat call that wrote them', () => {
    const trace = otlp((rec) =>
      record(
        rec.tracer,
        agent([
          chat(100, 'lookup', '{"id": 7'),
          tool(700, 'lookup', {
            error: {
              type: 'ToolInputError',
              message: 'Invalid JSON in tool call arguments: Unexpected end of JSON input',
              time: at(990),
            },
          }),
        ]),
      ),
    )
    const [chatSpan, toolSpan] = [trace.spansByKind('llm')[0], trace.spansByKind('tool')[0]]
    const f = only(detect(trace))
    expect(f).toMatchObject({ spanId: chatSpan.id, category: 'Formatting Errors', evidenceSpanId: toolSpan.id })
    expect(f.reason).toContain('raised in TOOL execute_tool lookup')
    expect(spanText(toolSpan)).toContain(f.evidence)
  })

  it('names the tool, not its HTTP client child span, when the request under a tool failed', () => {
    const http: SpanSpec = {
      name: 'GET',
      start: at(150),
      end: at(250),
      attributes: { 'http.request.method': 'GET', 'http.response.status_code': 503 },
      error: { type: 'HTTPError', message: '503 Service Unavailable', time: at(249) },
    }
    const trace = otlp((rec) =>
      record(
        rec.tracer,
        agent([
          tool(100, 'fetch_page', {
            error: { type: 'Error', message: 'fetch failed', time: at(399) },
            children: [http],
          }),
        ]),
      ),
    )
    const f = only(detect(trace))
    expect(trace.get(f.spanId)!.kind).toBe('tool')
    expect(f).toMatchObject({ category: 'Service Errors', evidence: '503 Service Unavailable' })
    expect(trace.get(f.evidenceSpanId!)!.name).toBe('GET')
  })

  it('flags a tool whose successful result is an error envelope', () => {
    const result = JSON.stringify({ error: { code: 403, message: 'Forbidden: token lacks scope crm.read' } })
    const trace = otlp((rec) =>
      record(
        rec.tracer,
        agent([tool(100, 'crm_lookup', { ok: true, attributes: { 'gen_ai.tool.call.result': result } })]),
      ),
    )
    expect(only(detect(trace))).toMatchObject({
      category: 'Authentication Errors',
      detector: 'tool-output',
      evidence: 'Forbidden: token lacks scope crm.read',
    })
  })
})
