// Reads an OTLP JSON request span by span from its text, so no whole-document object tree is ever built.
import type { Span } from '../span'
import type { ReadContext } from './context'
import { readSpan, RESOURCE_SPANS, SCOPE_SPANS } from './otlp'

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

/** The container keys in lower case: a key that matches one only without case is handed to the whole-document reader. */
const ODD_CASE: ReadonlySet<string> = new Set([...RESOURCE_SPANS, ...SCOPE_SPANS].map((k) => k.toLowerCase()))

/** Spans of one `scopeSpans[s]` entry: their text ranges sit at `ranges[2 * from …  2 * to)`. */
interface ScopeGroup {
  r: number
  ssKey: string
  s: number
  from: number
  to: number
}

/** The envelope of a request, split: the key it used for resourceSpans, the span ranges, their scopes. */
interface Split {
  rsKey: string
  ranges: number[]
  groups: ScopeGroup[]
}

function skipWs(t: string, i: number): number {
  let c = t.charCodeAt(i)
  while (c === 32 || c === 10 || c === 13 || c === 9) c = t.charCodeAt(++i)
  return i
}

/** Index just past the string that opens at `i` (a `"`), or -1. Jumps between quotes with indexOf. */
function stringEnd(t: string, i: number): number {
  let from = i + 1
  for (;;) {
    const q = t.indexOf('"', from)
    if (q === -1) return -1
    let b = q - 1
    while (t.charCodeAt(b) === BACKSLASH) b--
    // An even run of backslashes before the quote escapes only themselves.
    if ((q - 1 - b) % 2 === 0) return q + 1
    from = q + 1
  }
}

/**
 * Index just past the JSON value that starts at `i`, or -1 at the end of the text. Only counts nesting,
 * it does not validate: every value it skips is handed to JSON.parse afterwards, which does.
 */
function valueEnd(t: string, i: number): number {
  let depth = 0
  for (;;) {
    const c = t.charCodeAt(i)
    if (c === QUOTE) {
      i = stringEnd(t, i)
      if (i === -1) return -1
      if (depth === 0) return i
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++
      i++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return i
      i++
      if (--depth === 0) return i
    } else if (Number.isNaN(c)) {
      return -1 // NaN: past the end
    } else if (depth === 0 && (c === COMMA || c === 32 || c === 10 || c === 13 || c === 9)) {
      return i
    } else {
      i++
    }
  }
}

/**
 * Walks the members of the object that opens at `i`, calling `member(key, valueStart)` for each, which
 * returns the index just past the value (or -1 to give up). Returns the index past the `}`, or -1.
 */
function members(t: string, i: number, member: (key: string, at: number) => number): number {
  i = skipWs(t, i + 1)
  if (t.charCodeAt(i) === CLOSE_BRACE) return i + 1
  for (;;) {
    if (t.charCodeAt(i) !== QUOTE) return -1
    const keyEnd = stringEnd(t, i)
    if (keyEnd === -1) return -1
    const key = t.slice(i + 1, keyEnd - 1)
    // Escapes or control characters in a key: leave such rare texts to JSON.parse.
    if (/[\\\u0000-\u001f]/.test(key)) return -1
    i = skipWs(t, keyEnd)
    if (t.charCodeAt(i) !== COLON) return -1
    i = member(key, skipWs(t, i + 1))
    if (i === -1) return -1
    i = skipWs(t, i)
    const c = t.charCodeAt(i)
    if (c === CLOSE_BRACE) return i + 1
    if (c !== COMMA) return -1
    i = skipWs(t, i + 1)
  }
}

/** Walks the elements of the array that opens at `i`; `element(index, start)` returns the index past it. */
function elements(t: string, i: number, element: (index: number, at: number) => number): number {
  if (t.charCodeAt(i) !== OPEN_BRACKET) return -1
  i = skipWs(t, i + 1)
  if (t.charCodeAt(i) === CLOSE_BRACKET) return i + 1
  for (let n = 0; ; n++) {
    i = element(n, i)
    if (i === -1) return -1
    i = skipWs(t, i)
    const c = t.charCodeAt(i)
    if (c === CLOSE_BRACKET) return i + 1
    if (c !== COMMA) return -1
    i = skipWs(t, i + 1)
  }
}

