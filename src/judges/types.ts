import type { z } from 'zod'
import type { ImagePart } from '../media/loaded-image'

// Media owns the image format (its zod schema); judges only carry it.
export type { ImageFormat } from '../media/sniff'

/** A piece of the user message sent to a judge. Images travel as bytes, never as a description. */
export type ContentPart = { type: 'text'; text: string } | ImagePart

/**
 * What a metric asks a judge. `schema` validates the judge's JSON reply; its first property is
 * `reasoning` so the model reasons before it scores.
 */
export interface JudgeRequest<T = unknown> {
  /** Metric or purpose, for logs and errors (e.g. `faithfulness`). */
  metric: string
  /** Version of the prompt template; part of the cassette key. */
  promptVersion: string
  system: string
  content: ContentPart[]
  schema: z.ZodType<T>
  /** Name of the output schema (JSON-schema `name` / forced tool name). */
  schemaName: string
  maxOutputTokens?: number
  /** The span this call judges: its id (to map verdicts back) and positional id + name, as a cassette shows it. Never part of the key. */
  about?: { spanId: string; span: string }
  /**
   * The span a diagnosis call judges (`span-diagnosis` requests). Metadata for judge wrappers (the TRAIL
   * oracle, logs): providers never send it and it is not part of cassette keys.
   */
  spanId?: string
}

import type { JudgeUsage } from './usage'

export type { JudgeUsage }

export interface JudgeResponse<T = unknown> {
  output: T
  usage: JudgeUsage
  latencyMs: number
  provider: string
  model: string
  /** null when the model is not in the price table. */
  costUsd: number | null
  /** true when replayed from a cassette (no call was made). */
  cached: boolean
  /** HTTP attempts made (1 = no retry; 0 when cached), re-asks included. */
  attempts: number
  /** Of `attempts`, the re-asks after a reply with no valid verdict (absent: none or unknown). */
  reasks?: number
}

/** Anything that can answer a JudgeRequest: a provider, a cassette wrapper, a test double. */
export interface Judge {
  /** `provider:model`, e.g. `openai:gpt-4.1` — stable, used in reports and cassette keys. */
  readonly id: string
  readonly provider: string
  readonly model: string
  /** Where the judge is (base URL or service host), never with credentials; for messages. */
  readonly endpoint?: string
  /** The server's context window in tokens when the user gave it (`;context=8k`): diagnose fits its prompts to it. */
  readonly contextTokens?: number
  /** The output bound the user set for every call (`;maxOutputTokens=N`), when set. */
  readonly maxOutputTokens?: number
  evaluate<T>(request: JudgeRequest<T>, signal?: AbortSignal): Promise<JudgeResponse<T>>
}
