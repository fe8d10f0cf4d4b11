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
    monotonicStartNs: undefined,
  }
}

/** Digits grouped by thousands: `1,000,000`, `1 000 000`, `1_000_000` (a grouping char, then groups of three). */
const GROUPED = /^\d{1,3}(?:([,_ \u00a0\u202f])\d{3})(?:\1\d{3})*$/

/**
 * A non-negative integer from a number or a numeric string (`"4268"`, `"1,000,000"`), else undefined.
 *
 * @example
 * toCount('1,000,000') // 1000000
 * toCount('1,00') // undefined
 */
export function toCount(value: unknown): number | undefined {
  let n = NaN
  if (typeof value === 'number') n = value
  else if (typeof value === 'string') {
    const text = value.trim()
    if (text !== '') n = GROUPED.test(text) ? Number(text.replace(/\D/g, '')) : Number(text)
  }
  return Number.isFinite(n) && n >= 0 ? Math.trunc(n) : undefined
}

/**
 * Token counts from whichever of prompt/completion/total are present; undefined when none is. A count that is
 * there but unreadable (`"n/a"`, `-5`), and a total below prompt + completion, are told to `problem` — a budget
 * must not pass on a count it could not read — and the total is then at least prompt + completion.
 *
 * @example
 * tokenCounts(1200, 300, 1000, console.warn) // { prompt: 1200, completion: 300, total: 1500 } (and a warning)
 */
export function tokenCounts(
  prompt: unknown,
  completion: unknown,
  total: unknown,
  problem?: (message: string) => void,
): TokenCounts | undefined {
  const p = toCount(prompt)
  const c = toCount(completion)
  const t = toCount(total)
  if (problem) {
    const unread = (
      [
        ['prompt', prompt, p],
        ['completion', completion, c],
        ['total', total, t],
      ] as const
    ).filter(([, raw, read]) => raw !== undefined && raw !== null && read === undefined)
    if (unread.length > 0)
      problem(
        `unreadable token count${unread.length > 1 ? 's' : ''}: ${unread.map(([name, raw]) => `${name} ${JSON.stringify(raw)}`).join(', ')}; read as missing (a budget sees fewer tokens than were used)`,
      )
  }
  if (p === undefined && c === undefined && t === undefined) return undefined
  const sum = (p ?? 0) + (c ?? 0)
  if (t !== undefined && t < sum)
    problem?.(`token total ${t} is below prompt ${p ?? 0} + completion ${c ?? 0}; the sum ${sum} is used`)
  return { prompt: p ?? 0, completion: c ?? 0, total: t === undefined || t < sum ? sum : t }
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
