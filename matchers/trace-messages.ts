import type { Trace } from '../src/trace/trace'
import { shortSpanId } from '../src/verdict/text'

/** Long paths keep the root and the three innermost names, where a reader looks first. */
export function formatSpanPath(names: readonly string[]): string {
  const shown = names.length > 5 ? [names[0], '…', ...names.slice(-3)] : names
  return shown.join(' › ')
}

/**
 * Where a span is, the way every trace message names it: `tool:search (id 4a1f9c2e…, path agent.run › Step 4 › search)`.
 *
 * @example
 * describeSpan(trace, span) // 'llm:LiteLLMModel.__call__ (id dc63c344…, path main › … › Step 1 › LiteLLMModel.__call__)'
 */
export function describeSpan(trace: Trace, span: { id: string; kind: string; name: string }): string {
  return `${span.kind}:${span.name} (id ${shortSpanId(span.id)}, path ${formatSpanPath(trace.path(span.id))})`
}

/**
 * A value as compact one-line JSON cut to `max` characters, for tool arguments in messages. RegExps
 * and asymmetric matchers (in expected arguments) print as themselves, not as `{}`.
 *
 * @example
 * compactJson({ query: 'capital of France' }) // '{"query":"capital of France"}'
 * compactJson({ file: /\.mp3$/ })             // '{"file":/\.mp3$/}'
 */
export function compactJson(value: unknown, max = 120): string {
  const text = value === undefined ? '(no arguments recorded)' : typeof value === 'string' ? value : show(value, new Set())
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function show(value: unknown, seen: Set<object>): string {
  if (value instanceof RegExp) return String(value)
  if (typeof value === 'bigint') return String(value)
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value)
  const matcher = value as { asymmetricMatch?: unknown; toAsymmetricMatcher?: () => string; toString(): string }
  if (typeof matcher.asymmetricMatch === 'function') return matcher.toAsymmetricMatcher?.() ?? matcher.toString()
  if (seen.has(value)) return '[Circular]'
  seen.add(value)
  if (Array.isArray(value)) return `[${value.map((v) => show(v, seen)).join(',')}]`
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${show(v, seen)}`).join(',')}}`
}

/** `1 span` / `3 spans`. */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`
}

/**
 * Text on one line, cut to `max` characters with `…` (reasons and causes can be long and multi-line).
 *
 * @example
 * excerptLine('first line\nsecond line', 12) // 'first line …'
 */
export function excerptLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}
