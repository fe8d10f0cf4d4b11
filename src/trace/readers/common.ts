import type { Span, SpanKind, SpanStatus, TokenCounts } from '../span'
import { durationNumber } from '../time'

/** A span with every optional field present (as undefined), so all spans share one object shape. */
export function newSpan(
  id: string,
  parentId: string | null,
  traceId: string,
  name: string,
  startNs: bigint,
  endNs: bigint,
  status: SpanStatus,
  statusMessage: string,
  attributes: Record<string, unknown>,
  events: Span['events'],
): Span {
  return {
    id,
    parentId,
    traceId,
    name,
    kind: 'other' as SpanKind,
    startNs,
    endNs,
    durationNs: durationNumber(startNs, endNs),
    status,
    statusMessage,
    attributes,
    events,
    input: undefined,
    output: undefined,
    model: undefined,
    tokens: undefined,
    toolName: undefined,
    toolArgs: undefined,
  }
}

/** A non-negative integer from a number or a numeric string (`"4268"`), else undefined. */
export function toCount(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN
  return Number.isFinite(n) && n >= 0 ? Math.trunc(n) : undefined
}

/** Token counts from whichever of prompt/completion/total are present; undefined when none is. */
export function tokenCounts(prompt: unknown, completion: unknown, total: unknown): TokenCounts | undefined {
  const p = toCount(prompt)
  const c = toCount(completion)
  const t = toCount(total)
  if (p === undefined && c === undefined && t === undefined) return undefined
  return { prompt: p ?? 0, completion: c ?? 0, total: t ?? (p ?? 0) + (c ?? 0) }
}

/** A string attribute value, or undefined; numbers and booleans are stringified (OTLP may type them). */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** Text of a value that should be a string: structured values become JSON. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** `ok` / `error` / `unset` from OpenInference (`Ok`), OTLP numbers (0/1/2) and enum names (`STATUS_CODE_ERROR`). */
export function toStatus(value: unknown): SpanStatus {
  if (value === 2 || value === '2') return 'error'
  if (value === 1 || value === '1') return 'ok'
  if (typeof value !== 'string') return 'unset'
  const v = value.toLowerCase()
  if (v === 'error' || v === 'status_code_error') return 'error'
  if (v === 'ok' || v === 'status_code_ok') return 'ok'
  return 'unset'
}
