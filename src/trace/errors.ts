import type { Stats } from 'node:fs'

/** Where a problem was found: the file and the JSON path inside it. */
export interface TraceFormatLocation {
  /** File the input came from, when it came from disk. */
  file?: string
  /** JSONPath of the offending value, e.g. `$.resourceSpans[0].scopeSpans[1].spans[3].spanId`. */
  jsonPath?: string
  /** 1-based line of a JSONL file the JSON path is relative to. */
  line?: number
  /** Span ids involved (cycles, duplicates), when the problem is about spans rather than one value. */
  spanIds?: string[]
  cause?: unknown
}

/**
 * A trace file (or object) that cannot be read as a trace. The message names the file, the JSON path
 * and what was expected there, and says what to do next.
 *
 * @example
 * try {
 *   await loadTrace('traces/run.json')
 * } catch (err) {
 *   if (err instanceof TraceFormatError) console.error(err.file, err.jsonPath, err.message)
 * }
 */
export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError'
  readonly file?: string
  readonly jsonPath?: string
  readonly line?: number
  readonly spanIds?: string[]
  /** The problem without the file/path prefix, so callers can re-locate the error. */
  readonly problem: string

  constructor(problem: string, where: TraceFormatLocation = {}) {
    super(formatMessage(problem, where), where.cause === undefined ? undefined : { cause: where.cause })
    this.problem = problem
    this.file = where.file
    this.jsonPath = where.jsonPath
    this.line = where.line
    this.spanIds = where.spanIds
  }

  /** The same error with a file and/or JSON path filled in where they were unknown. */
  locate(where: { file?: string; jsonPath?: string; line?: number }): TraceFormatError {
    return new TraceFormatError(this.problem, {
      file: this.file ?? where.file,
      jsonPath: this.jsonPath ?? where.jsonPath,
      line: this.line ?? where.line,
      spanIds: this.spanIds,
      cause: this.cause,
    })
  }
}

function formatMessage(problem: string, { file, jsonPath, line }: TraceFormatLocation): string {
  const place = line === undefined ? file : `${file ?? '<input>'}:${line}`
  const where = [place, jsonPath].filter((s) => s !== undefined && s !== '').join(' at ')
  return where ? `${where}: ${problem}` : problem
}

/** Short description of a found value for "expected X, found Y" messages; never dumps big strings. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the key is missing)'
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  switch (typeof value) {
    case 'string':
      return value.length > 40
        ? `the string "${value.slice(0, 40)}…" (${value.length} chars)`
        : `the string ${JSON.stringify(value)}`
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`
    case 'object': {
      const keys = Object.keys(value as object)
      return keys.length === 0
        ? 'an empty object'
        : `an object with keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', …' : ''}`
    }
    default:
      return typeof value
  }
}

/** Builds the "expected …, found …" error every structural check throws. */
export function expected(
  what: string,
  found: unknown,
  jsonPath: string,
  file?: string,
  hint?: string,
): TraceFormatError {
  const next = hint ?? 'fix the exporter or the file, or report the format if it is a real exporter output'
  return new TraceFormatError(`expected ${what}, found ${describeValue(found)}; ${next}`, { file, jsonPath })
}

/**
 * The TraceFormatError for a trace file that could not be read at all (missing, a directory, too large
 * for one string, unreadable), saying what to do next.
 *
 * @example
 * await readFile(path, 'utf8').catch((err) => { throw fileReadError(path, err) })
 */
export function fileReadError(path: string, err: unknown): TraceFormatError {
  const code = (err as NodeJS.ErrnoException).code
  const problem =
    code === 'EISDIR'
      ? 'is a directory, not a trace file; use loadTraces(dir) to load every *.json / *.jsonl trace in it'
      : code === 'ERR_STRING_TOO_LONG' || err instanceof RangeError
        ? 'is larger than a JavaScript string can hold; export OTLP JSONL (one request per line) or split the export into smaller files'
        : code === 'ENOENT'
          ? 'no such file; check the path (relative paths resolve from the current directory)'
          : `cannot be read (${(err as Error).message}); check the path and its permissions`
  return new TraceFormatError(problem, { file: path, cause: err })
}

/**
 * The TraceFormatError for a path that is not a regular file (a FIFO would block, a device never end),
 * or undefined for a regular file. Directories keep their own message (see fileReadError).
 */
export function notRegularFileError(path: string, info: Stats): TraceFormatError | undefined {
  if (info.isFile()) return undefined
  if (info.isDirectory()) return fileReadError(path, Object.assign(new Error('is a directory'), { code: 'EISDIR' }))
  const what = info.isFIFO()
    ? 'a FIFO (named pipe)'
    : info.isCharacterDevice()
      ? 'a character device'
      : info.isBlockDevice()
        ? 'a block device'
        : info.isSocket()
          ? 'a socket'
          : 'not a regular file'
  return new TraceFormatError(
    `is ${what}, not a regular file, so it is not read (it could block or never end); write the trace to a file first, or read it yourself and pass the text to parseTraces()`,
    { file: path },
  )
}
