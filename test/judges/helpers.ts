// Shared fixtures for the judge tests: a realistic reply schema and a request with a real image.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import * as z from 'zod'
import type { JudgeRequest } from '../../src/judges/types'

export const LikertSchema = z.object({
  reasoning: z.string(),
  score: z.number().int().min(1).max(5),
  category: z.enum(['Formatting Errors', 'none']).optional(),
})
export type Likert = z.infer<typeof LikertSchema>

export const shapesPng = readFileSync(new URL('../fixtures/images/shapes.png', import.meta.url))

export function likertRequest(overrides: Partial<JudgeRequest<Likert>> = {}): JudgeRequest<Likert> {
  return {
    metric: 'overall-quality',
    promptVersion: 'v1',
    system: 'You judge image descriptions. Reason first, then score 1-5.',
    content: [
      { type: 'text', text: 'Describe the shapes in the image.\nAnswer: a red circle and a blue square.' },
      {
        type: 'image',
        bytes: new Uint8Array(shapesPng),
        format: 'png',
        digest: createHash('sha256').update(shapesPng).digest('hex'),
      },
    ],
    schema: LikertSchema,
    schemaName: 'overall_quality',
    ...overrides,
  }
}

/** A chat.completion body in the real OpenAI shape. */
export function completion(content: string, usage = { prompt_tokens: 1200, completion_tokens: 80 }) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-4.1-2025-04-14',
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  }
}

/** Sleep stub for retry tests: records each wait and returns at once. */
export function recordingSleep() {
  const waits: number[] = []
  const sleep = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) throw signal.reason
    waits.push(ms)
  }
  return { waits, sleep }
}
