// The few lines a reviewer reads first in a recorded call: the model, the system and last user message, and the
// answer, read from the shapes of OpenAI chat completions and responses, Anthropic messages and Bedrock Converse
// (plain and streamed). Anything else gets no summary: a guess would mislead more than it helps.
import type { CallSummary, RecordedBody } from './format'

const EXCERPT = 160
type Json = unknown

function excerpt(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  const flat = text.replace(/\s+/g, ' ').trim()
  if (!flat) return undefined
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat
}

const isObj = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v)
const str = (v: Json) => (typeof v === 'string' ? v : undefined)

/** The text of a message's content: a string, or the `text` of its parts (OpenAI, Anthropic, Bedrock shapes). */
function contentText(content: Json): string | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const parts = content.flatMap((p) => {
    if (typeof p === 'string') return [p]
    if (!isObj(p)) return []
    if (typeof p.text === 'string') return [p.text]
    if (isObj(p.toolUse)) return [`→ ${str(p.toolUse.name) ?? 'tool'}`]
    if (p.type === 'tool_use') return [`→ ${str(p.name) ?? 'tool'}`]
    return []
  })
  return parts.length ? parts.join(' ') : undefined
}

function lastOfRole(messages: Json, role: string): string | undefined {
  if (!Array.isArray(messages)) return undefined
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (isObj(m) && m.role === role) return contentText(m.content)
  }
  return undefined
}

function requestParts(json: Json, url: string): Omit<CallSummary, 'answer'> {
  const model = isObj(json) ? str(json.model) : undefined
  const bedrockModel = /\/model\/([^/]+)\/(converse|converse-stream|invoke)/.exec(url)?.[1]
  if (!isObj(json)) return bedrockModel ? { model: decodeURIComponent(bedrockModel) } : {}
  const system =
    str(json.instructions) ??
    contentText(json.system) ??
    lastOfRole(json.messages, 'system') ??
    lastOfRole(json.input, 'system')
  const user =
    lastOfRole(json.messages, 'user') ?? (typeof json.input === 'string' ? json.input : lastOfRole(json.input, 'user'))
  return {
    ...((model ?? bedrockModel) ? { model: model ?? decodeURIComponent(bedrockModel!) } : {}),
    ...(excerpt(system) ? { system: excerpt(system) } : {}),
    ...(excerpt(user) ? { user: excerpt(user) } : {}),
  }
}

function toolCalls(calls: Json): string | undefined {
  if (!Array.isArray(calls) || calls.length === 0) return undefined
  return calls
    .map((c) =>
      isObj(c) && isObj(c.function)
        ? `→ ${str(c.function.name) ?? 'tool'}(${str(c.function.arguments) ?? ''})`
        : '→ tool',
    )
    .join(' ')
}

/** The answer of a whole JSON reply. */
function jsonAnswer(json: Json): string | undefined {
  if (!isObj(json)) return undefined
  if (Array.isArray(json.choices) && isObj(json.choices[0])) {
    const m = json.choices[0].message
    if (isObj(m)) return contentText(m.content) ?? toolCalls(m.tool_calls)
  }
  if (typeof json.output_text === 'string') return json.output_text
  if (Array.isArray(json.output))
    return json.output
      .flatMap((o) =>
        isObj(o) ? [contentText(o.content) ?? (o.type === 'function_call' ? `→ ${str(o.name)}` : '')] : [],
      )
      .join(' ')
  if (json.type === 'message' && Array.isArray(json.content)) return contentText(json.content)
  if (isObj(json.output) && isObj(json.output.message)) return contentText(json.output.message.content)
  return undefined
}

/** The answer of a stream, its text deltas joined (OpenAI chat and responses, Anthropic, Bedrock frames). */
function streamAnswer(items: Json[]): string | undefined {
  let text = ''
  for (const d of items) {
    if (!isObj(d)) continue
    if (Array.isArray(d.choices) && isObj(d.choices[0]) && isObj(d.choices[0].delta))
      text += str(d.choices[0].delta.content) ?? ''
    else if (d.type === 'response.output_text.delta') text += str(d.delta) ?? ''
    else if (d.type === 'content_block_delta' && isObj(d.delta)) text += str(d.delta.text) ?? ''
    else if (isObj(d.delta) && typeof d.delta.text === 'string') text += d.delta.text // Bedrock contentBlockDelta
  }
  return text || undefined
}

/**
 * The review summary of a call, or `undefined` when neither side has a recognisable model-call shape.
 *
 * @example
 * summarize(url, { json: { model: 'gpt-4.1', messages } }, { json: completion }) // { model, system, user, answer }
 */
export function summarize(
  url: string,
  request: RecordedBody | undefined,
  response: RecordedBody | undefined,
): CallSummary | undefined {
  const parts = requestParts(request && 'json' in request ? request.json : undefined, url)
  let answer: string | undefined
  if (response && 'json' in response) answer = jsonAnswer(response.json)
  else if (response && 'events' in response) answer = streamAnswer(response.events.map((e) => e.data))
  else if (response && 'frames' in response) answer = streamAnswer(response.frames.map((f) => f.payload))
  const summary: CallSummary = { ...parts, ...(excerpt(answer) ? { answer: excerpt(answer) } : {}) }
  // A model call names its model; anything else (a tool API) is read in full below the summary.
  return summary.model ? summary : undefined
}
