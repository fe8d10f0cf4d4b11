// Reads an OpenAI chat-completions request body into what rules match on and what the reply must fit.
import * as z from 'zod'
import type { PromptMatch } from './schemas'

// Loose on purpose: real clients send many fields the fake judge ignores (temperature, seed, tools …).
const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() })
const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
})
export const ChatRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(MessageSchema).min(1, { error: 'messages must hold at least one message' }),
  stream: z.boolean().nullable().optional(),
  response_format: z
    .looseObject({
      type: z.string(),
      json_schema: z
        .looseObject({ name: z.string().optional(), schema: z.record(z.string(), z.unknown()).optional() })
        .optional(),
    })
    .nullable()
    .optional(),
})
export type ChatRequest = z.infer<typeof ChatRequestSchema>

/** What the fake judge needs from one request. */
export interface PromptView {
  model: string | undefined
  system: string
  /** System text and user text parts, newline-joined: what rules match on. */
  prompt: string
  imageCount: number
  responseFormat: 'json_schema' | 'json_object' | 'text' | 'none'
  schemaName: string | null
  /** The requested JSON schema, when `json_schema` mode carries one. */
  schema: Record<string, unknown> | null
  stream: boolean
}

const IMAGE_PART_TYPES = new Set(['image_url', 'input_image', 'image'])

/** Extracts the prompt text, images and response format from a validated request. */
export function viewRequest(request: ChatRequest): PromptView {
  const system: string[] = []
  const user: string[] = []
  let imageCount = 0
  for (const message of request.messages) {
    const isSystem = message.role === 'system' || message.role === 'developer'
    if (!isSystem && message.role !== 'user') continue
    const parts =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? [])
    for (const part of parts) {
      if (IMAGE_PART_TYPES.has(part.type)) imageCount++
      else if (typeof part.text === 'string') (isSystem ? system : user).push(part.text)
    }
  }
  const format = request.response_format
  const type = format?.type
  const responseFormat = type === 'json_schema' || type === 'json_object' || type === 'text' ? type : 'none'
  return {
    model: request.model,
    system: system.join('\n'),
    prompt: [...system, ...user].join('\n'),
    imageCount,
    responseFormat,
    schemaName: responseFormat === 'json_schema' ? (format?.json_schema?.name ?? null) : null,
    schema: responseFormat === 'json_schema' ? (format?.json_schema?.schema ?? null) : null,
    stream: request.stream === true,
  }
}

const regexCache = new Map<string, RegExp>()

function compiled(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`
  let re = regexCache.get(key)
  if (!re) {
    // Global/sticky flags would make test() stateful across requests.
    re = new RegExp(source, flags.replace(/[gy]/g, ''))
    regexCache.set(key, re)
  }
  return re
}

/**
 * true when every condition of `when` holds for the request (an absent or empty `when` matches all).
 * @example
 * matchesPrompt({ contains: 'chart' }, view) // true when the prompt mentions a chart
 */
export function matchesPrompt(when: PromptMatch | undefined, view: PromptView): boolean {
  if (!when) return true
  if (when.contains !== undefined) {
    const needles = Array.isArray(when.contains) ? when.contains : [when.contains]
    if (!needles.every((needle) => view.prompt.includes(needle))) return false
  }
  if (when.regex !== undefined && !compiled(when.regex, when.regexFlags ?? '').test(view.prompt)) return false
  if (when.schemaName !== undefined && view.schemaName !== when.schemaName) return false
  if (when.hasImage !== undefined && when.hasImage !== view.imageCount > 0) return false
  return true
}
