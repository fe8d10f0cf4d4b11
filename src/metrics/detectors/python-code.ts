// Text tests on the Python a CodeAgent writes and on tool names in prose: which names the code calls
// (outside strings and comments) and which the text names as whole words. Hand-written scans, each equal
// to the regex named in its doc (pinned by test/metrics/detectors/python-code.test.ts). The literal stripping
// is about 2x faster than the regex it replaced on TRAIL code (c59f926); see docs/decisions/0014-ingest-speed.md.
import { regexPerKey } from './scan'

const callOf = regexPerKey((name) => new RegExp(String.raw`(?<![\w.])${escapeRegExp(name)}\s*\(`))

/**
 * The code with string literals emptied and comments removed, so a name inside a task string or a
 * comment does not count as a call: triple-quoted literals up to their closing quotes (or the end of the
 * code), one-line literals with backslash escapes, comments up to the end of the line. Scanned by hand
 * rather than with one regex: code is mostly string literals, which a regex walks a character at a time.
 *
 * @example
 * stripPythonStrings('print("ask search_agent(x)")  # search_agent(') // 'print("")  '
 */
export function stripPythonStrings(code: string): string {
  let out = ''
  let last = 0
  const next = new NextChars(code)
  for (let i = next.special(0); i !== -1; ) {
    const c = code.charCodeAt(i)
    let end: number
    let empty: string
    if (c === HASH) {
      const nl = next.of(NL, i)
      end = nl === -1 ? code.length : nl
      empty = ''
    } else {
      const triple = c === DQUOTE ? '"""' : "'''"
      if (code.startsWith(triple, i)) {
        const close = code.indexOf(triple, i + 3)
        end = close === -1 ? code.length : close + 3
        empty = triple + triple
      } else {
        end = singleQuotedEnd(code, i, c === DQUOTE ? DQ : SQ, next)
        empty = c === DQUOTE ? '""' : "''"
      }
    }
    // A quote that opens no literal on its line is left as it is, like any other character.
    if (end === -1) {
      i = next.special(i + 1)
      continue
    }
    out += code.slice(last, i) + empty
    last = end
    i = next.special(end)
  }
  return last === 0 ? code : out + code.slice(last)
}

const DQUOTE = 34
const HASH = 35

// The characters the scan jumps between, by index into NextChars.
const DQ = 0
const SQ = 1
const HS = 2
const NL = 3
const BS = 4
const SCANNED = ['"', "'", '#', '\n', '\\']

/**
 * End (after the closing quote) of the one-line literal opened at `start`, or -1 if it does not close on
 * its line: the first of closing quote, newline or backslash decides, and an escape takes any next
 * character but a line terminator (what `.` matches).
 */
function singleQuotedEnd(code: string, start: number, quote: number, next: NextChars): number {
  for (let j = start + 1; ; ) {
    const close = next.of(quote, j)
    const nl = next.of(NL, j)
    const bs = next.of(BS, j)
    if (bs !== -1 && (close === -1 || bs < close) && (nl === -1 || bs < nl)) {
      const n = code.charCodeAt(bs + 1)
      if (bs + 1 >= code.length || n === 10 || n === 13 || n === 0x2028 || n === 0x2029) return -1
      j = bs + 2
      continue
    }
    return close === -1 || (nl !== -1 && nl < close) ? -1 : close + 1
  }
}

/**
 * The next position of each scanned character at or after a position. The scan only moves forward, so
 * each character's occurrences are searched with indexOf once over the code, not a character at a time.
 */
class NextChars {
  private readonly at = [-2, -2, -2, -2, -2]

  constructor(private readonly code: string) {}

  /** Next `SCANNED[k]` at or after `from`, or -1. */
  of(k: number, from: number): number {
    let p = this.at[k]
    if (p !== -1 && p < from) this.at[k] = p = this.code.indexOf(SCANNED[k], from)
    return p
  }

  /** Next `"`, `'` or `#` at or after `from`, or -1. */
  special(from: number): number {
    return earliest(earliest(this.of(DQ, from), this.of(SQ, from)), this.of(HS, from))
  }
}

/** The smaller of two positions, -1 meaning none. */
function earliest(a: number, b: number): number {
  return a === -1 ? b : b === -1 || a < b ? a : b
}

/** True if `code` calls `name(…)` outside strings and comments (as a function, not an attribute or a longer name). */
export function codeCalls(code: string, name: string): boolean {
  if (!mayCall(code, name)) return false
  return callOf(name).test(stripPythonStrings(code))
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const WORD_NAME = /^\w+$/
// What may follow a called name: spaces, then its "(" or a comment (removed before the exact test, so
// "name  # note\n(" is a call there).
const CALL_OPENING = /\s*[(#]/y

/**
 * False when `code` certainly does not call `name`: no occurrence of it, outside a longer name or an
 * attribute, is followed by "(" or a comment. Stripping strings and comments never creates such an
 * occurrence of a plain word, so the exact test is needed only when this says true.
 */
function mayCall(code: string, name: string): boolean {
  if (!WORD_NAME.test(name)) return code.includes(name)
  for (let i = code.indexOf(name); i !== -1; i = code.indexOf(name, i + 1)) {
    if (i > 0 && isWordOrDot(code.charCodeAt(i - 1))) continue
    CALL_OPENING.lastIndex = i + name.length
    if (CALL_OPENING.test(code)) return true
  }
  return false
}

/** [A-Za-z0-9_], what `\w` matches in a regex without the `u` flag. */
function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95
}

function isWordOrDot(c: number): boolean {
  return c === 46 || isWordChar(c)
}

/** Whether position `i` of `text` is a word boundary, as `\b` decides it. */
function isBoundary(text: string, i: number): boolean {
  return (i > 0 && isWordChar(text.charCodeAt(i - 1))) !== (i < text.length && isWordChar(text.charCodeAt(i)))
}

/**
 * True if `text` contains `word` (taken literally) with a word boundary (`\b`) on both sides, as the regex
 * `\bword\b` would find it, without building a regex per word.
 *
 * @example
 * hasWord('ask search_agent now', 'search_agent') // true; hasWord('my_search_agent', 'search_agent') // false
 */
export function hasWord(text: string, word: string): boolean {
  if (word === '') return /\b\b/.test(text)
  for (let i = text.indexOf(word); i !== -1; i = text.indexOf(word, i + 1)) {
    if (isBoundary(text, i) && isBoundary(text, i + word.length)) return true
  }
  return false
}
