// Text that fits the terminal: word wrap with a hanging indent, and cutting with a visible `…`.
import { cutText } from '../verdict/text'

/** Columns of plain text (code points; the CLI's output has no wide characters of its own). */
export function columns(text: string): number {
  return Array.from(text).length
}

/** Cuts `text` to `max` columns, ending with `…` when cut (the one cutting rule, `cutText`). */
export function shorten(text: string, max: number): string {
  return cutText(text, max)
}

/** Cuts `text` to `max` columns from the left, starting with `…` when cut (for paths: the file name stays). */
export function shortenLeft(text: string, max: number): string {
  const chars = Array.from(text)
  if (chars.length <= max) return text
  return max <= 1 ? '…'.slice(0, Math.max(0, max)) : `…${chars.slice(chars.length - max + 1).join('')}`
}

/**
 * Word-wraps one line to `width` columns: the first line as it starts, the next ones indented by
 * `indent`; a word longer than a line is split. At most `maxLines` lines, the last ending in `…` when
 * text was left out.
 *
 * @example
 * wrapLine('    ✗ Goal Deviation: gave the final answer without …', 40, '        ')
 */
export function wrapLine(text: string, width: number, indent: string, maxLines = Infinity): string[] {
  if (!Number.isFinite(width) || columns(text) <= width) return [text]
  const lead = /^\s*/.exec(text)![0]
  // An indent of half the width or more would leave no room to wrap into.
  const hang = columns(indent) < width / 2 ? indent : ' '.repeat(Math.floor(width / 4))
  const lines: string[] = []
  let current = columns(lead) < width / 2 ? lead : hang
  let empty = true
  const flush = () => {
    lines.push(current)
    current = hang
    empty = true
  }
  for (const word of text.slice(lead.length).split(/ +/)) {
    if (word === '') continue
    const sep = empty ? '' : ' '
    if (columns(current) + sep.length + columns(word) <= width) {
      current += sep + word
      empty = false
      continue
    }
    if (!empty && columns(hang) + columns(word) <= width) {
      flush()
      current += word
      empty = false
      continue
    }
    // A word longer than a line (a URL, a path, a JSON blob) is split where the line ends.
    let rest = Array.from(word)
    while (rest.length > 0) {
      const gap = empty ? 0 : 1
      const free = width - columns(current) - gap
      if (free <= 0) {
        flush()
        continue
      }
      current += (gap ? ' ' : '') + rest.slice(0, free).join('')
      empty = false
      rest = rest.slice(free)
      if (rest.length > 0) flush()
    }
  }
  if (!empty || lines.length === 0) lines.push(current)
  if (lines.length <= maxLines) return lines
  const kept = lines.slice(0, maxLines)
  kept[maxLines - 1] = shorten(`${kept[maxLines - 1]} …`, width)
  if (!kept[maxLines - 1].endsWith('…')) kept[maxLines - 1] = `${shorten(kept[maxLines - 1], width - 1)}…`
  return kept
}

/**
 * Wraps every line of a block (lines split on `\n`), continuation lines indented two more than the line's own indent.
 *
 * @example
 * process.stdout.write(wrapBlock(text, process.stdout.columns ?? 80))
 */
export function wrapBlock(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, `${/^\s*/.exec(line)![0]}  `))
    .join('\n')
}
