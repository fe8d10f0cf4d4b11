// How much of a judge's reply is read (issue 33, class 10): a verdict is a few KB, so a reply of megabytes is
// a broken or hostile server, and one that decompresses to gigabytes must not take the run's memory with it.
// The size is a judge setting (`maxReplyBytes` in code, `maxReply=SIZE` in AGENT_VERDICT_JUDGE); the depth is
// fixed: no verdict, chat completion or Converse answer comes near it.

/** Bytes of a judge reply read at most, compressed and decompressed, unless the judge config raises it. */
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024

/** Nesting of a judge reply's JSON at most (a chat completion's verdict sits ~8 levels deep). */
export const MAX_REPLY_DEPTH = 64

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }

/**
 * A size with a unit: `B`, `KB`, `MB` or `GB` (powers of 1024) → bytes; a bare number, a fraction of a byte or a
 * non-positive size is `undefined` (is `8` bytes or megabytes?).
 *
 * @example
 * parseByteSize('8MB') // 8388608; parseByteSize('64kb') // 65536; parseByteSize('8') // undefined
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)$/i.exec(text.trim())
  if (!match) return undefined
  const bytes = Math.round(Number(match[1]) * UNITS[match[2].toLowerCase()])
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined
}

/**
 * Bytes as a person reads them: `8 MB`, `64 KB`, `1.5 GB`, `512 B` (powers of 1024, as {@link parseByteSize}).
 *
 * @example
 * formatByteSize(8 * 1024 * 1024) // '8 MB'
 */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const)
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`
  return `${bytes} B`
}
