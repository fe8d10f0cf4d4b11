// One layer of readings of a text, built from the layer below it (src/config/spelled-spans.ts stacks them): at each
// `\`, `%`, `&` or `+`, every way the characters that follow (each read in any of its ways in the layer below)
// complete a JSON/JavaScript escape, a percent escape or an HTML entity. All readings are kept, lenient and strict
// alike (`&#47` with or without its `;`, any prefix of an entity's digits, any known entity name): the search they
// serve looks for a known target, so a reading that spells nothing costs nothing. Readings are stored flat (no
// object per reading, none for a character that reads only as itself): a text can be megabytes of escapes.

import { JSON_SHORT, NAMED } from './escape-units'

/** The largest Unicode code point: a longer run of digits (leading zeros aside) cannot be one entity. */
const MAX_CODE_POINT = 0x10ffff

/**
 * Readings kept per position at most. Only runs of escapes that decode to their own escape character (`\\\\\\`,
 * `%2525`, `&amp;amp;`) have more (their ends multiply layer by layer); the first found, the shallowest, are kept.
 */
const MAX_READS = 64

/** The entity names as a trie: a run of letters that starts no known name is not read further. */
interface NameNode {
  next: Map<string, NameNode>
  value?: string
}
const NAMES: NameNode = { next: new Map() }
for (const [name, value] of Object.entries(NAMED)) {
  let node = NAMES
  for (const ch of name) {
    let child = node.next.get(ch)
    if (!child) {
      child = { next: new Map() }
      node.next.set(ch, child)
    }
    node = child
  }
  node.value = value
}

/**
 * The readings of every position of a text at one depth. Position `q` reads as `char(q, i)` ending at `end(q, i)`
 * for each `i` from `lo(q)` to `hi(q)` (exclusive); `i = -1` is the character itself, the only reading of a
 * position without escapes.
 */
export class Layer {
  constructor(
    readonly text: string,
    /** For each position, 0 (reads only as itself) or 1 + the index of its readings in `offsets`. */
    private readonly slot: Int32Array,
    /** Readings of slot k (1-based) are `chars`/`ends` from `offsets[k - 1]` to `offsets[k]`. */
    private readonly offsets: Int32Array,
    private readonly chars: string[],
    private readonly ends: number[],
    /**
     * For the layer built from another: the positions whose readings differ from the layer below (ascending), and
     * for each start (by its index) the farthest position its readings were built from.
     */
    readonly changes?: { changed: number[]; reach: number[] },
  ) {}

  /** The layer where every character reads as itself. */
  static literal(text: string): Layer {
    return new Layer(text, new Int32Array(text.length + 1), new Int32Array(1), [], [])
  }

  /** Whether `q` has readings other than its own character. */
  escaped(q: number): boolean {
    return this.slot[q] > 0
  }

  lo(q: number): number {
    if (q >= this.text.length) return 0
    const k = this.slot[q]
    return k === 0 ? -1 : this.offsets[k - 1]
  }

  hi(q: number): number {
    if (q >= this.text.length) return 0
    const k = this.slot[q]
    return k === 0 ? 0 : this.offsets[k]
  }

  char(q: number, i: number): string {
    return i < 0 ? this.text[q] : this.chars[i]
  }

  end(q: number, i: number): number {
    return i < 0 ? q + 1 : this.ends[i]
  }

  /** The number of readings of all positions with escapes (a deeper layer has at least as many). */
  get size(): number {
    return this.chars.length
  }

  /**
   * Whether the readings of the `k`-th start one layer up are known to be its readings here: none of the positions
   * they were built from changed in this layer. `from` is the index in `changed` of the first change at or after
   * the start (the caller walks the starts in order and keeps it).
   */
  settled(k: number, from: number): boolean {
    if (!this.changes) return false
    const { changed, reach } = this.changes
    return from >= changed.length || changed[from] > reach[k]
  }
}

