// Layered decoding for the scrubber: a judge can echo a key as JSON string escapes (`\u0073k-…`), percent-encoded
// by any encoder (upper/lower hex, `+` for space, some characters only), as HTML entities (`&#x2F;`, `&sol;`,
// with or without `;`), or as layers of these. Each layer is decoded with a map from every decoded character
// back to the span of the original text it came from, so a match in any layer redacts exactly the original
// characters that spell the secret (to its end, not to the first `&`), and nothing else.

/** A decoded form of a text: `text[i]` came from `original.slice(starts[i], ends[i])`. */
export interface DecodedView {
  text: string
  starts: Int32Array
  ends: Int32Array
}

/** Characters that can begin an escape in some layer: a text without them decodes to itself. */
export const ESCAPE_CHAR = /[\\%&]/

/** Enough for any real reply (JSON in a URL in HTML is 3); bounds the work on hostile input. */
const MAX_LAYERS = 6

// Named entities a writer may use for characters of a key or a header dump; numeric entities cover the rest.
const NAMED: Record<string, string> = {
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
const JSON_SHORT: Record<string, string> = {
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

/** Bounds the work on hostile input; real replies have at most 3 layers (JSON in a URL in HTML) and one family each. */
const MAX_VIEWS = 96

// `strict`: every family, but an entity only with its `;` — an outer layer may leave `&#5` literal and encode
// the `3;` after it (`&#5\x33;` is `&#53;`), which the lenient reading would take for `&#5` then `3;`.
// `ascii`: every family, a numeric entity without `;` read to the longest prefix of its digits that is a
// printable ASCII character (`&#x2Dfresh` is `-fresh` to a key's writer, U+02DF then `resh` to a browser).
export type Family = 'all' | 'strict' | 'ascii' | 'json' | 'pct' | 'html'
const FAMILY_CHAR: Record<Exclude<Family, 'all' | 'strict' | 'ascii'>, string> = { json: '\\', pct: '%', html: '&' }

/**
 * The forms `text` decodes to, each layer decoded every way a reader could: every JSON escape, percent-encoded
 * UTF-8 sequence and HTML entity at once (mixed within a layer), or one family only, since an outer layer of
 * one family may cut through an inner escape of another (`&#9%37;` is `&#97;` percent-encoded in part).
 * Empty when `text` holds no escape.
 */
export function decodedViews(text: string): LazyView[] {
  const views: LazyView[] = []
  if (!ESCAPE_CHAR.test(text)) return views
  const seen = new Set([text])
  let frontier: LazyView[] = [{ text, path: [], root: text }]
  for (let layer = 0; layer < MAX_LAYERS && frontier.length > 0; layer++) {
    const next: LazyView[] = []
    for (const view of frontier) {
      const present = (Object.keys(FAMILY_CHAR) as Array<keyof typeof FAMILY_CHAR>).filter((f) =>
        view.text.includes(FAMILY_CHAR[f]),
      )
      // With one family present, decoding it alone is the same as decoding all.
      for (const family of present.length > 1
        ? (['all', 'strict', ...asciiReading(view.text), ...present] as Family[])
        : [...present, 'strict' as const, ...asciiReading(view.text)]) {
        const decoded = decodeText(view.text, family)
        if (decoded === undefined || seen.has(decoded)) continue
        seen.add(decoded)
        const lazy = { text: decoded, path: [...view.path, family], root: text }
        views.push(lazy)
        if (views.length >= MAX_VIEWS) return views
        if (ESCAPE_CHAR.test(decoded)) next.push(lazy)
      }
    }
    frontier = next
  }
  return views
}

/**
 * A decoded form found by `decodedViews`: its text only. The map back to the original is built on demand
 * (`mapView`), for the rare form that holds a match: building it for every form made scrubbing 10x slower.
 */
export interface LazyView {
  text: string
  path: Family[]
  root: string
}

/** The view of a decoded form, with the map from each of its characters to the original. */
export function mapView(lazy: LazyView): DecodedView {
  let view = identityView(lazy.root)
  for (const family of lazy.path) view = decodeLayer(view, family) ?? view
  return view
}

/** One layer decoded as text only (no map), or undefined when nothing in it decodes. */
function decodeText(src: string, family: Family): string | undefined {
  const parts: string[] = []
  let copied = 0
  const next = NEXT_ESCAPE[family]
  next.lastIndex = 0
  for (let m = next.exec(src); m !== null; m = next.exec(src)) {
    const i = m.index
    const unit = escapeAt(src, i, family)
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

/** The `ascii` reading, when `text` has a numeric entity without `;` followed by more digits (else it reads as `all`). */
function asciiReading(text: string): Family[] {
  return /&#(?:[xX][0-9a-fA-F]{2,}|[0-9]{3,})(?![0-9a-fA-F;])/.test(text) ? ['ascii'] : []
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

/** The escape starting at `i` (a match of NEXT_ESCAPE), or undefined when it does not decode in `family`. */
function escapeAt(src: string, i: number, family: Family) {
  const c = src[i]
  return c === '\\' ? jsonEscape(src, i) : c === '%' ? percentEscape(src, i) : entity(src, i, family)
}

const NEXT_ESCAPE: Record<Family, RegExp> = {
  all: /[\\%&]/g,
  strict: /[\\%&]/g,
  ascii: /[\\%&]/g,
  json: /\\/g,
  pct: /%/g,
  html: /&/g,
}

/** One layer decoded, or undefined when it holds no escape that decodes. Runs without escapes are copied whole. */
function decodeLayer(view: DecodedView, family: Family): DecodedView | undefined {
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
  const next = NEXT_ESCAPE[family]
  next.lastIndex = 0
  for (let m = next.exec(src); m !== null; m = next.exec(src)) {
    const i = m.index
    const unit = escapeAt(src, i, family)
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

function entity(s: string, i: number, family: Family): Unit | undefined {
  const strict = family === 'strict'
  const head = s.slice(i, i + 12)
  const numeric = NUMERIC_ENTITY.exec(head)
  if (numeric) {
    const semi = numeric[0].endsWith(';')
    if (strict && !semi) return undefined
    const hex = numeric[1] !== undefined
    let digits = hex ? numeric[1] : numeric[2]
    if (family === 'ascii' && !semi)
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
