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

/** Bounds the work on hostile input: every reading of up to 6 mixed layers of a key-length echo fits in it. */
const MAX_VIEWS = 256

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
const JSON_FAMILY = 1
const PCT_FAMILY = 2
const HTML_FAMILY = 4
const FAMILY_CHARS: ReadonlyArray<[number, string]> = [
  [JSON_FAMILY, '\\'],
  [PCT_FAMILY, '%'],
  [HTML_FAMILY, '&'],
]
const LENIENT_ALL: Reading = { families: JSON_FAMILY | PCT_FAMILY | HTML_FAMILY, entities: 'lenient' }

/**
 * The forms `text` decodes to, each layer decoded every way a reader could: every non-empty subset of the
 * escape families present in it (an outer layer that mixes two families may cut through an inner escape of the
 * third: `%5C&#117;0073` is `\u0073` with its `\` percent-encoded and its `u` an entity), each with lenient and
 * strict entities (and the ascii reading when it differs), to a fixed point: a form is decoded again until no
 * reading changes it, at most 6 layers deep and 256 forms in all, the likeliest first (see `readings`). Empty when `text` holds no escape.
 */
export function decodedViews(text: string): LazyView[] {
  const views: LazyView[] = []
  if (!ESCAPE_CHAR.test(text)) return views
  const byText = new Map<string, LazyView>([[text, { text, path: [], root: text }]])
  const kidsOf = new Map<string, LazyView[]>()
  const expandedWith = new Map<string, number>()
  let full = false
  // The forms one layer down, in the order of `readings` (the first is the likeliest decoding).
  const kids = (view: LazyView): LazyView[] => {
    let list = kidsOf.get(view.text)
    if (list) return list
    list = []
    for (const reading of readings(view.text)) {
      const decoded = decodeText(view.text, reading)
      if (decoded === undefined) continue
      let kid = byText.get(decoded)
      if (!kid) {
        if (views.length >= MAX_VIEWS) {
          full = true
          break
        }
        kid = { text: decoded, path: [...view.path, reading], root: text }
        byText.set(decoded, kid)
        views.push(kid)
      }
      if (!list.includes(kid)) list.push(kid)
    }
    kidsOf.set(view.text, list)
    return list
  }
  // Limited discrepancy search: every path that takes the likeliest reading at each layer, then every path that
  // departs from it once, then twice… so the bound cuts off the least likely readings, wherever they are.
  // Set when a walk left a reading untried: only then is a walk with one more departure worth making.
  let cut = false
  const expand = (view: LazyView, discrepancies: number) => {
    if (full || view.path.length >= MAX_LAYERS || !ESCAPE_CHAR.test(view.text)) return
    if ((expandedWith.get(view.text) ?? -1) >= discrepancies) return
    expandedWith.set(view.text, discrepancies)
    const list = kids(view)
    if (list.length > discrepancies + 1) cut = true
    for (let i = 0; i < list.length && i <= discrepancies; i++) expand(list[i], discrepancies - (i === 0 ? 0 : 1))
  }
  const root = byText.get(text)!
  for (let d = 0, more = true; more && !full; d++) {
    cut = false
    expand(root, d)
    more = cut
  }
  return views
}

/**
 * The readings worth trying on `text`, likeliest first: every present family at once, then, when a family's escape
 * character stands bare in `text` (`\&`, `% `, `& `: an encoder escapes its own escape character, so that family
 * is likely an inner layer's), the subset without it, then the other subsets of the present families.
 */
function readings(text: string): Reading[] {
  const { present, bare, semiless } = scanEscapes(text)
  const likely = present & ~bare
  const ascii = semiless && /&#(?:[xX][0-9a-fA-F]{2,}|[0-9]{3,})(?![0-9a-fA-F;])/.test(text)
  const out: Reading[] = []
  const add = (families: number) => {
    out.push({ families, entities: 'lenient' })
    // Strict and ascii differ from lenient only on an entity without its `;`.
    if ((families & HTML_FAMILY) === 0 || !semiless) return
    out.push({ families, entities: 'strict' })
    if (ascii) out.push({ families, entities: 'ascii' })
  }
  if (present === 0) return out
  add(present)
  if (likely !== 0 && likely !== present) add(likely)
  // The other subsets of the present families, largest first.
  for (let families = (present - 1) & present; families > 0; families = (families - 1) & present)
    if (families !== likely) add(families)
  return out
}

/**
 * One pass over the escape characters of `text`: the families (masks) with at least one escape that decodes
 * (`present`: a family with none decodes to nothing, so no reading needs it) and with an escape character that
 * starts none (`bare`), and whether an entity without `;` decodes (`semiless`).
 */
function scanEscapes(text: string): { present: number; bare: number; semiless: boolean } {
  let present = 0
  let bare = 0
  let semiless = false
  const next = NEXT_ESCAPE[JSON_FAMILY | PCT_FAMILY | HTML_FAMILY]
  next.lastIndex = 0
  for (let m = next.exec(text); m !== null; m = next.exec(text)) {
    const c = text[m.index]
    const family = c === '\\' ? JSON_FAMILY : c === '%' ? PCT_FAMILY : HTML_FAMILY
    const unit = escapeAt(text, m.index, LENIENT_ALL)
    if (!unit) {
      bare |= family
      continue
    }
    present |= family
    if (family === HTML_FAMILY && text[m.index + unit.length - 1] !== ';') semiless = true
    next.lastIndex = m.index + unit.length
  }
  return { present, bare, semiless }
}

/**
 * A decoded form found by `decodedViews`: its text only. The map back to the original is built on demand
 * (`mapView`), for the rare form that holds a match: building it for every form made scrubbing 10x slower.
 */
export interface LazyView {
  text: string
  path: Reading[]
  root: string
}

/** The view of a decoded form, with the map from each of its characters to the original. */
export function mapView(lazy: LazyView): DecodedView {
  let view = identityView(lazy.root)
  for (const reading of lazy.path) view = decodeLayer(view, reading) ?? view
  return view
}

/** One layer decoded as text only (no map), or undefined when nothing in it decodes. */
function decodeText(src: string, reading: Reading): string | undefined {
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
function escapeAt(src: string, i: number, reading: Reading) {
  const c = src[i]
  return c === '\\' ? jsonEscape(src, i) : c === '%' ? percentEscape(src, i) : entity(src, i, reading.entities)
}

/** For each mask of families, the characters that start one of their escapes. */
const NEXT_ESCAPE: RegExp[] = Array.from({ length: 8 }, (_, families) => {
  const chars = FAMILY_CHARS.filter(([f]) => (families & f) !== 0).map(([, ch]) => (ch === '\\' ? '\\\\' : ch))
  return new RegExp(`[${chars.join('') || '^\\s\\S'}]`, 'g')
})

/** One layer decoded, or undefined when it holds no escape that decodes. Runs without escapes are copied whole. */
function decodeLayer(view: DecodedView, reading: Reading): DecodedView | undefined {
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
