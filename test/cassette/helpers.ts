// A counting fake Judge and request builders for the cassette tests.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as z from 'zod'
import type { CassetteEntry } from '../../src/cassette/store'
import type { ContentPart, Judge, JudgeRequest, JudgeResponse } from '../../src/judges/types'

export const VerdictOutputSchema = z.object({
  reasoning: z.string(),
  score: z.number().int().min(1).max(5),
})
export type VerdictOutput = z.infer<typeof VerdictOutputSchema>

export interface CountingJudge extends Judge {
  calls: JudgeRequest<unknown>[]
  /** Extra configuration a real provider would hold (keys, headers): must never be recorded. */
  config: Record<string, unknown>
}

/** A judge that answers from the request text (deterministic), counting every call it gets. */
export function countingJudge(
  options: { provider?: string; model?: string; scores?: number[]; config?: Record<string, unknown> } = {},
): CountingJudge {
  const provider = options.provider ?? 'fake'
  const model = options.model ?? 'judge-1'
  const calls: JudgeRequest<unknown>[] = []
  return {
    id: `${provider}:${model}`,
    provider,
    model,
    calls,
    config: options.config ?? {},
    async evaluate<T>(request: JudgeRequest<T>): Promise<JudgeResponse<T>> {
      calls.push(request as JudgeRequest<unknown>)
      const text = request.content
        .map((p) => (p.type === 'text' ? p.text : `[image ${p.digest.slice(0, 8)}]`))
        .join(' ')
      const score = options.scores?.[(calls.length - 1) % options.scores.length] ?? 1 + (text.length % 5)
      const output = request.schema.parse({ reasoning: `judged: ${text}`, score })
      return {
        output,
        usage: { inputTokens: text.length, outputTokens: 12 },
        latencyMs: 42,
        provider,
        model,
        costUsd: 0.0005,
        cached: false,
        attempts: 1,
      }
    },
  }
}

/** A judge request in the shape the metrics build: rubric text, optional images, reasoning-first schema. */
export function verdictRequest(
  rubric: string,
  options: { images?: ContentPart[]; promptVersion?: string; metric?: string } = {},
): JudgeRequest<VerdictOutput> {
  return {
    metric: options.metric ?? 'faithfulness',
    promptVersion: options.promptVersion ?? 'faithfulness@1',
    system: 'You are a careful judge. Reason first, then score 1-5.',
    content: [...(options.images ?? []), { type: 'text', text: rubric }],
    schema: VerdictOutputSchema,
    schemaName: 'verdict',
  }
}

export function tempDir(prefix = 'av-cassette-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A fixed clock so recordings are byte-for-byte reproducible. */
export const fixedNow = () => new Date('2026-03-18T09:30:00.000Z')

/**
 * A stored cassette entry (a passing faithfulness verdict), for tests that write a cassette file directly; `labels`
 * sets its test, matcher or projects.
 *
 * @example
 * const entries = { ['a'.repeat(64)]: storedEntry({ test: 'passes' }) }
 */
export const storedEntry = (labels: Partial<CassetteEntry> = {}): CassetteEntry => ({
  metric: 'faithfulness',
  provider: 'fake',
  model: 'judge-1',
  promptVersion: 'faithfulness@1',
  output: { reasoning: 'ok', score: 5 },
  usage: { inputTokens: 1, outputTokens: 1 },
  costUsd: null,
  recordedAt: '2026-03-18T09:30:00.000Z',
  ...labels,
})