/**
 * The next layer: the readings of each of `starts` (the positions holding `\`, `%`, `&` or `+`) with escapes nested
 * one deeper than in `below`, or undefined when that takes more than `budget` work (readings tried, and digits
 * read where a character has several readings). A start whose readings below were built from positions that did
 * not change keeps them: only the readings near a change are built again.
 */
export function nextLayer(
  below: Layer,
  starts: readonly number[],
  budget: number,
): { layer: Layer; work: number } | undefined {
  const { text } = below
  const builder = new LayerBuilder(below)
  const slot = new Int32Array(text.length + 1)
  const offsets = new Int32Array(starts.length + 1)
  const changed: number[] = []
  const reach: number[] = []
  const belowChanged = below.changes?.changed ?? []
  let from = 0
  let count = 0
  for (let k = 0; k < starts.length; k++) {
    const p = starts[k]
    while (from < belowChanged.length && belowChanged[from] < p) from++
    const lo = below.lo(p)
    const hi = below.hi(p)
    if (below.settled(k, from)) {
      builder.copy(p, lo, hi)
      reach.push(below.changes!.reach[k])
    } else {
      builder.readAt(p)
      if (builder.work > budget) return undefined
      reach.push(builder.reach)
      // Readings only grow with depth: another count is other readings.
      if (builder.chars.length - builder.base !== hi - lo) changed.push(p)
    }
    if (builder.chars.length - builder.base > 1) {
      count++
      slot[p] = count
      offsets[count] = builder.chars.length
    } else {
      builder.chars.length = builder.base
      builder.ends.length = builder.base
    }
  }
  return {
    layer: new Layer(text, slot, offsets.subarray(0, count + 1), builder.chars, builder.ends, { changed, reach }),
    work: builder.work,
  }
}

/** Collects the readings of one position after another, from the layer below. */
class LayerBuilder {
  readonly chars: string[] = []
  readonly ends: number[] = []
  /** Where the current position's readings begin in `chars`/`ends`. */
  base = 0
  work = 0
  /** The farthest position the current position's readings were built from. */
  reach = 0
  private readonly text: string

  constructor(private readonly below: Layer) {
    this.text = below.text
  }

  /** The readings of `p` below, kept as they are. */
  copy(p: number, lo: number, hi: number): void {
    this.base = this.chars.length
    for (let i = lo; i < hi; i++) {
      this.chars.push(this.below.char(p, i))
      this.ends.push(this.below.end(p, i))
    }
  }

  /** Every reading of `p`: the character itself, and each escape that starts with a reading of `p` below. */
  readAt(p: number): void {
    const { below } = this
    this.base = this.chars.length
    this.reach = p
    this.chars.push(this.text[p])
    this.ends.push(p + 1)
    for (let i = this.lo(p), hi = below.hi(p); i < hi; i++) {
      const s = below.char(p, i)
      const end = below.end(p, i)
      // `+` is a space in form encoding, whether written as `+` or decoded to one from an outer layer.
      if (s === '+') this.add(' ', end)
      else if (s === '\\') this.jsonEscape(end)
      else if (s === '%') this.percentEscape(end)
      else if (s === '&') this.entity(end)
    }
  }

  /** `below.lo(q)`, noting that the current readings depend on position `q`. */
  private lo(q: number): number {
    if (q > this.reach) this.reach = q
    return this.below.lo(q)
  }

