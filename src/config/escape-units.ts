// One layer of escapes, decoded by reading (src/config/decoded-views.ts searches the layers): JSON string escapes,
// percent-encoded UTF-8 and HTML entities, each decoded character mapped back to the span of the original it came
// from, so a match in a decoded form redacts exactly the original characters that spell it.

/** A decoded form of a text: `text[i]` came from `original.slice(starts[i], ends[i])`. */
export interface DecodedView {
  text: string
  starts: Int32Array
  ends: Int32Array
}

// Named entities a writer may use for characters of a key or a header dump; numeric entities cover the rest (the
// per-character reader, escape-reads.ts, reads the same names).
export const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  sol: '/',
  bsol: '\\',
  colon: ':',
  semi: ';',
  comma: ',',
  period: '.',
  excl: '!',
  quest: '?',
  num: '#',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  plus: '+',
  equals: '=',
  commat: '@',
  lsqb: '[',
  rsqb: ']',
  lbrack: '[',
  rbrack: ']',
  lcub: '{',
  rcub: '}',
  lbrace: '{',
  rbrace: '}',
  verbar: '|',
  vert: '|',
  lowbar: '_',
  UnderBar: '_',
  hyphen: '-',
  dash: '-',
  minus: '-',
  tilde: '~',
  grave: '`',
  Hat: '^',
  Tab: '\t',
  NewLine: '\n',
  nbsp: '\u00a0',
}
const NAMED_ENTITY = /^&([A-Za-z]{2,8});?/
const NUMERIC_ENTITY = /^&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/
export const JSON_SHORT: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
}
const HEX = /^[0-9a-fA-F]+$/

/**
 * How one layer is read: which escape families it decodes (`families`, a mask of JSON `\`, percent `%` and HTML
 * `&`: a layer decodes only the families its encoder used, and leaves the others' escape characters literal for
 * an inner layer), and how an entity without `;` is read. `lenient`: as a browser does. `strict`: only with its
 * `;`, since an outer layer may leave `&#5` literal and encode the `3;` after it (`&#5\x33;` is `&#53;`).
 * `ascii`: to the longest prefix of its digits that is a printable ASCII character (`&#x2Dfresh` is `-fresh` to
 * a key's writer, U+02DF then `resh` to a browser).
 */
export interface Reading {
  families: number
  entities: 'lenient' | 'strict' | 'ascii'
}
export const JSON_FAMILY = 1
export const PCT_FAMILY = 2
export const HTML_FAMILY = 4
const FAMILY_CHARS: ReadonlyArray<[number, string]> = [
  [JSON_FAMILY, '\\'],
  [PCT_FAMILY, '%'],
  [HTML_FAMILY, '&'],
]
/** One layer decoded as text only (no map), or undefined when nothing in it decodes. */
export function decodeText(src: string, reading: Reading): string | undefined {
  const parts: string[] = []
  let copied = 0
  const next = NEXT_ESCAPE[reading.families]
  next.lastIndex = 0
  for (let m = next.exec(src); m !== null; m = next.exec(src)) {
    const i = m.index
    const unit = escapeAt(src, i, reading)
    if (!unit) continue
    if (i > copied) parts.push(src.slice(copied, i))
    for (const ch of unit.chars) parts.push(ch)
    copied = i + unit.length
    next.lastIndex = copied
  }
  if (parts.length === 0) return undefined
  if (copied < src.length) parts.push(src.slice(copied))
  return parts.join('')
}

/** `text` as its own view (every character maps to itself). */
export function identityView(text: string): DecodedView {
  const starts = new Int32Array(text.length)
  const ends = new Int32Array(text.length)
  for (let i = 0; i < text.length; i++) {
    starts[i] = i
    ends[i] = i + 1
  }
  return { text, starts, ends }
}

/** The escape starting at `i` (a match of NEXT_ESCAPE), or undefined when it does not decode in `reading`. */
export function escapeAt(src: string, i: number, reading: Reading) {
  const c = src[i]
  return c === '\\' ? jsonEscape(src, i) : c === '%' ? percentEscape(src, i) : entity(src, i, reading.entities)
}

/** For each mask of families, the characters that start one of their escapes. */
export const NEXT_ESCAPE: RegExp[] = Array.from({ length: 8 }, (_, families) => {
  const chars = FAMILY_CHARS.filter(([f]) => (families & f) !== 0).map(([, ch]) => (ch === '\\' ? '\\\\' : ch))
  return new RegExp(`[${chars.join('') || '^\\s\\S'}]`, 'g')
})

