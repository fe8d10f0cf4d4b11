import { parseBoundedJson } from '../depth'
import type { Message, Span, SpanKind } from '../span'
import { asString, tokenCounts } from './common'
import type { ReadContext } from './context'
import { contentText, toMessage, toMessages } from './genai-messages'
import { FlatMessages } from './messages'
import { readPayload } from './payload'

/** `gen_ai.operation.name` → kind. */
const OPERATIONS: Record<string, SpanKind> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  embeddings: 'other',
}

/** Older per-message span events and the role each stands for. */
const INPUT_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
}

/** True if the span carries GenAI semantic-convention attributes or events. */
export function hasGenAi(span: Span): boolean {
  for (const key in span.attributes) if (key.startsWith('gen_ai.')) return true
  for (const e of span.events) if (e.name.startsWith('gen_ai.')) return true
  return false
}

/**
 * Fills kind, model, tokens, messages and tool fields from GenAI semantic conventions: current
 * (`gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions`) and older
 * (per-message events, `gen_ai.prompt`/`gen_ai.completion` events and `gen_ai.prompt.N.*` attributes).
 *
 * @example
 * const span = { ...someSpan, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' } }
 * applyGenAi(span, new ReadContext())
 * span.kind // 'llm'
 */
export function applyGenAi(span: Span, ctx: ReadContext): void {
  const a = span.attributes
  const model = asString(a['gen_ai.response.model']) ?? asString(a['gen_ai.request.model'])
  if (model) span.model = model
  span.tokens = tokenCounts(
    a['gen_ai.usage.input_tokens'] ?? a['gen_ai.usage.prompt_tokens'],
    a['gen_ai.usage.output_tokens'] ?? a['gen_ai.usage.completion_tokens'],
    a['gen_ai.usage.total_tokens'] ?? a['llm.usage.total_tokens'],
    (message) => ctx.warnTokens(span.traceId, span.id, span.name, message),
  )
  const toolName = asString(a['gen_ai.tool.name'])
  const op = asString(a['gen_ai.operation.name'])
  span.kind =
    op !== undefined && op in OPERATIONS ? OPERATIONS[op] : toolName ? 'tool' : model || span.tokens ? 'llm' : 'other'

  if (span.kind === 'tool') {
    span.toolName = toolName
    // Tool arguments are what a judge checks, so they are parsed whatever their size.
    span.toolArgs = readPayload(a['gen_ai.tool.call.arguments'], span, ctx, { limit: Infinity })
    span.input = span.toolArgs
    span.output = readPayload(a['gen_ai.tool.call.result'], span, ctx)
    return
  }
  const input = inputMessages(span)
  const output = outputMessages(span)
  if (input) span.input = input
  if (output) span.output = output
}

function inputMessages(span: Span): Message[] | undefined {
  const a = span.attributes
  const system = a['gen_ai.system_instructions']
  const systemMessage: Message[] = system === undefined ? [] : [{ role: 'system', content: contentText(system) }]
  let messages = toMessages(a['gen_ai.input.messages'], 'user')
  if (!messages) {
    const fromEvents: Message[] = []
    for (const e of span.events) {
      const role = INPUT_EVENTS[e.name]
      if (role) {
        const m = toMessage(eventBody(e.attributes), role)
        if (m) fromEvents.push(m)
      } else if (e.name === 'gen_ai.content.prompt') {
        messages = toMessages(e.attributes['gen_ai.prompt'], 'user')
      }
    }
    if (fromEvents.length > 0) messages = fromEvents
  }
  messages ??= toMessages(a['gen_ai.prompt'], 'user') ?? flat(a, 'gen_ai.prompt.')
  if (!messages) return systemMessage.length > 0 ? systemMessage : undefined
  return systemMessage.length > 0 ? [...systemMessage, ...messages] : messages
}

function outputMessages(span: Span): Message[] | undefined {
  const a = span.attributes
  let messages = toMessages(a['gen_ai.output.messages'], 'assistant')
  if (messages) return messages
  const choices: Message[] = []
  for (const e of span.events) {
    if (e.name === 'gen_ai.choice') {
      const m = toMessage(eventBody(e.attributes), 'assistant')
      if (m) choices.push(m)
    } else if (e.name === 'gen_ai.content.completion') {
      messages = toMessages(e.attributes['gen_ai.completion'], 'assistant')
    }
  }
  if (choices.length > 0) return choices
  return messages ?? toMessages(a['gen_ai.completion'], 'assistant') ?? flat(a, 'gen_ai.completion.')
}

/** An event's message body: its attributes, or the JSON some SDKs put in `gen_ai.event.content`. */
function eventBody(attrs: Record<string, unknown>): unknown {
  const packed = attrs['gen_ai.event.content']
  if (typeof packed === 'string') {
    const body = parseBoundedJson(packed)
    return body === undefined ? { content: packed } : body
  }
  if (typeof attrs.message === 'string') {
    const message = parseBoundedJson(attrs.message)
    return message === undefined ? { ...attrs, content: attrs.message } : { ...attrs, message }
  }
  return attrs
}

function flat(attrs: Record<string, unknown>, prefix: string): Message[] | undefined {
  let messages: FlatMessages | undefined
  for (const key in attrs)
    if (key.startsWith(prefix)) (messages ??= new FlatMessages()).add(key, prefix.length, attrs[key])
  return messages?.result()
}
