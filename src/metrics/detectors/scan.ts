// Internal helpers that keep the detectors' V8-specific speed-ups out of the detector files, so those read
// as rules. Each helper says why it is shaped the way it is; none changes a result (the TRAIL figures and
// findings were diffed before and after each of them). Background and figures: docs/decisions/0014-ingest-speed.md.
// Not exported from the package.
import type { Span } from '../../trace/span'

/**
 * Calls `visit` for each span in order. An index loop rather than `for…of`: detectors run once per trace,
 * mostly as baseline (unoptimized) code, where `for…of` allocates an iterator result per element (e12cc91).
 *
 * @example
 * forEachSpan(trace.spans, (span) => { if (span.kind === 'llm') llms.push(span) })
 */
export function forEachSpan(spans: readonly Span[], visit: (span: Span) => void): void {
  for (let i = 0; i < spans.length; i++) visit(spans[i])
}

/**
 * `target.push(...items)` without the spread, which overflows the stack past ~150k items (a retry storm's
 * errors, f03547c).
 */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) target.push(items[i])
}

/**
 * `text.indexOf(needle, from)`, searched through the needle's tail from `skip` on. V8 scans for a needle
 * whose first letter is rare with memchr, but runs Boyer-Moore-Horspool for longer needles, which English
 * text keeps shifting by one at every common letter: "template" found through "mplate" is about 3x faster
 * over TRAIL prompts (110d30e). Pick a `skip` that makes the tail start with a rare letter.
 *
 * @example
 * const indexOfTemplate = indexOfByTail('template', 2)
 * indexOfTemplate('use the following template:', 0) // 18
 */
export function indexOfByTail(needle: string, skip: number): (text: string, from: number) => number {
  const head = needle.slice(0, skip)
  const tail = needle.slice(skip)
  return (text, from) => {
    for (let j = text.indexOf(tail, from + skip); j !== -1; j = text.indexOf(tail, j + 1)) {
      if (text.startsWith(head, j - skip)) return j - skip
    }
    return -1
  }
}

/**
 * One compiled regex per key (a tool or agent name), built on first use: the detectors test the same few
 * names on every step of every trace, so each pattern is compiled once, not once per step.
 *
 * @example
 * const callOf = regexPerKey((name) => new RegExp(`${escapeRegExp(name)}\\s*\\(`))
 * callOf('search_agent').test(code)
 */
export function regexPerKey(build: (key: string) => RegExp): (key: string) => RegExp {
  const cache = new Map<string, RegExp>()
  return (key) => {
    let regex = cache.get(key)
    if (!regex) cache.set(key, (regex = build(key)))
    return regex
  }
}

/**
 * The first match of a global `pattern` that ends at or after `at`, for a pattern that can match at most
 * `reach` characters before that point: the scan starts there, not at the start of the text (a costly
 * pattern then walks a few hundred characters, not the whole thought).
 *
 * @example
 * execNear(/I will ask\b[^.]{0,20}?\bsearch_agent\b/g, thought, thought.indexOf('search_agent'), 32)
 */
export function execNear(pattern: RegExp, text: string, at: number, reach: number): RegExpExecArray | null {
  pattern.lastIndex = Math.max(0, at - reach)
  return pattern.exec(text)
}

/**
 * `${prefix}${i}${suffix}` with the first `count` keys built once: a key string built per lookup must be
 * hashed and interned again every time (359f048).
 *
 * @example
 * const managedName = numberedKey('smolagents.managed_agents.', '.name', 8)
 * managedName(0) // 'smolagents.managed_agents.0.name'
 */
export function numberedKey(prefix: string, suffix: string, count: number): (i: number) => string {
  const keys = Array.from({ length: count }, (_, i) => `${prefix}${i}${suffix}`)
  return (i) => keys[i] ?? `${prefix}${i}${suffix}`
}
