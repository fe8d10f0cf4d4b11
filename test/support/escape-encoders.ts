// The tests' own encoders for planted-secret properties (issue 33, class 6): one character in one of the forms a
// writer may use (JSON string escapes, JavaScript `\x`, percent-encoding in either hex case, `+` for space, HTML
// entities named, decimal and hex with or without `;`), whole layers as one encoder writes them, and each character
// under its own stack of forms (a secret written piece by piece, each piece its own way). Written independently of
// src/config so a property does not trust the code it checks.
import fc from 'fast-check'

const NAMED: Record<string, string> = {
  '/': 'sol',
  '&': 'amp',
  '+': 'plus',
  '=': 'equals',
  ':': 'colon',
  '.': 'period',
  _: 'lowbar',
  '-': 'hyphen',
  '#': 'num',
  ';': 'semi',
  '%': 'percnt',
  '\\': 'bsol',
}

export type Encoding =
  | 'literal'
  | 'json-u-lower'
  | 'json-u-upper'
  | 'json-short'
  | 'js-x'
  | 'pct-lower'
  | 'pct-upper'
  | 'plus'
  | 'html-dec'
  | 'html-hex'
  | 'html-HEX'
  | 'html-named'
export const ENCODINGS: Encoding[] = [
  'literal',
  'json-u-lower',
  'json-u-upper',
  'json-short',
  'js-x',
  'pct-lower',
  'pct-upper',
  'plus',
  'html-dec',
  'html-hex',
  'html-HEX',
  'html-named',
]
/** A layer's plan: the encoding of each character (cycled) and whether an entity gets its `;`. */
export type Plan = Array<[Encoding, boolean]>

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

/** One character in one encoding; `semi` says whether an HTML entity gets its `;` (forced when needed). */
export function encodeChar(ch: string, how: Encoding, semi: boolean, next: string): string {
  const code = ch.charCodeAt(0)
  // Without `;`, an entity must not run into a following digit or letter (every real encoder does the same).
  const end = semi || /^[0-9A-Za-z;]/.test(next) ? ';' : ''
  switch (how) {
    case 'literal':
      return ch
    case 'json-u-lower':
      return `\\u${hex(code, 4)}`
    case 'json-u-upper':
      return `\\u${hex(code, 4).toUpperCase()}`
    case 'json-short':
      return ch === '/' || ch === '"' || ch === '\\' ? `\\${ch}` : `\\u${hex(code, 4)}`
    case 'js-x':
      return code < 256 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`
    case 'pct-lower':
      return [...Buffer.from(ch, 'utf8')].map((b) => `%${hex(b, 2)}`).join('')
    case 'pct-upper':
      return [...Buffer.from(ch, 'utf8')].map((b) => `%${hex(b, 2).toUpperCase()}`).join('')
    case 'plus':
      return ch === ' ' ? '+' : `%${hex(code, 2)}`
    case 'html-dec':
      return `&#${code}${end}`
    case 'html-hex':
      return `&#x${hex(code, 2)}${end}`
    case 'html-HEX':
      return `&#X${hex(code, 2).toUpperCase()}${end}`
    case 'html-named':
      return NAMED[ch] ? `&${NAMED[ch]}${end}` : `&#${code};`
  }
}

/**
 * `text` with each character in its own encoding, encoded back to front so a `;` can be forced. As any real
 * encoder does, a layer that uses a family of escapes also escapes that family's own escape character
 * (`\\` for JSON, `%25` and `%2B` with `+` for space, `&amp;` for entities), so the layer reads one way only.
 */
export function encodeLayer(text: string, plan: Plan): string {
  const used = new Set(plan.map(([how]) => how))
  const has = (...kinds: Encoding[]) => kinds.some((k) => used.has(k))
  let out = ''
  for (let i = text.length - 1; i >= 0; i--) {
    const [how, semi] = plan[i % plan.length]
    const ch = text[i]
    let piece = encodeChar(ch, how, semi, out)
    if (piece === ch) {
      if (ch === '\\' && has('json-u-lower', 'json-u-upper', 'json-short', 'js-x')) piece = '\\\\'
      else if (ch === '%' && has('pct-lower', 'pct-upper', 'plus')) piece = '%25'
      else if (ch === '+' && has('plus')) piece = '%2B'
      else if (ch === '&' && has('html-dec', 'html-hex', 'html-HEX', 'html-named')) piece = '&amp;'
    }
    out = piece + out
  }
  return out
}

