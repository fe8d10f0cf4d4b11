// Builds spans with the real OpenTelemetry JS SDK, so OTLP tests and fixtures never rely on hand-written shapes.
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type HrTime,
  type Span as OtelSpan,
  type Tracer,
} from '@opentelemetry/api'
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type IdGenerator,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'

/** Deterministic trace/span ids (a seeded counter), so generated fixtures are stable across runs. */
export class SequentialIds implements IdGenerator {
  private next: number
  constructor(seed = 1) {
    this.next = seed * 1000
  }
  generateTraceId(): string {
    return (this.next++).toString(16).padStart(8, '0').repeat(4)
  }
  generateSpanId(): string {
    return `5a${(this.next++).toString(16).padStart(14, '0')}`
  }
}

export interface Recorder {
  tracer: Tracer
  exporter: InMemorySpanExporter
  /** Finished spans, as `InMemorySpanExporter.getFinishedSpans()` returns them. */
  spans(): ReadableSpan[]
  /** The finished spans as the OTLP/HTTP JSON exporter would send them (hex ids, string ns). */
  otlpJson(spans?: ReadableSpan[]): string
}

/** A tracer provider exporting to memory. Pass a seed for deterministic ids. */
export function createRecorder(opts: { seed?: number; serviceName?: string } = {}): Recorder {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName ?? 'support-agent' }),
    idGenerator: opts.seed === undefined ? undefined : new SequentialIds(opts.seed),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('agent-verdict-tests', '1.0.0')
  return {
    tracer,
    exporter,
    spans: () => exporter.getFinishedSpans(),
    otlpJson: (spans) => toOtlpJson(spans ?? exporter.getFinishedSpans()),
  }
}

/** SDK spans → OTLP JSON text via the SDK's own serializer (what `@opentelemetry/exporter-trace-otlp-http` posts). */
export function toOtlpJson(spans: ReadableSpan[]): string {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))
}

/** The same request with ids in base64, as protobuf-JSON tooling writes `bytes` fields. */
export function withBase64Ids(otlpJson: string): string {
  const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64')
  return JSON.stringify(JSON.parse(otlpJson), (key, value) =>
    (key === 'traceId' || key === 'spanId' || key === 'parentSpanId') && typeof value === 'string' && value !== ''
      ? b64(value)
      : value,
  )
}

/** 2025-03-25T09:00:00Z plus `ms` milliseconds and `ns` nanoseconds, as an HrTime. */
export function at(ms: number, ns = 0): HrTime {
  const base = 1_742_893_200
  const total = (ms % 1000) * 1_000_000 + ns
  return [base + Math.floor(ms / 1000) + Math.floor(total / 1e9), total % 1e9]
}

export interface SpanSpec {
  name: string
  start: HrTime
  end: HrTime
  attributes?: Attributes
  events?: Array<{ name: string; time: HrTime; attributes?: Attributes }>
  /** Records an exception event and sets ERROR status with the message. */
  error?: { type: string; message: string; time: HrTime; attributes?: Attributes }
  ok?: boolean
  children?: SpanSpec[]
}

/** Records a span tree with explicit times and returns the root span (already ended). */
export function record(tracer: Tracer, spec: SpanSpec, parent?: OtelSpan): OtelSpan {
  const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT
  const span = tracer.startSpan(spec.name, { startTime: spec.start, attributes: spec.attributes }, ctx)
  for (const e of spec.events ?? []) span.addEvent(e.name, e.attributes ?? {}, e.time)
  for (const child of spec.children ?? []) record(tracer, child, span)
  if (spec.error) {
    const err = Object.assign(new Error(spec.error.message), { name: spec.error.type })
    // A fixed stack keeps generated fixtures free of machine paths.
    err.stack = `${spec.error.type}: ${spec.error.message}\n    at callTool (agent/tools.ts:42:11)`
    span.recordException(err, spec.error.time)
    if (spec.error.attributes) span.setAttributes(spec.error.attributes)
    span.setStatus({ code: SpanStatusCode.ERROR, message: `${spec.error.type}: ${spec.error.message}` })
  } else if (spec.ok) {
    span.setStatus({ code: SpanStatusCode.OK })
  }
  span.end(spec.end)
  return span
}