/** One layer decoded, or undefined when it holds no escape that decodes. Runs without escapes are copied whole. */
export function decodeLayer(view: DecodedView, reading: Reading): DecodedView | undefined {
  const src = view.text
  // An escape never yields more characters than it spans, so the decoded text fits the source's length.
  const starts = new Int32Array(src.length)
  const ends = new Int32Array(src.length)
  const parts: string[] = []
  let o = 0
  let copied = 0
  const copyTo = (to: number) => {
    if (to <= copied) return
    parts.push(src.slice(copied, to))
    starts.set(view.starts.subarray(copied, to), o)
    ends.set(view.ends.subarray(copied, to), o)
    o += to - copied
  }
  const next = NEXT_ESCAPE[reading.families]
  next.lastIndex = 0
  for (let m = next.exec(src); m !== null; m = next.exec(src)) {
    const i = m.index
    const unit = escapeAt(src, i, reading)
    if (!unit) continue
    copyTo(i)
    // Every character the escape yields maps to the whole escape in the original.
    for (const ch of unit.chars) {
      parts.push(ch)
      starts[o] = view.starts[i]
      ends[o] = view.ends[i + unit.length - 1]
      o++
    }
    copied = i + unit.length
    next.lastIndex = copied
  }
  if (parts.length === 0) return undefined
  copyTo(src.length)
  return { text: parts.join(''), starts: starts.subarray(0, o), ends: ends.subarray(0, o) }
}

interface Unit {
  chars: string[]
  length: number
}

function jsonEscape(s: string, i: number): Unit | undefined {
  const next = s[i + 1]
  if (next === undefined) return undefined
  if (next === 'u') {
    const hex = s.slice(i + 2, i + 6)
    if (hex.length === 4 && HEX.test(hex)) return { chars: [String.fromCharCode(Number.parseInt(hex, 16))], length: 6 }
    // `\u{73}` (JavaScript) writes a code point.
    const braced = /^\\u\{([0-9a-fA-F]{1,6})\}/.exec(s.slice(i, i + 10))
    if (braced) return codePoint(Number.parseInt(braced[1], 16), braced[0].length)
    return undefined
  }
  if (next === 'x') {
    const hex = s.slice(i + 2, i + 4)
    return hex.length === 2 && HEX.test(hex)
      ? { chars: [String.fromCharCode(Number.parseInt(hex, 16))], length: 4 }
      : undefined
  }
  const short = JSON_SHORT[next]
  return short === undefined ? undefined : { chars: [short], length: 2 }
}

/** A percent-encoded byte, or a whole UTF-8 sequence of them (`%E2%82%AC`); a lone `%` stays itself. */
function percentEscape(s: string, i: number): Unit | undefined {
  const first = byteAt(s, i)
  if (first === undefined) return undefined
  if (first < 0x80) return { chars: [String.fromCharCode(first)], length: 3 }
  const size = first >= 0xf0 && first < 0xf8 ? 4 : first >= 0xe0 ? 3 : first >= 0xc2 && first < 0xe0 ? 2 : 0
  if (size === 0) return undefined
  const bytes = [first]
  for (let k = 1; k < size; k++) {
    const b = byteAt(s, i + 3 * k)
    if (b === undefined || (b & 0xc0) !== 0x80) return undefined
    bytes.push(b)
  }
  const text = Buffer.from(bytes).toString('utf8')
  if (text.includes('\uFFFD')) return undefined
  return { chars: [...text].flatMap((ch) => ch.split('')), length: 3 * size }
}

function byteAt(s: string, i: number): number | undefined {
  if (s[i] !== '%') return undefined
  const hex = s.slice(i + 1, i + 3)
  return hex.length === 2 && HEX.test(hex) ? Number.parseInt(hex, 16) : undefined
}

function entity(s: string, i: number, entities: Reading['entities']): Unit | undefined {
  const strict = entities === 'strict'
  const head = s.slice(i, i + 12)
  const numeric = NUMERIC_ENTITY.exec(head)
  if (numeric) {
    const semi = numeric[0].endsWith(';')
    if (strict && !semi) return undefined
    const hex = numeric[1] !== undefined
    let digits = hex ? numeric[1] : numeric[2]
    if (entities === 'ascii' && !semi)
      while (digits.length > 1 && Number.parseInt(digits, hex ? 16 : 10) > 0x7e) digits = digits.slice(0, -1)
    const value = Number.parseInt(digits, hex ? 16 : 10)
    const length = semi ? numeric[0].length : numeric[0].length - (hex ? numeric[1] : numeric[2]).length + digits.length
    return codePoint(value, length)
  }
  const named = NAMED_ENTITY.exec(head)
  if (!named) return undefined
  // The longest known name that starts the run of letters (`&ampx` is `&amp` then `x`, as browsers read it).
  for (let len = named[1].length; len >= 2; len--) {
    const name = named[1].slice(0, len)
    const ch = Object.hasOwn(NAMED, name) ? NAMED[name] : undefined
    if (ch === undefined) continue
    const semi = s[i + 1 + len] === ';'
    return strict && !semi ? undefined : { chars: [ch], length: 1 + len + (semi ? 1 : 0) }
  }
  return undefined
}

function codePoint(value: number, length: number): Unit | undefined {
  if (!(value > 0 && value <= 0x10ffff)) return undefined
  return { chars: String.fromCodePoint(value).split(''), length }
}