/** Skips a value the reader does not use, checking with JSON.parse that it is valid JSON. */
function skipChecked(t: string, at: number): number {
  const end = valueEnd(t, at)
  if (end === -1) return -1
  try {
    JSON.parse(t.slice(at, end))
  } catch {
    return -1
  }
  return end
}

/**
 * The request's span text ranges, or undefined when the text is not a request this scanner takes: it
 * must open with a `resourceSpans` key and use each envelope key once. Everything else (other shapes,
 * duplicate keys, invalid JSON) is left to the whole-document path, whose errors are the reference.
 */
function split(t: string): Split | undefined {
  let i = skipWs(t, 0)
  if (t.charCodeAt(i) !== OPEN_BRACE) return undefined
  const first = skipWs(t, i + 1)
  let rsKey: string | undefined
  // Cheap exit for everything that is not OTLP (TRAIL opens with "trace_id"): no scan at all.
  for (const k of RESOURCE_SPANS) if (t.startsWith(`"${k}"`, first)) rsKey = k
  if (rsKey === undefined) return undefined
  const ranges: number[] = []
  const groups: ScopeGroup[] = []
  const scope = (r: number, ssKey: string, s: number, at: number): number => {
    if (t.charCodeAt(at) !== OPEN_BRACE) return -1
    let seen = false
    return members(t, at, (key, v) => {
      if (key !== 'spans') return skipChecked(t, v)
      if (seen) return -1
      seen = true
      const from = ranges.length >> 1
      const end = elements(t, v, (_, e) => {
        if (t.charCodeAt(e) !== OPEN_BRACE) return -1
        const spanEnd = valueEnd(t, e)
        ranges.push(e, spanEnd)
        return spanEnd
      })
      groups.push({ r, ssKey, s, from, to: ranges.length >> 1 })
      return end
    })
  }
  const resource = (r: number, at: number): number => {
    if (t.charCodeAt(at) !== OPEN_BRACE) return -1
    let ssSeen = false
    return members(t, at, (key, v) => {
      // A key differing only in case (`ScopeSpans`): the whole-document reader says what is wrong with it.
      if (!(SCOPE_SPANS as readonly string[]).includes(key))
        return ODD_CASE.has(key.toLowerCase()) ? -1 : skipChecked(t, v)
      if (ssSeen) return -1
      ssSeen = true
      return elements(t, v, (s, e) => scope(r, key, s, e))
    })
  }
  let rsSeen = false
  i = members(t, i, (key, v) => {
    if (!(RESOURCE_SPANS as readonly string[]).includes(key))
      return ODD_CASE.has(key.toLowerCase()) ? -1 : skipChecked(t, v)
    if (rsSeen) return -1
    rsSeen = true
    return elements(t, v, resource)
  })
  if (i === -1 || skipWs(t, i) !== t.length) return undefined
  return { rsKey, ranges, groups }
}

/**
 * Reads an OTLP JSON `ExportTraceServiceRequest` text span by span: each span's text goes through
 * JSON.parse alone and its raw object is garbage as soon as the span is read. A whole-document parse
 * keeps every raw object alive until the last span is read, and the collector copies them all, which
 * made a 100k-span file cost more per span than a 1k-span one. Returns the spans exactly as
 * `readOtlp(JSON.parse(text))` would, or undefined when the text is not one this path takes (not
 * OTLP, invalid, unusual) — then `ctx` is as it was, and the caller parses the whole document.
 *
 * @example
 * const spans = readOtlpText(text, ctx) ?? readOtlp(JSON.parse(text), ctx)
 */
export function readOtlpText(text: string, ctx: ReadContext): Span[] | undefined {
  const parts = split(text)
  if (parts === undefined) return undefined
  const { rsKey, ranges, groups } = parts
  const out: Span[] = []
  const mark = ctx.mark()
  try {
    for (let g = 0; g < groups.length; g++) {
      const { r, ssKey, s, from, to } = groups[g]
      // The same paths the whole-document reader gives, built only if an error needs them.
      let at = from
      const spanPath = () => `$.${rsKey}[${r}].${ssKey}[${s}].spans[${at - from}]`
      const attributesPath = () => `${spanPath()}.attributes`
      for (; at < to; at++)
        out.push(readSpan(JSON.parse(text.slice(ranges[2 * at], ranges[2 * at + 1])), spanPath, attributesPath, ctx))
    }
  } catch {
    // Invalid JSON inside a span, or a span the reader rejects: the whole-document path reports it.
    ctx.rewind(mark)
    return undefined
  }
  return out
}
