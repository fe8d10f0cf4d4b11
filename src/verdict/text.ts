// The two ways judged text and span ids are shortened for messages, reports and prompts: one rule each,
// so a reason reads the same in a failure message, the terminal report and an annotation.

// Whitespace, plus the line breaks \s leaves out (NEL): whatever would start a new line becomes one space.
const LINE_BREAKING = /[\s\u0085]+/g

/**
 * Cuts `text` to at most `max` code points, ending with `…` when cut. Surrogate pairs (emoji, rare
 * CJK) are never split; `max` of 0 or less gives `''`, a non-finite `max` keeps the text whole.
 *
 * @example
 * cutText('abcdef', 4) // 'abc…'
 */
export function cutText(text: string, max: number): string {
  if (!Number.isFinite(max) || text.length <= max) return text
  // Code points are counted only as far as the cut: a span's output can be megabytes for a `max` of a few hundred,
  // and splitting the whole text into an array (as this did) made prompt fitting spend a sixth of its time here.
  const keep = Math.trunc(max - 1) // code points kept before `…` (as `slice(0, max - 1)` counts them)
  let end = 0
  let count = 0
  for (let i = 0; i < text.length && count <= max; count++) {
    if (count === keep) end = i
    const unit = text.charCodeAt(i)
    const pair = unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    i += pair ? 2 : 1
  }
  if (count <= max) return text
  if (max < 1) return ''
  return `${text.slice(0, end)}…`
}

/**
 * Text on one line: runs of whitespace and line breaks (also `\r`, NEL, U+2028/2029) become one
 * space, the ends are trimmed, and the result is cut to `max` code points with `…` ({@link cutText}).
 * Other control characters are kept: escaping them is the output's job (`terminalSafe`, HTML, JSON).
 *
 * @example
 * oneLineExcerpt('The answer\n  cites a 2019 figure', 20) // 'The answer cites a …'
 */
export function oneLineExcerpt(text: string, max = Number.POSITIVE_INFINITY): string {
  return cutText(text.replace(LINE_BREAKING, ' ').trim(), max)
}

/**
 * The short form of a span id shown in messages and reports: the first 8 characters and `…` for an
 * id longer than 10 (OTLP ids are 16 hex digits), short ids whole. `mark: ''` leaves the `…` out
 * (the CLI tree, whose legend explains the cut).
 *
 * @example
 * shortSpanId('4a1f9c2e7b3d5f60') // '4a1f9c2e…'
 */
export function shortSpanId(id: string, mark = '…'): string {
  return id.length > 10 ? `${Array.from(id).slice(0, 8).join('')}${mark}` : id
}
