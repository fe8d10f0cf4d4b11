import type { Message, ToolCall } from '../span'
import { toText } from './common'

interface MessageDraft {
  role: string
  content: string
  parts?: string[]
  toolCalls?: Array<Partial<ToolCall>>
}

/** Reads `<index>` then `.` at `from`; returns [index, position after the dot] or undefined. */
function readIndex(key: string, from: number): [number, number] | undefined {
  let i = from
  let n = 0
  for (let c = key.charCodeAt(i); c >= 48 && c <= 57; c = key.charCodeAt(++i)) n = n * 10 + (c - 48)
  if (i === from || key.charCodeAt(i) !== 46) return undefined
  return [n, i + 1]
}

function strip(key: string, at: number, prefix: string): number {
  return key.startsWith(prefix, at) ? at + prefix.length : at
}

/**
 * Rebuilds messages from flattened attributes, without parsing any JSON:
 * OpenInference `llm.input_messages.N.message.{role,content,contents.J.message_content.text,
 * tool_calls.M.tool_call.{id,function.{name,arguments}}}` and OpenLLMetry
 * `gen_ai.prompt.N.{role,content,tool_calls.M.{id,name,arguments}}`.
 */
export class FlatMessages {
  private readonly drafts: MessageDraft[] = []

  /** Adds one attribute; `from` is where `<index>.` starts in the key (just after the prefix). */
  add(key: string, from: number, value: unknown): void {
    const head = readIndex(key, from)
    if (!head) return
    const draft = (this.drafts[head[0]] ??= { role: '', content: '' })
    const at = strip(key, head[1], 'message.')
    const field = key.slice(at)
    if (field === 'role') draft.role = toText(value)
    else if (field === 'content') draft.content = toText(value)
    else if (field.startsWith('tool_calls.')) this.addToolCall(draft, key, at + 11, value)
    else if (field.startsWith('contents.')) {
      const part = readIndex(key, at + 9)
      if (part && key.endsWith('message_content.text')) (draft.parts ??= [])[part[0]] = toText(value)
    }
  }

  private addToolCall(draft: MessageDraft, key: string, from: number, value: unknown): void {
    const head = readIndex(key, from)
    if (!head) return
    const call = ((draft.toolCalls ??= [])[head[0]] ??= {})
    const field = key.slice(strip(key, strip(key, head[1], 'tool_call.'), 'function.'))
    if (field === 'name') call.name = toText(value)
    else if (field === 'arguments') call.arguments = toText(value)
    else if (field === 'id') call.id = toText(value)
  }

  get empty(): boolean {
    return this.drafts.length === 0
  }

  /** The messages in index order (gaps dropped), or undefined if no attribute matched. */
  result(): Message[] | undefined {
    if (this.drafts.length === 0) return undefined
    const out: Message[] = []
    for (const d of this.drafts) {
      if (!d) continue
      const message: Message = { role: d.role, content: d.content === '' && d.parts ? d.parts.filter((p) => p !== undefined).join('\n') : d.content }
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
