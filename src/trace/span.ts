import * as z from 'zod'

/** What a span did, normalized across OpenInference, GenAI semantic conventions and plain OTel. */
export const SpanKindSchema = z.enum(['agent', 'llm', 'tool', 'chain', 'retriever', 'other'])
export type SpanKind = z.infer<typeof SpanKindSchema>

export const SpanStatusSchema = z.enum(['ok', 'error', 'unset'])
export type SpanStatus = z.infer<typeof SpanStatusSchema>

/** One tool call requested by a model, as found in an LLM span's output messages. */
export const ToolCallSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  /** Arguments as the model wrote them (usually a JSON string). */
  arguments: z.string(),
})
export type ToolCall = z.infer<typeof ToolCallSchema>

/** A chat message of an LLM span's input or output, roles kept as the framework spelled them. */
export const MessageSchema = z.object({
  role: z.string(),
  content: z.string(),
  toolCalls: z.array(ToolCallSchema).optional(),
})
export type Message = z.infer<typeof MessageSchema>

export const SpanEventSchema = z.object({
  name: z.string(),
  /** Nanoseconds since the Unix epoch, exact (bigint: microsecond timestamps overflow float64 ns). */
  timeNs: z.bigint(),
  attributes: z.record(z.string(), z.unknown()),
})
export type SpanEvent = z.infer<typeof SpanEventSchema>

export const TokenCountsSchema = z.object({
  prompt: z.number().int().nonnegative(),
  completion: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
})
export type TokenCounts = z.infer<typeof TokenCountsSchema>

/**
 * The flat, format-neutral span every reader produces.
 *
 * - `input`/`output`: for `llm` spans a `Message[]`; for `tool` spans the parsed arguments / the
 *   returned value; otherwise the parsed JSON payload or the raw string. Absent when the trace has none.
 * - `startNs`/`endNs` are exact bigint nanoseconds since the epoch; `durationNs` is a plain number.
 */
export const SpanSchema = z.object({
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  traceId: z.string(),
  name: z.string(),
  kind: SpanKindSchema,
  startNs: z.bigint(),
  endNs: z.bigint(),
  durationNs: z.number().nonnegative(),
  status: SpanStatusSchema,
  statusMessage: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  events: z.array(SpanEventSchema),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  model: z.string().optional(),
  tokens: TokenCountsSchema.optional(),
  toolName: z.string().optional(),
  toolArgs: z.unknown().optional(),
  /**
   * When the span started on the capturing process's monotonic clock (ns), set only for in-process OTel
   * SDK spans. The SDK stamps `startNs` with `Date.now()` (whole milliseconds), so steps shorter than a
   * millisecond tie on it; this says which of them started first, so sibling order (and the positional
   * ids cassette keys use) does not depend on the millisecond a step happened to start in.
   */
  monotonicStartNs: z.bigint().optional(),
})
export type Span = z.infer<typeof SpanSchema>
