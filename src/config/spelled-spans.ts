// Finds a known string (a registered secret, a credential keyword) wherever a text spells it with each character
// written its own way: literally, as a JSON/JavaScript escape (`\u0073`, `\x73`, `\u{73}`, `\/`), percent-encoded
// (either hex case, UTF-8 or Latin-1 bytes, `%u0073`, `+` for a space) or as an HTML entity (named, decimal or
// hex, with or without `;`), and each character of that escape again written its own way, up to 6 deep. Readings
// are per character, not per layer: a secret whose first half is `\u`-escaped and second half percent-encoded,
// or whose pieces went through different stacks of encoders, is found as one span of the original text, and only
// that span is redacted. Searching for a known target keeps the ambiguity of escapes cheap: every reading of a
// position is kept, and only readings that spell the target's next character go on.

import { Layer, nextLayer } from './escape-reads'

/** Enough for any real reply (JSON in a URL in HTML is 3), as deep as the layered decoder reads (decoded-views.ts). */
const MAX_DEPTH = 6

/** Strings to look for, indexed by their first character for the scan. */
export interface Targets {
  list: readonly string[]
  /** For each ASCII code, whether a target starts with it: the scan's test at most positions. */
  asciiFirst: Uint8Array
  /** For each first character (both cases when `ignoreCase`), the indexes of the targets that start with it. */
  byFirst: Map<number, number[]>
  shortest: number
  ignoreCase: boolean
}

/**
 * `list` prepared for `Readings.spans` / `Readings.spellsAny`; with `ignoreCase`, `list` must be lower case.
 *
 * @example
 * const keywords = compileTargets(['token', 'bearer'], true)
 */
export function compileTargets(list: readonly string[], ignoreCase = false): Targets {
  const byFirst = new Map<number, number[]>()
  const asciiFirst = new Uint8Array(128)
  let shortest = Number.POSITIVE_INFINITY
  list.forEach((target, t) => {
    if (target.length === 0) return
    shortest = Math.min(shortest, target.length)
    const firsts = ignoreCase ? new Set([target[0], target[0].toUpperCase()]) : [target[0]]
    for (const first of firsts) {
      const code = first.charCodeAt(0)
      if (code < 128) asciiFirst[code] = 1
      const indexes = byFirst.get(code)
      if (indexes) indexes.push(t)
      else byFirst.set(code, [t])
    }
  })
  return { list, asciiFirst, byFirst, shortest, ignoreCase }
}

/**
 * Work (readings tried, digits read where a character has several readings) allowed per character of a text,
 * summed over its layers. Real replies take 1-3; the property tests' mixtures of up to 3 layers and per-character
 * stacks of up to 4 take 12 at most. Runs of escapes that decode to their own escape character (`\\\\\\\\`,
 * `%252525`) take more with each layer, and are read only to the last layer that fits.
 */
const WORK_PER_CHAR = 32

/**
 * Every reading of every position of one text, computed once and shared by the searches on it: layer by layer,
 * each position's readings with escapes nested one deeper, until a layer adds no reading (then no deeper one
 * would), 6 layers, or the work bound (WORK_PER_CHAR).
 */
export class Readings {
  private readonly layer: Layer

  constructor(private readonly text: string) {
    const starts: number[] = []
    for (let p = 0; p < text.length; p++) if (isEscapeStart(text.charCodeAt(p))) starts.push(p)
    let layer = Layer.literal(text)
    let size = 0
    let budget = WORK_PER_CHAR * text.length + 1024
    for (let depth = 1; depth <= MAX_DEPTH && starts.length > 0; depth++) {
      // A layer cut short by the bound is not used: the last whole one is.
      const next = nextLayer(layer, starts, budget)
      if (!next) break
      budget -= next.work
      // Readings only grow with depth: the same count is the same readings, and the next layer would add none.
      if (next.layer.size === size) break
      layer = next.layer
      size = layer.size
    }
    this.layer = layer
  }

  /**
   * The spans (start, end) that spell one of `targets`: for each occurrence, the earliest start with its farthest
   * end; a target's next occurrence is looked for after the end of the last (overlapping copies are one redaction).
   *
   * @example
   * new Readings('k=\\u0073k%2Dabc&#49;23456').spans(compileTargets(['sk-abc123456'])) // [[2, 26]]
   */
  spans(targets: Targets): Array<[number, number]> {
    const spans: Array<[number, number]> = []
    this.search(targets, spans)
    return spans
  }

