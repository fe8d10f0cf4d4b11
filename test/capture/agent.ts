// A small support agent traced the way real ones are: @opentelemetry/api tracers, startActiveSpan, awaits
// between steps, GenAI semantic-convention attributes. It knows nothing of agent-verdict.
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api'

// Taken at import, before any provider exists, as an agent module does: the API's proxy finds the provider later.
const tracer = trace.getTracer('support-agent')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function step<T>(name: string, attributes: Record<string, string | number>, work: (span: Span) => Promise<T>) {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span)
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message })
      throw error
    } finally {
      span.end()
    }
  })
}

/** The waits between steps of case `i` (ms): uneven, so concurrent runs interleave their spans. */
export const waitsOf = (i: number) => [(i * 7) % 11, (i * 5) % 13, (i * 3) % 7]

/**
 * One run: invoke_agent › chat, execute_tool lookup_order (order `A-<i>`), chat. Every span carries `case`.
 * `onOpen` is called once the root span is open (to measure how many runs overlap).
 */
export async function supportAgent(i: number, hooks: { onOpen?: () => void; failTool?: boolean } = {}) {
  const [a, b, c] = waitsOf(i)
  return step('invoke_agent support', { 'gen_ai.operation.name': 'invoke_agent', case: i }, async () => {
    hooks.onOpen?.()
    await step('chat gpt-4o-mini', chatAttributes(i, 'plan'), () => sleep(a))
    const args = { order_id: `A-${i}` }
    await step(
      'execute_tool lookup_order',
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_order',
        'gen_ai.tool.call.arguments': JSON.stringify(args),
        case: i,
      },
      async (span) => {
        await sleep(b)
        if (hooks.failTool) throw new Error(`order A-${i} not found`)
        span.setAttribute('gen_ai.tool.call.result', JSON.stringify({ status: 'shipped' }))
      },
    )
    await step('chat gpt-4o-mini', chatAttributes(i, 'answer'), () => sleep(c))
    return `case ${i}: order A-${i} has shipped`
  })
}

function chatAttributes(i: number, what: string) {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 100 + i,
    'gen_ai.usage.output_tokens': 10,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `${what} ${i}` }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `ok ${i}` }] }]),
    case: i,
  }
}