export type HttpFailure = 401 | 403 | 404 | 429 | 500 | 503 | 'timeout'

/** Exception type, message and attributes a typical HTTP client reports for each failure. */
export const HTTP_FAILURES: Record<HttpFailure, { type: string; message: string; attributes: Attributes }> = {
  401: {
    type: 'AuthenticationError',
    message: 'Error code: 401 - Incorrect API key provided',
    attributes: { 'http.response.status_code': 401, 'error.type': '401' },
  },
  403: {
    type: 'PermissionDeniedError',
    message: 'Error code: 403 - This key may not access the orders API',
    attributes: { 'http.response.status_code': 403, 'error.type': '403' },
  },
  404: {
    type: 'NotFoundError',
    message: '404 Client Error: Not Found for url: https://api.example.com/orders/A-1042',
    attributes: { 'http.response.status_code': 404, 'error.type': '404' },
  },
  429: {
    type: 'RateLimitError',
    message: 'Error code: 429 - Rate limit reached for requests; retry after 20s',
    attributes: { 'http.response.status_code': 429, 'error.type': '429' },
  },
  500: {
    type: 'InternalServerError',
    message: 'Error code: 500 - The server had an error while processing your request',
    attributes: { 'http.response.status_code': 500, 'error.type': '500' },
  },
  503: {
    type: 'ServiceUnavailableError',
    message: 'Error code: 503 - The service is temporarily unavailable',
    attributes: { 'http.response.status_code': 503, 'error.type': '503' },
  },
  timeout: {
    type: 'TimeoutError',
    message: 'Request timed out after 30000 ms',
    attributes: { 'error.type': 'timeout' },
  },
}

/**
 * A GenAI-semconv agent run: `invoke_agent` → `chat` (asks for a tool) → `execute_tool` → `chat` (answer).
 * With `failure`, the tool call fails with that HTTP error (exception event + ERROR status) and the final
 * answer apologises. Times are fixed, with sub-microsecond parts to check exact ns.
 */
export function agentRun(
  tracer: Tracer,
  opts: { failure?: HttpFailure; offsetMs?: number; toolName?: string } = {},
): OtelSpan {
  const t = opts.offsetMs ?? 0
  const tool = opts.toolName ?? 'lookup_order'
  const args = { order_id: 'A-1042' }
  const failure = opts.failure === undefined ? undefined : HTTP_FAILURES[opts.failure]
  const userMessage = { role: 'user', parts: [{ type: 'text', content: 'Where is my order A-1042?' }] }
  const askTool = {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'call_1', name: tool, arguments: args }],
    finish_reason: 'tool_call',
  }
  const toolResult = failure ? `error: ${failure.message}` : '{"status": "shipped", "eta": "2025-03-27"}'
  const answer = failure
    ? 'Sorry, I could not look up your order right now.'
    : 'Your order A-1042 has shipped and should arrive on 27 March.'
  return record(tracer, {
    name: 'invoke_agent support',
    start: at(t),
    end: at(t + 4200, 17),
    ok: true,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.request.model': 'gpt-4o-mini',
    },
    children: [
      {
        name: 'chat gpt-4o-mini',
        start: at(t + 10, 123),
        end: at(t + 1510, 456),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
          'gen_ai.usage.input_tokens': 412,
          'gen_ai.usage.output_tokens': 23,
          'gen_ai.system_instructions': JSON.stringify([
            { type: 'text', content: 'You are a support agent. Use tools to answer.' },
          ]),
          'gen_ai.input.messages': JSON.stringify([userMessage]),
          'gen_ai.output.messages': JSON.stringify([askTool]),
        },
      },
      {
        name: `execute_tool ${tool}`,
        start: at(t + 1520, 1),
        end: at(t + 2520, 999),
        ok: !failure,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'gen_ai.tool.call.id': 'call_1',
          'gen_ai.tool.call.arguments': JSON.stringify(args),
          ...(failure ? {} : { 'gen_ai.tool.call.result': toolResult }),
        },
        error: failure && {
          type: failure.type,
          message: failure.message,
          time: at(t + 2520, 500),
          attributes: failure.attributes,
        },
      },
      {
        name: 'chat gpt-4o-mini',
        start: at(t + 2530, 7),
        end: at(t + 4190, 8),
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 480,
          'gen_ai.usage.output_tokens': 31,
          'gen_ai.input.messages': JSON.stringify([
            userMessage,
            askTool,
            { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: toolResult }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' },
          ]),
        },
      },
    ],
  })
}