/**
 * How one character is written when every character (and every character of its escape, and so on) chooses
 * its own form: a tree of choices, read by `encodeDeep` in order. Each node is the character's encoding and
 * whether an entity gets its `;`; a non-literal node's characters each take the next choices.
 */
export type CharChoice = [Encoding, boolean]

/**
 * `text` with each character under its own stack of forms, up to `depth` deep: the character is written in the
 * next choice's form, and each character of that escape is then written the same way, with the following choices
 * (cycled). A character chosen literal stays itself. `\`, `%` and `&` written literally inside a stack are left
 * alone: the escape they begin is what the reader decodes. `+` chosen as `plus` is only a space's form.
 */
export function encodeDeep(text: string, choices: readonly CharChoice[], depth: number): string {
  let k = 0
  const take = (): CharChoice => choices[k++ % choices.length]
  // `next` is the character that follows at this character's own level, `after` the written text that follows:
  // an entity without `;` gets one when either starts with a character that would run on into it.
  const one = (ch: string, next: string, after: string, left: number): string => {
    if (left === 0) return ch
    const [how, semi] = take()
    const forced = semi || /^[0-9A-Za-z;]/.test(next)
    const written = encodeChar(ch, how === 'plus' && ch !== ' ' ? 'pct-upper' : how, forced, after)
    if (written === ch) return ch
    let out = ''
    for (let i = written.length - 1; i >= 0; i--)
      out = one(written[i], i + 1 < written.length ? written[i + 1] : next, out + after, left - 1) + out
    return out
  }
  let out = ''
  for (let i = text.length - 1; i >= 0; i--) out = one(text[i], text[i + 1] ?? '', out, depth) + out
  return out
}

// Characters of real keys and passwords, with the ones encoders treat specially (space, `+`, `/`, `=`, `#`…).
// `%`, `&` and `\` are left out: written literally before hex digits they are ambiguous for any reader.
export const secretChar = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=:#;@! '.split(''),
)
/** A random secret: a fixed start and end (no surrounding text can supply them) and 12-40 key characters. */
export const secretArb = fc
  .array(secretChar, { minLength: 12, maxLength: 40 })
  .map((chars) => `Zq${chars.join('')}9x`)
  .filter((s) => s.trim() === s)
export const planArb = fc.array(fc.tuple(fc.constantFrom(...ENCODINGS), fc.boolean()), {
  minLength: 1,
  maxLength: 8,
})
const FAMILIES: Encoding[][] = [
  ['literal', 'json-u-lower', 'json-u-upper', 'json-short', 'js-x'],
  ['literal', 'pct-lower', 'pct-upper', 'plus'],
  ['literal', 'html-dec', 'html-hex', 'html-HEX', 'html-named'],
]
/** A layer as one encoder writes it: its own forms mixed freely, some characters left as they are. */
export const familyPlanArb = fc
  .constantFrom(...FAMILIES)
  .chain((family) => fc.array(fc.tuple(fc.constantFrom(...family), fc.boolean()), { minLength: 1, maxLength: 8 }))
/** Per-character choices for `encodeDeep`. */
export const choicesArb = fc.array(fc.tuple(fc.constantFrom(...ENCODINGS), fc.boolean()), {
  minLength: 1,
  maxLength: 40,
})
// Ordinary text: prose, URL and HTML bits, escapes that decode to nothing secret.
export const ordinary = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        ' ',
        'the',
        '%20',
        '%',
        '&amp;',
        '&',
        '&#47;',
        '\\n',
        '\\u00e9',
        '+',
        '#',
        ';',
        '?q=1&r=2',
        '<p>',
        '\\',
      ),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''))
