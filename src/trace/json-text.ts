import { TraceFormatError } from './errors'

/** Line and column (1-based) of a character position. Only used on the error path. */
function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: pos - lineStart + 1 }
}

/** Where V8's JSON.parse stopped: exact when it says so, else recovered from the snippet it quotes. */
function errorPosition(text: string, message: string): number | undefined {
  const at = /at position (\d+)/.exec(message)
  if (at) return Number(at[1])
  if (/end of JSON input/.test(message)) return text.length
  // `Unexpected token '}', ..."xx", "b": }   "... is not valid JSON`: the snippet is centred on the error.
  const snippet = /Unexpected token '([\s\S])', (\.\.\.)?"([\s\S]*?)"(\.\.\.)? is not valid JSON/.exec(message)
  if (!snippet) return undefined
  const [, token, before, body] = snippet
  const start = before ? text.indexOf(body) : 0
  if (start === -1) return undefined
  return before ? start + 10 : start + Math.max(0, body.indexOf(token))
}

/**
 * JSON.parse that reports where and why it failed as a TraceFormatError (file, line:column, position).
 *
 * @example
 * const doc = parseJsonText(text, 'traces/run.json')
 */
export function parseJsonText(text: string, file?: string, line?: number): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    const pos = errorPosition(text, message)
    const truncated = pos !== undefined && pos >= text.trimEnd().length
    let where = ''
    if (pos !== undefined) {
      const lc = lineColumn(text, pos)
      where = ` at line ${(line ?? 1) + lc.line - 1} column ${lc.column} (position ${pos})`
    }
    const reason = message.replace(/, (\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '')
    const hint = truncated
      ? 'the file looks truncated: re-export it, or make sure the exporter flushed before the process exited'
      : 'expected an OTLP JSON export or an OpenInference trace; fix the file or re-export it'
    throw new TraceFormatError(`not valid JSON${where}: ${reason}; ${hint}`, { file, jsonPath: '$', line, cause: err })
  }
}

/** The non-blank lines of a JSONL text with their 1-based line numbers. */
export function jsonlLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = []
  let line = 1
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    const body = text.slice(start, end).trim()
    if (body !== '') out.push({ line, text: body })
    line++
    start = end + 1
  }
  return out
}

/** True if the first non-blank line is a complete JSON object on its own: the text is JSONL. */
export function looksLikeJsonl(text: string): boolean {
  const first = /^\s*(.*)$/m.exec(text)?.[1]?.trim()
  if (!first || first.charCodeAt(0) !== 123 || first.length === text.trim().length) return false
  try {
    JSON.parse(first)
    return true
  } catch {
    return false
  }
}
