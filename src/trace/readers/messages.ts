import type { Message, ToolCall } from '../span'
import { toText } from './common'

interface MessageDraft {
  role: string
  content: string
  parts?: string[]
  toolCalls?: Array<Partial<ToolCall>>
}

/**
 * Reads `<index>.` at `from`: returns the index and leaves the position after the dot in `cursor.at`,
 * or returns -1. A shared cursor instead of a tuple: this runs for every message key of every LLM span.
 */
function readIndex(key: string, from: number, cursor: { at: number }): number {
  let i = from
  let n = 0
  for (let c = key.charCodeAt(i); c >= 48 && c <= 57; c = key.charCodeAt(++i)) n = n * 10 + (c - 48)
  if (i === from || key.charCodeAt(i) !== 46) return -1
  cursor.at = i + 1
  return n
}

function strip(key: string, at: number, prefix: string): number {
  return key.startsWith(prefix, at) ? at + prefix.length : at
}

/** True if the key, from `at`, is exactly `field` (no substring allocated). */
function isField(key: string, at: number, field: string): boolean {
  return key.length - at === field.length && key.endsWith(field)
}

/**
 * Rebuilds messages from flattened attributes, without parsing any JSON:
 * OpenInference `llm.input_messages.N.message.{role,content,contents.J.message_content.text,
 * tool_calls.M.tool_call.{id,function.{name,arguments}}}` and OpenLLMetry
 * `gen_ai.prompt.N.{role,content,tool_calls.M.{id,name,arguments}}`.
 */
export class FlatMessages {
  private readonly drafts: MessageDraft[] = []
  private readonly cursor = { at: 0 }

  /** Adds one attribute; `from` is where `<index>.` starts in the key (just after the prefix). */
  add(key: string, from: number, value: unknown): void {
    const index = readIndex(key, from, this.cursor)
    if (index < 0) return
    const draft = (this.drafts[index] ??= { role: '', content: '' })
    const at = strip(key, this.cursor.at, 'message.')
    if (isField(key, at, 'role')) draft.role = toText(value)
    else if (isField(key, at, 'content')) draft.content = toText(value)
    else if (key.startsWith('tool_calls.', at)) this.addToolCall(draft, key, at + 11, value)
    else if (key.startsWith('contents.', at)) {
      const part = readIndex(key, at + 9, this.cursor)
      if (part >= 0 && key.endsWith('message_content.text')) (draft.parts ??= [])[part] = toText(value)
    }
  }

  private addToolCall(draft: MessageDraft, key: string, from: number, value: unknown): void {
    const index = readIndex(key, from, this.cursor)
    if (index < 0) return
    const call = ((draft.toolCalls ??= [])[index] ??= {})
    const at = strip(key, strip(key, this.cursor.at, 'tool_call.'), 'function.')
    if (isField(key, at, 'name')) call.name = toText(value)
    else if (isField(key, at, 'arguments')) call.arguments = toText(value)
    else if (isField(key, at, 'id')) call.id = toText(value)
  }

  get empty(): boolean {
    return this.drafts.length === 0
  }

  /** The messages in index order (gaps dropped), or undefined if no attribute matched. */
  result(): Message[] | undefined {
    if (this.drafts.length === 0) return undefined
    const out: Message[] = []
    for (let i = 0; i < this.drafts.length; i++) {
      const d = this.drafts[i]
      if (!d) continue
      const message: Message = {
        role: d.role,
        content: d.content === '' && d.parts ? d.parts.filter((p) => p !== undefined).join('\n') : d.content,
      }
      if (d.toolCalls) message.toolCalls = d.toolCalls.filter(Boolean).map(finishCall)
      out.push(message)
    }
    return out
  }
}

function finishCall(call: Partial<ToolCall>): ToolCall {
  const out: ToolCall = { name: call.name ?? '', arguments: call.arguments ?? '' }
  if (call.id !== undefined) out.id = call.id
  return out
}
