/** Response headers as the SDKs expose them: a fetch `Headers` (openai) or a plain record (smithy). */
export type HeaderSource = { get(name: string): string | null } | Record<string, unknown> | undefined | null

/**
 * The wait a server asked for, in ms: `retry-after-ms` (OpenAI, Azure), else `retry-after` as
 * seconds ("3", "0.2") or an HTTP-date. `undefined` when absent or unparseable; never negative.
 *
 * @example
 * parseRetryAfter(new Headers({ 'retry-after': '0.2' })) // 200
 * parseRetryAfter({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, Date.parse('Wed, 21 Oct 2015 07:27:57 GMT')) // 3000
 */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms')
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Number(ms))
  const value = header(headers, 'retry-after')
  if (value === undefined) return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.max(0, Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * One header's value from either SDK's headers (a fetch `Headers` or a plain record), by lower-case name.
 *
 * @example
 * headerValue({ Location: 'https://a.example/v1' }, 'location') // 'https://a.example/v1'
 */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  return header(headers, name)
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get(name: string): string | null }).get(name)
    return value ?? undefined
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue
    if (Array.isArray(value)) return value.length ? String(value[0]) : undefined
    return value == null ? undefined : String(value)
  }
  return undefined
}
