// Synthetic OTLP JSON agent runs for the per-span ingest figure: deterministic, GenAI-convention attributes.

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')
const str = (value: string) => ({ stringValue: value })
const int = (value: number) => ({ intValue: String(value) })
const kv = (key: string, value: unknown) => ({ key, value })

// Realistic sizes: a prompt excerpt of ~1 KB, a model reply of ~300 B, a tool result of ~600 B.
const PROMPT = 'You are a research agent. Use the tools to answer the question, cite what you find. '.repeat(12)
const REPLY = 'I will search for the figures first and then read the most relevant page before answering. '.repeat(3)
const RESULT = 'Title: Annual revenue by region 2023\nRegion A 12.4, Region B 9.8, Region C 7.1 (million USD). '.repeat(
  6,
)
const FAILURES = [
  { code: 503, type: 'ServiceUnavailableError', message: 'HTTP 503 Service Unavailable: upstream overloaded' },
  { code: 429, type: 'RateLimitError', message: 'HTTP 429 Too Many Requests: retry after 2s' },
  { code: 404, type: 'HTTPError', message: '404 Client Error: Not Found for url: https://example.org/missing' },
]

/**
 * An OTLP `ExportTraceServiceRequest` (as JSON text) of one agent run with `spans` spans:
 * an agent root, then steps of (chain → llm chat + execute_tool). Every 25th tool call fails with an
 * exception event and an HTTP status; every 40th step repeats the previous tool call.
 *
 * @example
 * const text = syntheticOtlpTrace(10_000)
 */
export function syntheticOtlpTrace(spans: number): string {
  const traceId = hex(0xabc, 32)
  const t0 = 1_742_000_000_000_000_000n
  const out: unknown[] = []
  let id = 1
  const span = (
    parent: number | undefined,
    name: string,
    startMs: number,
    endMs: number,
    attributes: unknown[],
    extra: Record<string, unknown> = {},
  ) => {
    const spanId = id++
    out.push({
      traceId,
      spanId: hex(spanId, 16),
      ...(parent === undefined ? {} : { parentSpanId: hex(parent, 16) }),
      name,
      kind: 1,
      startTimeUnixNano: String(t0 + BigInt(Math.round(startMs * 1e6))),
      endTimeUnixNano: String(t0 + BigInt(Math.round(endMs * 1e6))),
      attributes,
      events: [],
      status: { code: 1 },
      ...extra,
    })
    return spanId
  }
  const steps = Math.max(1, Math.floor((spans - 1) / 3))
  const root = span(undefined, 'invoke_agent research', 0, steps * 100 + 10, [
    kv('gen_ai.operation.name', str('invoke_agent')),
    kv('gen_ai.agent.name', str('research')),
  ])
  for (let s = 0; s < steps && id <= spans; s++) {
    const at = s * 100
    const step = span(root, `step ${s + 1}`, at, at + 95, [kv('gen_ai.operation.name', str('chain'))])
    const query = s % 40 === 39 ? `revenue by region ${s - 1}` : `revenue by region ${s}`
    const args = JSON.stringify({ query })
    span(step, 'chat gpt-4.1', at + 1, at + 60, [
      kv('gen_ai.operation.name', str('chat')),
      kv('gen_ai.request.model', str('gpt-4.1')),
      kv('gen_ai.usage.input_tokens', int(900 + (s % 50))),
      kv('gen_ai.usage.output_tokens', int(120 + (s % 30))),
      kv(
        'gen_ai.input.messages',
        str(
          JSON.stringify([
            { role: 'system', parts: [{ type: 'text', content: PROMPT }] },
            { role: 'user', parts: [{ type: 'text', content: `step ${s}` }] },
          ]),
        ),
      ),
      kv(
        'gen_ai.output.messages',
        str(
          JSON.stringify([
            {
              role: 'assistant',
              parts: [
                { type: 'text', content: REPLY },
                { type: 'tool_call', name: 'web_search', arguments: { query } },
              ],
            },
          ]),
        ),
      ),
    ])
    if (id > spans) break
    const failure = s % 25 === 24 ? FAILURES[((s / 25) % FAILURES.length) | 0] : undefined
    span(
      step,
      'execute_tool web_search',
      at + 61,
      at + 94,
      [
        kv('gen_ai.operation.name', str('execute_tool')),
        kv('gen_ai.tool.name', str('web_search')),
        kv('gen_ai.tool.call.arguments', str(args)),
        ...(failure
          ? [kv('http.response.status_code', int(failure.code)), kv('error.type', str(failure.type))]
          : [kv('gen_ai.tool.call.result', str(RESULT))]),
      ],
      failure
        ? {
            status: { code: 2, message: `${failure.type}: ${failure.message}` },
            events: [
              {
                name: 'exception',
                timeUnixNano: String(t0 + BigInt((at + 94) * 1e6)),
                attributes: [kv('exception.type', str(failure.type)), kv('exception.message', str(failure.message))],
              },
            ],
          }
        : {},
    )
  }
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', str('bench-agent'))] },
        scopeSpans: [{ scope: { name: 'bench' }, spans: out }],
      },
    ],
  })
}
