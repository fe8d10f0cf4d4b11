// Agent runs recorded with the real OpenTelemetry SDK (GenAI semantic conventions), for the error kinds
// TRAIL lacks (401, 403, 404, 429, 5xx, timeouts). Spans go through OTLP JSON and the public reader.
import { ROOT_CONTEXT, SpanStatusCode, trace as otelTrace, type Attributes, type Span as OtelSpan, type Tracer } from '@opentelemetry/api'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { parseTrace } from '../../../src/trace/parse'
import type { Trace } from '../../../src/trace/trace'

const T0 = 1_742_400_000_000 // ms since the epoch

/** What one failing call records, the way SDK instrumentations do it. */
export interface Failure {
  statusMessage?: string
  attributes?: Attributes
  exception?: { name: string; message: string }
}

/** Helpers to add spans of one agent run at fixed, increasing times. */
export class RunBuilder {
  private clock = T0
  constructor(
    private readonly tracer: Tracer,
    readonly root: OtelSpan,
  ) {}

  private span(parent: OtelSpan, name: string, attributes: Attributes, failure?: Failure): OtelSpan {
    const start = (this.clock += 10)
    const span = this.tracer.startSpan(name, { startTime: start, attributes }, otelTrace.setSpan(ROOT_CONTEXT, parent))
    if (failure) {
      if (failure.attributes) span.setAttributes(failure.attributes)
      if (failure.exception) {
        const err = new Error(failure.exception.message)
        err.name = failure.exception.name
        span.recordException(err, start + 5)
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.statusMessage })
    } else {
      span.setStatus({ code: SpanStatusCode.OK })
    }
    return span
  }

  /** A chat call that asks for `tool` with `args`. */
  chat(parent: OtelSpan, tool: string, args: unknown, failure?: Failure): OtelSpan {
    const span = this.span(
      parent,
      'chat gpt-4.1',
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4.1',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 80,
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', name: tool, arguments: args }] }]),
      },
      failure,
    )
    span.end((this.clock += 20))
    return span
  }

  /** A tool execution; `result` is recorded when it succeeds. Returns the span still open (end it with `end`). */
  tool(parent: OtelSpan, name: string, args: unknown, result: string | undefined, failure?: Failure): OtelSpan {
    const attributes: Attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': JSON.stringify(args) }
    if (result !== undefined) attributes['gen_ai.tool.call.result'] = result
    return this.span(parent, `execute_tool ${name}`, attributes, failure)
  }

  /** A plain HTTP client span (no GenAI attributes), e.g. what fetch instrumentation adds under a tool. */
  http(parent: OtelSpan, url: string, status: number): OtelSpan {
    const span = this.span(parent, 'GET', { 'http.request.method': 'GET', 'url.full': url, 'http.response.status_code': status }, status >= 400 ? { statusMessage: '' } : undefined)
    span.end((this.clock += 5))
    return span
  }

  end(span: OtelSpan): void {
    span.end((this.clock += 5))
  }
}

/**
 * Records one agent run with the SDK and returns it as OTLP JSON text, as an exporter would write it.
 *
 * @example
 * writeFileSync('run.json', recordRunOtlp((run) => run.chat(run.root, 'search', { q: 'x' })))
 */
export function recordRunOtlp(build: (run: RunBuilder) => void): string {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const tracer = provider.getTracer('agent-verdict-tests')
  const root = tracer.startSpan('invoke_agent support', { startTime: T0, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' } }, ROOT_CONTEXT)
  const run = new RunBuilder(tracer, root)
  build(run)
  root.end(T0 + 100_000)
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()))
}

/**
 * Records one agent run with the SDK, serializes it to OTLP JSON and reads it back with `parseTrace`.
 *
 * @example
 * const trace = recordRun((run) => run.chat(run.root, 'search', { q: 'x' }))
 */
export function recordRun(build: (run: RunBuilder) => void): Trace {
  return parseTrace(recordRunOtlp(build), 'otel-run.json')
}