  /**
   * Whether the text spells any of `targets`.
   *
   * @example
   * new Readings('\\u0074oken%3D1').spellsAny(compileTargets(['token'], true)) // true
   */
  spellsAny(targets: Targets): boolean {
    return this.search(targets, undefined)
  }

  /** Scans every position that can begin a target (its first character, or any escape); stops at the first hit without `spans`. */
  private search(targets: Targets, spans: Array<[number, number]> | undefined): boolean {
    const { text, layer } = this
    const { list, asciiFirst, byFirst, shortest, ignoreCase } = targets
    if (text.length < shortest) return false
    // Where each target may next start: past its last occurrence.
    let from: number[] | undefined
    let found = false
    for (let p = 0; p + shortest <= text.length; p++) {
      let firsts: number[] | undefined
      if (!layer.escaped(p)) {
        const code = text.charCodeAt(p)
        if (code < 128 && asciiFirst[code] === 0) continue
        firsts = byFirst.get(code)
      } else {
        firsts = startingWith(layer, p, byFirst)
      }
      if (!firsts) continue
      for (const t of firsts) {
        const target = list[t]
        if ((from !== undefined && p < from[t]) || p + target.length > text.length) continue
        const end = this.spell(target, p, ignoreCase)
        if (end < 0) continue
        if (!spans) return true
        spans.push([p, end])
        from ??= new Array<number>(list.length).fill(0)
        from[t] = end
        found = true
      }
    }
    return found
  }

  /** How far the literal characters from `p` spell `target` from `i` (compared as they stand): the next `i`. */
  private literalRun(target: string, i: number, p: number, ignoreCase: boolean): number {
    const { text, layer } = this
    while (i < target.length && p < text.length && !layer.escaped(p)) {
      const code = text.charCodeAt(p)
      const want = target.charCodeAt(i)
      if (code !== want && !(ignoreCase && code >= 65 && code <= 90 && code + 32 === want)) break
      i++
      p++
    }
    return i
  }

  /** The farthest end of a spelling of `target` that starts at `start`, or -1. */
  private spell(target: string, start: number, ignoreCase: boolean): number {
    const { text, layer } = this
    // Most candidates fail on a literal character: settled before any allocation.
    const first = this.literalRun(target, 0, start, ignoreCase)
    if (first === target.length) return start + first
    if (!layer.escaped(start + first)) return -1
    // Depth-first over (characters spelled, position); a pair is tried once when escapes offer several readings.
    const width = text.length + 1
    const stack = [first, start + first]
    let seen: Set<number> | undefined
    let best = -1
    while (stack.length > 0) {
      const at = stack.pop()!
      const from = stack.pop()!
      const i = this.literalRun(target, from, at, ignoreCase)
      const p = at + i - from
      if (i === target.length) {
        if (p > best) best = p
        continue
      }
      if (!layer.escaped(p)) continue
      for (let r = layer.lo(p), hi = layer.hi(p); r < hi; r++) {
        const s = ignoreCase ? layer.char(p, r).toLowerCase() : layer.char(p, r)
        if (!target.startsWith(s, i)) continue
        const next = i + s.length
        const end = layer.end(p, r)
        if (next === target.length) {
          if (end > best) best = end
          continue
        }
        seen ??= new Set()
        const key = next * width + end
        if (seen.has(key)) continue
        seen.add(key)
        stack.push(next, end)
      }
    }
    return best
  }
}

/** The targets whose first character a reading of `p` begins with (each once), or undefined. */
function startingWith(layer: Layer, p: number, byFirst: Map<number, number[]>): number[] | undefined {
  let out: number[] | undefined
  for (let r = layer.lo(p), hi = layer.hi(p); r < hi; r++) {
    const indexes = byFirst.get(layer.char(p, r).charCodeAt(0))
    if (!indexes) continue
    if (!out) out = indexes
    else {
      if (out === indexes) continue
      out = [...new Set([...out, ...indexes])]
    }
  }
  return out
}

/** `\`, `%`, `&` and `+` (a space in form encoding): the characters that can begin an escape. */
function isEscapeStart(code: number): boolean {
  return code === 92 || code === 37 || code === 38 || code === 43
}
