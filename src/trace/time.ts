// Exact time conversions. Spans keep bigint nanoseconds: float64 cannot hold epoch ns, and JS Date keeps ms only.

const NS_PER_MS = 1_000_000n
const NS_PER_S = 1_000_000_000n

const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/**
 * `2025-03-25T09:12:19.740766Z` → ns since the epoch, exact to the digit given (up to ns).
 * A timestamp without a zone is UTC (TRAIL event timestamps have no `Z`). Returns undefined if unparseable.
 */
export function isoToNs(text: string): bigint | undefined {
  const m = ISO_TIMESTAMP.exec(text)
  if (!m) return undefined
  const zone = m[3] === undefined || m[3] === 'z' ? 'Z' : m[3].length === 5 ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : m[3]
  const ms = Date.parse(`${m[1].replace(' ', 'T')}${zone}`)
  if (Number.isNaN(ms)) return undefined
  const frac = m[2] ?? ''
  // Digits past ns are dropped rather than rounded: they carry no information any exporter produces.
  const fracNs = frac.length === 0 ? 0n : BigInt(frac.length >= 9 ? frac.slice(0, 9) : frac.padEnd(9, '0'))
  return BigInt(ms) * NS_PER_MS + fracNs
}

const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d+))?S)?)?$/

/** ISO-8601 duration (`PT4.829649S`, `PT1M48.75533S`, `PT1H2M3.4S`, `P1DT2H`) → exact ns, or undefined. */
export function isoDurationToNs(text: string): bigint | undefined {
  const m = ISO_DURATION.exec(text)
  if (!m || text === 'P' || text.endsWith('T')) return undefined
  const [, d, h, min, s, frac] = m
  let seconds = 0n
  if (d) seconds += BigInt(d) * 86_400n
  if (h) seconds += BigInt(h) * 3_600n
  if (min) seconds += BigInt(min) * 60n
  if (s) seconds += BigInt(s)
  const fracNs = frac ? BigInt(frac.length >= 9 ? frac.slice(0, 9) : frac.padEnd(9, '0')) : 0n
  return seconds * NS_PER_S + fracNs
}

/** OTel HrTime `[seconds, nanos]` → exact ns. */
export function hrTimeToNs(time: readonly [number, number]): bigint {
  return BigInt(time[0]) * NS_PER_S + BigInt(time[1])
}

const DIGITS = /^\d+$/

/** OTLP `…UnixNano` as a decimal string or a number → ns, or undefined if it is neither. */
export function unixNanoToNs(value: unknown): bigint | undefined {
  if (typeof value === 'string') return DIGITS.test(value) ? BigInt(value) : undefined
  // Numbers above 2^53 already lost precision in JSON.parse; keep what is there rather than refuse the span.
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return BigInt(Math.trunc(value))
  return undefined
}

/** Duration in ns as a plain number (fits: 2^53 ns is 104 days). Negative spans clamp to 0. */
export function durationNumber(startNs: bigint, endNs: bigint): number {
  return endNs > startNs ? Number(endNs - startNs) : 0
}