/**
 * An OpenInference-instrumented run as Phoenix/Arize export it over OTLP: AGENT → LLM (flattened
 * messages, a tool call, numeric token counts) → TOOL (`tool.name`, JSON `input.value`).
 */
export function openInferenceRun(tracer: Tracer, offsetMs = 0): OtelSpan {
  const t = offsetMs
  return record(tracer, {
    name: 'ToolCallingAgent.run',
    start: at(t),
    end: at(t + 3000),
    ok: true,
    attributes: {
      'openinference.span.kind': 'AGENT',
      'input.value': JSON.stringify({ task: 'What is the capital of France?' }),
      'output.value': 'Paris',
    },
    children: [
      {
        name: 'OpenAIModel.__call__',
        start: at(t + 5, 250),
        end: at(t + 905, 750),
        ok: true,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'llm.token_count.prompt': 120,
          'llm.token_count.completion': 12,
          'llm.token_count.total': 132,
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Answer with tools.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'What is the capital of France?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_42',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'web_search',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"query": "capital of France"}',
          'input.value': JSON.stringify({ messages: ['(re-encoded conversation)'] }),
        },
      },
      {
        name: 'SearchTool',
        start: at(t + 910),
        end: at(t + 2910),
        ok: true,
        attributes: {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'web_search',
          'input.value': JSON.stringify({ args: [], kwargs: { query: 'capital of France' } }),
          'output.value': 'Paris is the capital of France.',
          'output.mime_type': 'text/plain',
        },
      },
    ],
  })
}

/** A chat span in the older GenAI conventions: per-message events, `gen_ai.choice`, `prompt_tokens`. */
export function legacyGenAiChat(tracer: Tracer, offsetMs = 0): OtelSpan {
  const t = offsetMs
  return record(tracer, {
    name: 'chat gpt-3.5-turbo',
    start: at(t),
    end: at(t + 800),
    attributes: {
      'gen_ai.system': 'openai',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-3.5-turbo',
      'gen_ai.usage.prompt_tokens': 40,
      'gen_ai.usage.completion_tokens': 9,
    },
    events: [
      { name: 'gen_ai.system.message', time: at(t + 1), attributes: { content: 'Be brief.' } },
      { name: 'gen_ai.user.message', time: at(t + 1), attributes: { content: 'Weather in Paris?' } },
      {
        name: 'gen_ai.choice',
        time: at(t + 799),
        attributes: {
          index: 0,
          finish_reason: 'tool_calls',
          message: JSON.stringify({
            role: 'assistant',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          }),
        },
      },
    ],
  })
}

/** A chat span with OpenLLMetry-style flattened `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes. */
export function openLlmetryChat(tracer: Tracer, offsetMs = 0): OtelSpan {
  return record(tracer, {
    name: 'openai.chat',
    start: at(offsetMs),
    end: at(offsetMs + 500),
    attributes: {
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.prompt_tokens': 30,
      'gen_ai.usage.completion_tokens': 5,
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'Say hi',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Hi!',
    },
  })
}

/**
 * An `invoke_agent` span (GenAI conventions, status OK) holding `children`, from 0 to `end` ms.
 *
 * @example
 * record(rec.tracer, agentSpan([{ name: 'execute_tool search', start: at(100), end: at(400) }]))
 */
export function agentSpan(children: SpanSpec[], end = 10_000): SpanSpec {
  return {
    name: 'invoke_agent support',
    start: at(0),
    end: at(end),
    ok: true,
    attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    children,
  }
}
