// Nesting bounds for untrusted values: JSON.stringify, the prompt renderers and the runners' diff printers all
// recurse, so a value nested thousands deep would overflow the stack far from where it entered.

/**
 * The deepest nesting of arrays/objects a trace value may have. Real exporters nest a few levels; the
 * bound keeps every recursive consumer downstream (JSON.stringify, renderers, diff printers) far from
 * the stack limit even inside a deep test-runner stack.
 */
export const MAX_NESTING_DEPTH = 256

import { TraceFormatError } from './errors'

const OPEN_BRACE = 123
const OPEN_BRACKET = 91
const CLOSE_BRACE = 125
const CLOSE_BRACKET = 93
const QUOTE = 34
const BACKSLASH = 92

/**
 * True if a JSON text nests arrays/objects deeper than `max`. One pass, no recursion and no parse, so it
 * can run before JSON.parse to refuse a text whose object tree would be too deep to use.
 *
 * @example
 * jsonTextTooDeep('[[[1]]]', 2) // true
 */
export function jsonTextTooDeep(text: string, max = MAX_NESTING_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Skip the string: brackets inside it are text.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/**
 * True if a JS value nests arrays/objects deeper than `max` (the value itself is depth 1). Iterative.
 *
 * @example
 * valueTooDeep({ a: [[1]] }, 2) // true
 */
export function valueTooDeep(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false
  const stack: Array<{ v: object; depth: number }> = [{ v: value, depth: 1 }]
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!
    if (depth > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push({ v: child, depth: depth + 1 })
    }
  }
  return false
}

/**
 * JSON.parse for text from a trace: `undefined` when the text is not JSON or nests deeper than
 * {@link MAX_NESTING_DEPTH} (the caller keeps it as text).
 *
 * @example
 * parseBoundedJson('{"q": "weather"}') // { q: 'weather' }
 * parseBoundedJson('['.repeat(3000) + ']'.repeat(3000)) // undefined
 */
export function parseBoundedJson(text: string): unknown {
  if (jsonTextTooDeep(text)) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Throws a TraceFormatError naming the attribute whose value nests deeper than {@link MAX_NESTING_DEPTH}
 * (readers whose attributes are plain JSON objects: OpenInference files, SDK spans). Flat values cost a
 * typeof each. `jsonPath` may be a function: a reader then builds the path only for the error.
 *
 * @example
 * checkAttributeDepth(span.attributes, '$.spans[0].span_attributes', 'trace.json')
 */
export function checkAttributeDepth(
  attributes: Readonly<Record<string, unknown>>,
  jsonPath: string | (() => string),
  file?: string,
): void {
  for (const key in attributes) {
    const v = attributes[key]
    if (v !== null && typeof v === 'object' && valueTooDeep(v, MAX_NESTING_DEPTH)) {
      throw new TraceFormatError(
        `the attribute ${JSON.stringify(key)} nests arrays/objects more than ${MAX_NESTING_DEPTH} levels deep, too deep to judge or report; flatten the attribute, or record it as a JSON string`,
        { file, jsonPath: `${typeof jsonPath === 'string' ? jsonPath : jsonPath()}[${JSON.stringify(key)}]` },
      )
    }
  }
}
