import { parseBoundedJson } from '../depth'
import type { Message, ToolCall } from '../span'
import { toText } from './common'
import { looksLikeJson } from './payload'

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A JSON string is parsed (if it looks like JSON); structured values pass through; else undefined. */
export function structured(value: unknown): unknown {
  if (typeof value !== 'string') return value
  if (!looksLikeJson(value)) return undefined
  return parseBoundedJson(value)
}

/** Text of a content value: a string, or text blocks (`{type:'text', content|text}`, `{text}`) joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    // Some instrumentations (Strands) JSON-encode content blocks into the string.
    const blocks = looksLikeJson(content) ? structured(content) : undefined
    return Array.isArray(blocks) ? contentText(blocks) : content
  }
  if (Array.isArray(content)) {
    // Most messages have one text block: joined only when there are several.
    let first: string | undefined
    let texts: string[] | undefined
    for (const block of content) {
      let text: string | undefined
      if (typeof block === 'string') text = block
      else if (isObject(block)) {
        const t = block.content ?? block.text
        if (typeof t === 'string' && (block.type === undefined || block.type === 'text')) text = t
        else if (block.type === 'tool_call_response' || 'toolResult' in block)
          text = toText(block.response ?? block.result ?? block.toolResult)
      }
      if (text === undefined) continue
      if (first === undefined) first = text
      else (texts ??= [first]).push(text)
    }
    return texts ? texts.join('\n') : (first ?? '')
  }
  return toText(content)
}

function toolCall(raw: unknown): ToolCall | undefined {
  if (!isObject(raw)) return undefined
  const fn = isObject(raw.function) ? raw.function : raw
  if (typeof fn.name !== 'string') return undefined
  const call: ToolCall = { name: fn.name, arguments: toText(fn.arguments ?? fn.input ?? '') }
  if (typeof raw.id === 'string') call.id = raw.id
  return call
}

function toolCallsOf(raw: unknown): ToolCall[] | undefined {
  const list = structured(raw)
  if (!Array.isArray(list)) return undefined
  const calls = list.map(toolCall).filter((c): c is ToolCall => c !== undefined)
  return calls.length > 0 ? calls : undefined
}

/**
 * One message in any of the GenAI shapes: semconv ≥1.37 `{role, parts:[{type:'text',content},
 * {type:'tool_call',id,name,arguments}]}`, OpenAI-style `{role, content, tool_calls}`, or a
 * `gen_ai.choice` body `{message: {...}}`.
 */
export function toMessage(raw: unknown, defaultRole: string): Message | undefined {
  if (typeof raw === 'string') return { role: defaultRole, content: raw }
  if (!isObject(raw)) return undefined
  const inner = isObject(raw.message) ? raw.message : raw
  const role = typeof inner.role === 'string' ? inner.role : defaultRole
  let content = ''
  let calls: ToolCall[] | undefined
  if (Array.isArray(inner.parts)) {
    content = contentText(inner.parts)
    for (const part of inner.parts) {
      if (!isObject(part) || part.type !== 'tool_call') continue
      const call = toolCall(part)
      if (call) (calls ??= []).push(call)
    }
  } else {
    content = inner.content === undefined ? '' : contentText(inner.content)
  }
  calls ??= toolCallsOf(inner.tool_calls)
  const message: Message = { role, content }
  if (calls) message.toolCalls = calls
  return message
}

/**
 * `text` as a slice of `source` when it appears there verbatim (no JSON escapes in it): V8 keeps such a
 * slice as a pointer into `source`, which the span holds anyway as its attribute, instead of a second
 * copy of the prompt that the collector would move along with it.
 */
function shareText(source: string, text: string): string {
  if (text.length < SHARE_MIN) return text
  const at = source.indexOf(text)
  return at === -1 ? text : source.slice(at, at + text.length)
}

/** Shorter strings are copied by V8 even when sliced (its sliced-string minimum is 13), and are cheap to copy. */
const SHARE_MIN = 64

/** A list of messages (JSON string or array); a bare string becomes one message with the default role. */
export function toMessages(value: unknown, defaultRole: string): Message[] | undefined {
  const list = typeof value === 'string' && !looksLikeJson(value) ? [value] : structured(value)
  const items = Array.isArray(list) ? list : list === undefined ? undefined : [list]
  if (!items) return undefined
  const out: Message[] = []
  for (const item of items) {
    const m = toMessage(item, defaultRole)
    if (!m) continue
    if (typeof value === 'string') m.content = shareText(value, m.content)
    out.push(m)
  }
  return out.length > 0 ? out : undefined
}
