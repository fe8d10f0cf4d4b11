// Test harness: the real `openai` SDK client, through our openai provider, against the fake judge on
// 127.0.0.1. A recording `fetch` keeps each request body so tests can check what the judge was sent.
import { afterAll, beforeAll, beforeEach, vi } from 'vitest'
import OpenAI from 'openai'
import { openaiJudge } from '../../src/judges/openai'
import type { Judge } from '../../src/judges/types'
import { startFakeJudge, type FakeJudge } from '../../src/testing/fake-judge'
import type { FakeJudgeOptions } from '../../src/testing/schemas'

/** One chat-completions request body as the SDK sent it. */
export interface SentBody {
  model: string
  messages: Array<{
    role: string
    content: string | Array<{ type: string; text?: string; image_url?: { url: string } }>
  }>
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } }
}

export interface JudgeHarness {
  fake: FakeJudge
  judge: Judge
  bodies: SentBody[]
  close(): Promise<void>
}

/** Starts a fake judge and an openai-provider judge that talks to it through the real SDK. */
export async function startJudgeHarness(
  options: FakeJudgeOptions = {},
  judgeOptions: { maxAttempts?: number; maxWaitMs?: number } = {},
): Promise<JudgeHarness> {
  const fake = await startFakeJudge(options)
  const bodies: SentBody[] = []
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body) as SentBody)
    return fetch(input, init)
  }
  const client = new OpenAI({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0, fetch: recordingFetch })
  const judge = openaiJudge({
    model: 'fake-judge',
    baseURL: fake.baseURL,
    client,
    maxAttempts: judgeOptions.maxAttempts ?? 2,
    maxWaitMs: judgeOptions.maxWaitMs ?? 2_000,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  })
  return { fake, judge, bodies, close: () => fake.close() }
}

/** Text of every text part of a request (system and user), joined. */
export function textOf(body: SentBody): string {
  return body.messages
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.map((p) => p.text ?? '')))
    .join('\n')
}

/** The image_url parts of a request. */
export function imageUrlsOf(body: SentBody): string[] {
  return body.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((p) => (p.type === 'image_url' && p.image_url ? [p.image_url.url] : [])),
  )
}

/**
 * Registers hooks that start one harness for the file (cassettes off: AGENT_VERDICT_MODE=live), reset its
 * rules, faults, calls and recorded bodies before each test, and close it after the file. The returned
 * object is filled in by `beforeAll`, so tests use it as they would the harness itself.
 *
 * @example
 * const h = useJudgeHarness()
 * test('…', async () => { h.fake.setRules([...]) })
 */
export function useJudgeHarness(): JudgeHarness {
  const h = {} as JudgeHarness
  beforeAll(async () => {
    vi.stubEnv('AGENT_VERDICT_MODE', 'live') // no cassette files beside the test
    Object.assign(h, await startJudgeHarness())
  })
  afterAll(async () => {
    await h.close()
    vi.unstubAllEnvs()
  })
  beforeEach(() => {
    h.fake.setRules([])
    h.fake.setFaults([])
    h.fake.reset()
    h.bodies.length = 0
  })
  return h
}
