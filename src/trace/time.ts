// Exact time conversions. Spans keep bigint nanoseconds: float64 cannot hold epoch ns, and JS Date keeps ms only.

const NS_PER_MS = 1_000_000n
const NS_PER_S = 1_000_000_000n

const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/** `n` decimal digits at `from` as a number, or -1. */
function digitsAt(text: string, from: number, n: number): number {
  let v = 0
  for (let i = from; i < from + n; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}

/** Fraction digits as ns (first 9 digits; later ones carry nothing an exporter produces). */
function fractionNs(text: string, from: number, to: number): number {
  let v = 0
  const end = Math.min(to, from + 9)
  for (let i = from; i < end; i++) v = v * 10 + (text.charCodeAt(i) - 48)
  for (let i = end - from; i < 9; i++) v *= 10
  return v
}

/**
 * `2025-03-25T09:12:19.740766Z` → ns since the epoch, exact to the digit given (up to ns).
 * A timestamp without a zone is UTC (TRAIL event timestamps have no `Z`). Returns undefined if unparseable.
 */
export function isoToNs(text: string): bigint | undefined {
  // Fast path for `YYYY-MM-DDTHH:MM:SS[.f…][Z]`, which is every TRAIL timestamp: no regex, no Date.parse.
  if (
    text.length >= 19 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58
  ) {
    let end = 19
    if (text.charCodeAt(19) === 46) for (end = 20; text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57; end++);
    const rest = text.length - end
    if (rest === 0 || (rest === 1 && text.charCodeAt(end) === 90)) {
      const y = digitsAt(text, 0, 4)
      const mo = digitsAt(text, 5, 2)
      const d = digitsAt(text, 8, 2)
      const h = digitsAt(text, 11, 2)
      const mi = digitsAt(text, 14, 2)
      const sec = digitsAt(text, 17, 2)
      if (
        y >= 0 &&
        mo >= 1 &&
        mo <= 12 &&
        d >= 1 &&
        d <= 31 &&
        h >= 0 &&
        h < 24 &&
        mi >= 0 &&
        mi < 60 &&
        sec >= 0 &&
        sec <= 60
      ) {
        const ms = Date.UTC(y, mo - 1, d, h, mi, sec)
        return BigInt(ms) * NS_PER_MS + BigInt(end > 20 ? fractionNs(text, 20, end) : 0)
      }
    }
  }
  const m = ISO_TIMESTAMP.exec(text)
  if (!m) return undefined
  const zone =
    m[3] === undefined || m[3] === 'z' ? 'Z' : m[3].length === 5 ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : m[3]
  const ms = Date.parse(`${m[1].replace(' ', 'T')}${zone}`)
  if (Number.isNaN(ms)) return undefined
  const frac = m[2] ?? ''
  return BigInt(ms) * NS_PER_MS + BigInt(frac.length === 0 ? 0 : fractionNs(frac, 0, frac.length))
}

/**
 * ISO-8601 duration (`PT4.829649S`, `PT1M48.75533S`, `PT1H2M3.4S`, `P1DT2H`) → exact ns, or undefined.
 * Years, months and weeks are refused: their length in ns is ambiguous.
 */
export function isoDurationToNs(text: string): bigint | undefined {
  if (text.charCodeAt(0) !== 80 || text.length < 3) return undefined
  let seconds = 0
  let fracNs = 0
  let inTime = false
  let units = 0
  for (let i = 1; i < text.length; ) {
    const c = text.charCodeAt(i)
    if (c === 84) {
      if (inTime) return undefined
      inTime = true
      i++
      continue
    }
    let n = 0
    const start = i
    for (let d = text.charCodeAt(i) - 48; d >= 0 && d <= 9; d = text.charCodeAt(++i) - 48) n = n * 10 + d
    if (i === start) return undefined
    let frac = -1
    if (text.charCodeAt(i) === 46 || text.charCodeAt(i) === 44) {
      const from = ++i
      while (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++
      if (i === from) return undefined
      frac = fractionNs(text, from, i)
    }
    const unit = text.charCodeAt(i++)
    if (frac >= 0 && unit !== 83) return undefined
    if (unit === 68 && !inTime) seconds += n * 86_400
    else if (unit === 72 && inTime) seconds += n * 3_600
    else if (unit === 77 && inTime) seconds += n * 60
    else if (unit === 83 && inTime) {
      seconds += n
      if (frac > 0) fracNs = frac
    } else return undefined
    units++
  }
  if (units === 0 || text.charCodeAt(text.length - 1) === 84) return undefined
  return BigInt(seconds) * NS_PER_S + BigInt(fracNs)
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