  private add(s: string, end: number): void {
    this.work++
    // A control character is in no key and in no escape's syntax: such a reading (`&#1` of `&#12;`) leads nowhere.
    const code = s.charCodeAt(0)
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || (code >= 0x7f && code < 0xa0)) return
    const { chars, ends, base } = this
    if (chars.length - base >= MAX_READS) return
    for (let i = base; i < chars.length; i++) if (chars[i] === s && ends[i] === end) return
    chars.push(s)
    ends.push(end)
  }

  private addCodePoint(value: number, end: number): void {
    if (value > 0 && value <= MAX_CODE_POINT) this.add(String.fromCodePoint(value), end)
  }

  /** After a `\`: `\u0073`, `\u{73}`, `\x73` or a short escape (`\n`, `\/`…). */
  private jsonEscape(q: number): void {
    const { below } = this
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++) {
      const s = below.char(q, i)
      const end = below.end(q, i)
      if (s === 'u') {
        const runs = this.digits(end, 16, 4, 4)
        for (let k = 0; k < runs.length; k += 2) this.add(String.fromCharCode(runs[k]), runs[k + 1])
        for (let j = this.lo(end), hj = below.hi(end); j < hj; j++) {
          if (below.char(end, j) !== '{') continue
          const braced = this.digits(below.end(end, j), 16, 1, 6)
          for (let k = 0; k < braced.length; k += 2) this.after(braced[k], braced[k + 1], '}', false)
        }
      } else if (s === 'x') {
        const runs = this.digits(end, 16, 2, 2)
        for (let k = 0; k < runs.length; k += 2) this.add(String.fromCharCode(runs[k]), runs[k + 1])
      } else if (Object.hasOwn(JSON_SHORT, s)) {
        this.add(JSON_SHORT[s], end)
      }
    }
  }

  /**
   * Code point `value`, ending after a `close` read at `q`, and also at `q` itself when the close is `optional` and
   * not written there (every reader takes an entity's `;` when it follows).
   */
  private after(value: number, q: number, close: string, optional: boolean): void {
    const { below } = this
    if (optional && this.text[q] !== close) this.addCodePoint(value, q)
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++)
      if (below.char(q, i) === close) this.addCodePoint(value, below.end(q, i))
  }

  /** After a `%`: a byte (ASCII, a whole UTF-8 sequence `%C3%A9`, or a Latin-1 byte as `escape()` writes it) or `%u0073`. */
  private percentEscape(q: number): void {
    const { below } = this
    const bytes = this.digits(q, 16, 2, 2)
    for (let k = 0; k < bytes.length; k += 2) {
      const byte = bytes[k]
      const end = bytes[k + 1]
      this.add(String.fromCharCode(byte), end)
      const size =
        byte >= 0xc2 && byte < 0xe0 ? 2 : byte >= 0xe0 && byte < 0xf0 ? 3 : byte >= 0xf0 && byte < 0xf5 ? 4 : 0
      if (size > 0) this.utf8(end, byte & (0xff >> (size + 1)), size - 1, size)
    }
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++) {
      const s = below.char(q, i)
      if (s !== 'u' && s !== 'U') continue
      const runs = this.digits(below.end(q, i), 16, 4, 4)
      for (let k = 0; k < runs.length; k += 2) this.add(String.fromCharCode(runs[k]), runs[k + 1])
    }
  }

  /** The continuation bytes of a UTF-8 sequence, each a `%XX`. */
  private utf8(q: number, value: number, left: number, size: number): void {
    if (left === 0) {
      // Overlong forms and surrogates are not UTF-8 (a decoder rejects them).
      const min = size === 2 ? 0x80 : size === 3 ? 0x800 : 0x10000
      if (value >= min && !(value >= 0xd800 && value <= 0xdfff)) this.addCodePoint(value, q)
      return
    }
    const { below } = this
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++) {
      if (below.char(q, i) !== '%') continue
      const bytes = this.digits(below.end(q, i), 16, 2, 2)
      for (let k = 0; k < bytes.length; k += 2)
        if ((bytes[k] & 0xc0) === 0x80) this.utf8(bytes[k + 1], (value << 6) | (bytes[k] & 0x3f), left - 1, size)
    }
  }

  /** After a `&`: `&#115;`, `&#x73;` (either case, leading zeros, any prefix of the digits without `;`) or `&sol;`. */
  private entity(q: number): void {
    const { below } = this
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++) {
      const s = below.char(q, i)
      const end = below.end(q, i)
      if (s === '#') {
        for (let j = this.lo(end), hj = below.hi(end); j < hj; j++) {
          const x = below.char(end, j)
          if (x !== 'x' && x !== 'X') continue
          this.numeric(this.digits(below.end(end, j), 16, 1, 0), 16)
        }
        this.numeric(this.digits(end, 10, 1, 0), 10)
      } else {
        const node = NAMES.next.get(s)
        if (node) this.name(end, node)
      }
    }
  }

  /**
   * Numeric entities from runs of digits. A run that stops short of written digits is a reading unless those digits
   * end in `;` and make a code point with it (`&#x2Dfresh` is `-fresh` to a key's writer, and `&#x61aaaa;` has no
   * code point; in `&#x2D3;` the entity is `&#x2D3;`).
   */
  private numeric(runs: number[], radix: number): void {
    const { text } = this
    for (let k = 0; k < runs.length; k += 2) {
      const q = runs[k + 1]
      if (runs[k] === 0) continue
      let value = runs[k]
      let r = q
      while (r < text.length && value <= MAX_CODE_POINT && isDigit(text.charCodeAt(r), radix))
        value = value * radix + digitValue(text.charCodeAt(r++))
      if (r > q && text[r] === ';' && value <= MAX_CODE_POINT) continue
      this.after(runs[k], q, ';', true)
    }
  }

  /** A named entity's letters from `q` on (`node` reached so far): every known name is a reading, with or without `;`. */
  private name(q: number, node: NameNode): void {
    const { below } = this
    if (node.value !== undefined) {
      if (this.text[q] !== ';') this.add(node.value, q)
      for (let i = this.lo(q), hi = below.hi(q); i < hi; i++)
        if (below.char(q, i) === ';') this.add(node.value, below.end(q, i))
    }
    for (let i = this.lo(q), hi = below.hi(q); i < hi; i++) {
      const child = node.next.get(below.char(q, i))
      if (child) this.name(below.end(q, i), child)
    }
  }

  /**
   * Every run of `min`..`max` digits in `radix` from `q` (`max` 0: unbounded, until the value passes the last code
   * point; leading zeros go on), as flat pairs: value, end. Breadth-first, so a long run of zeros is a loop.
   */
  private digits(q: number, radix: number, min: number, max: number): number[] {
    const { below, text } = this
    const runs: number[] = []
    let frontier = [0, q]
    for (let count = 0; frontier.length > 0; count++) {
      if (count >= min) for (let k = 0; k < frontier.length; k++) runs.push(frontier[k])
      if (max > 0 && count === max) break
      // One run on a character that reads only as itself: no choice to track.
      if (frontier[1] > this.reach) this.reach = frontier[1]
      if (frontier.length === 2 && !below.escaped(frontier[1])) {
        const digit = digitValue(text.charCodeAt(frontier[1]))
        const value = frontier[0] * radix + digit
        if (digit < 0 || digit >= radix || value > MAX_CODE_POINT) break
        frontier[0] = value
        frontier[1]++
        continue
      }
      const next: number[] = []
      this.work += frontier.length >> 1
      for (let k = 0; k < frontier.length; k += 2) {
        const at = frontier[k + 1]
        for (let i = this.lo(at), hi = below.hi(at); i < hi; i++) {
          const s = below.char(at, i)
          const digit = s.length === 1 ? digitValue(s.charCodeAt(0)) : -1
          if (digit < 0 || digit >= radix) continue
          const value = frontier[k] * radix + digit
          const end = below.end(at, i)
          if (value <= MAX_CODE_POINT && !hasPair(next, value, end)) next.push(value, end)
        }
      }
      frontier = next
    }
    return runs
  }
}

function hasPair(pairs: number[], a: number, b: number): boolean {
  for (let k = 0; k < pairs.length; k += 2) if (pairs[k] === a && pairs[k + 1] === b) return true
  return false
}

function isDigit(code: number, radix: number): boolean {
  const value = digitValue(code)
  return value >= 0 && value < radix
}

/** The value of a hex digit's code (`0`-`9`, `a`-`f`, `A`-`F`), or -1. */
function digitValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  if (code >= 65 && code <= 70) return code - 55
  return -1
}
