// Span payloads as plain text for judge prompts: messages with roles, tool calls, JSON, errors.
import type { Message, Span } from '../trace/span'
import { CHARS_PER_TOKEN, estimateTokens } from './tokens'
import { headTail } from './truncate'

/** Share of a message budget the first (system/instruction) message may keep when the rest is cut. */
const FIRST_MESSAGE_SHARE = 0.25

/**
 * Any payload as text: strings as they are, everything else as compact JSON.
 *
 * @example
 * payloadText({ query: 'x' }) // '{"query":"x"}'
 */
export function payloadText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** True for a chat message list as readers store LLM input/output. */
export function isMessageList(value: unknown): value is Message[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (m) =>
        m !== null &&
        typeof m === 'object' &&
        typeof (m as Message).role === 'string' &&
        typeof (m as Message).content === 'string',
    )
  )
}

/**
 * One message as `[role]` + content + requested tool calls.
 *
 * @example
 * renderMessage({ role: 'user', content: 'hi' }) // '[user]\nhi'
 */
export function renderMessage(m: Message): string {
  const calls = (m.toolCalls ?? []).map((c) => `→ tool call ${c.name}(${c.arguments})`)
  return [`[${m.role}]`, m.content, ...calls].filter((line) => line !== '').join('\n')
}

const SEP = '\n\n'

/**
 * A conversation cut to `maxTokens`: everything when it fits; otherwise the head of the first message
 * (the system prompt), a marker saying how many messages were elided, and as many of the last
 * messages as fit (the last one itself cut head+tail when it alone is too long).
 *
 * @example
 * fitMessages(llmSpan.input as Message[], 4000) // '[system]\nYou are …\n\n[… 37 messages (81240 chars, ~20310 tokens) elided …]\n\n[user]\n…'
 */
export function fitMessages(messages: readonly Message[], maxTokens: number): string {
  const rendered = messages.map(renderMessage)
  const whole = rendered.join(SEP)
  if (estimateTokens(whole) <= maxTokens) return whole
  if (rendered.length === 1) return headTail(whole, maxTokens)
  const maxChars = Math.max(0, Math.floor(maxTokens)) * CHARS_PER_TOKEN
  // Reserve the marker's room first (its digits are bounded by the whole text's length).
  const markerRoom =
    `[… ${rendered.length} messages (${whole.length} chars, ~${estimateTokens(whole)} tokens) elided …]`.length +
    2 * SEP.length
  const first = headTail(rendered[0], Math.floor((maxChars * FIRST_MESSAGE_SHARE) / CHARS_PER_TOKEN))
  let room = maxChars - first.length - markerRoom
  const tail: string[] = []
  for (let i = rendered.length - 1; i >= 1 && room > 0; i--) {
    const cost = rendered[i].length + SEP.length
    if (cost <= room) {
      tail.unshift(rendered[i])
      room -= cost
      continue
    }
    // The newest message matters most: cut it rather than drop it.
    if (tail.length === 0) tail.unshift(headTail(rendered[i], Math.floor((room - SEP.length) / CHARS_PER_TOKEN)))
    break
  }
  const elided = rendered.slice(1, rendered.length - tail.length)
  if (elided.length === 0) return [first, ...tail].join(SEP)
  const elidedChars = elided.reduce((n, t) => n + t.length, 0)
  const marker = `[… ${elided.length} message${elided.length === 1 ? '' : 's'} (${elidedChars} chars, ~${Math.ceil(elidedChars / CHARS_PER_TOKEN)} tokens) elided …]`
  return [first, marker, ...tail].join(SEP)
}

/**
 * A payload as people read it, uncut: message lists rendered with roles, anything else as {@link payloadText}.
 *
 * @example
 * plainText(llmSpan.output) // '[assistant]\nThought: …'
 */
export function plainText(value: unknown): string {
  return isMessageList(value) ? value.map(renderMessage).join(SEP) : payloadText(value)
}

/**
 * A span's input or output as text within `maxTokens`: message lists keep the system head and the
 * newest messages, anything else is cut head+tail.
 *
 * @example
 * fitPayload(toolSpan.output, 2000)
 */
export function fitPayload(value: unknown, maxTokens: number): string {
  if (isMessageList(value)) return fitMessages(value, maxTokens)
  return headTail(payloadText(value), maxTokens)
}

/** Untruncated length in tokens of what {@link fitPayload} would render. */
export function payloadTokens(value: unknown): number {
  return estimateTokens(plainText(value))
}

/**
 * The error a span recorded: status message, then each exception's type and message (stack traces
 * left out: the last frame is in the message in every format we read). Empty when there is none.
 *
 * @example
 * errorText(toolSpan) // 'HTTPError: 404 Client Error …'
 */
export function errorText(span: Span): string {
  const parts: string[] = []
  if (span.statusMessage) parts.push(span.statusMessage)
  for (const e of span.events) {
    if (e.name !== 'exception') continue
    const type = String(e.attributes['exception.type'] ?? '')
    const message = String(e.attributes['exception.message'] ?? '')
    const line = [type, message].filter(Boolean).join(': ')
    if (line && !parts.some((p) => p.includes(message || type))) parts.push(line)
  }
  return parts.join('\n')
}
