// Numbers as written (docs/decisions/0036-numbers-as-written.md): JSON.parse rounds a number to the nearest
// double, so `0.99999999999999999` reads as 1 and `1e-400` as 0 — a score no check after parsing can tell
// from a real one. A judge reply or a cassette is therefore scanned in its text form: every number must
// mean exactly the value JSON.parse gives it.

/** A number token whose written value is not the value JSON.parse reads. */
export interface InexactNumber {
  /** The token as written, e.g. `3.9999999999999999`. */
  written: string
  /** What JSON.parse makes of it, e.g. `4`. */
  reads: string
  /** Offset of the token in the scanned text. */
  at: number
}

/**
 * The first number token of a JSON text (outside strings) that JSON.parse would round: its decimal value
 * differs from the value of the double it parses to (`0.99999999999999999` → 1, `1e-400` → 0, `1e400` →
 * Infinity). Spellings of the same value (`4.0`, `4e0`, `0.1`) are exact. `text` should be valid JSON; on
 * anything else the result only covers the tokens it could read.
 *
 * @example
 * inexactNumber('{"score":3.9999999999999999}') // { written: '3.9999999999999999', reads: '4', at: 9 }
 * inexactNumber('{"score":4.0}') // undefined
 */
export function inexactNumber(text: string): InexactNumber | undefined {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Skip the string: numbers inside it are text, judged by whoever parses that text.
      let end = i + 1
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1
      i = end
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      number.lastIndex = i
      const match = number.exec(text)
      if (!match) continue
      const written = match[0]
      const reads = String(Number(written))
      if (decimal(written) !== decimal(reads)) return { written, reads, at: i }
      i += written.length - 1
    }
  }
  return undefined
}

/**
 * A decimal numeral in one canonical form (`<sign><digits>e<exponent>`, no leading or trailing zeros), so two
 * spellings of one value compare equal; `Infinity` and `NaN` stay as they are (they equal no numeral).
 */
function decimal(numeral: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(numeral)
  if (!m) return numeral
  const fraction = m[3] ?? ''
  let digits = `${m[2]}${fraction}`.replace(/^0+/, '')
  if (digits === '') return '0'
  let exponent = Number(m[4] ?? 0) - fraction.length
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0
  digits = digits.slice(0, digits.length - trailing)
  exponent += trailing
  return `${m[1]}${digits}e${exponent}`
}
