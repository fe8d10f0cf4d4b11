// Shared helpers for fake-judge tests: a real OpenAI SDK client and realistic judge requests.
import OpenAI from 'openai'
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionContentPart,
} from 'openai/resources/chat/completions'
import type { FakeJudge } from '../../src/testing'

/** The real SDK, pointed at the fake judge, with no retries so every status reaches the test. */
export function clientFor(judge: FakeJudge, options: { timeout?: number; maxRetries?: number } = {}): OpenAI {
  return new OpenAI({
    baseURL: judge.baseURL,
    apiKey: 'test',
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 10_000,
  })
}

/** A 1×1 PNG as a data URL, the way providers send image bytes. */
export const TINY_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

export interface JudgeCall {
  system?: string
  user: string
  images?: number
  schemaName?: string
  schema?: Record<string, unknown>
  jsonObject?: boolean
}

/** A chat.completions request shaped like the project's judge providers send it. */
export function judgeParams(call: JudgeCall): ChatCompletionCreateParamsNonStreaming {
  const content: ChatCompletionContentPart[] = [{ type: 'text', text: call.user }]
  for (let i = 0; i < (call.images ?? 0); i++) content.push({ type: 'image_url', image_url: { url: TINY_PNG } })
  return {
    model: 'judge-model',
    messages: [
      { role: 'system', content: call.system ?? 'You are an evaluation judge. Reason first, then score.' },
      { role: 'user', content },
    ],
    response_format: call.schema
      ? { type: 'json_schema', json_schema: { name: call.schemaName ?? 'verdict', strict: true, schema: call.schema } }
      : call.jsonObject
        ? { type: 'json_object' }
        : undefined,
  }
}

/** Sends one judge request and returns the parsed JSON reply plus the raw completion. */
export async function judgeOnce(client: OpenAI, call: JudgeCall) {
  const completion = await client.chat.completions.create(judgeParams(call))
  const content = completion.choices[0]?.message.content ?? ''
  return { completion, content, reply: JSON.parse(content) as Record<string, unknown> }
}
