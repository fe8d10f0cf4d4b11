import { constants } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'
import fg from 'fast-glob'
import { fileReadError, notRegularFileError, TraceFormatError } from './errors'
import { loadJsonlFile, MAX_TEXT_BYTES } from './load-large'
import { parseTrace, parseTraces, pickTrace, tracesFromValue, type TraceOptions } from './parse'
import { isReadableSpanLike, type ReadableSpanLike } from './readers/readable-spans'
import { Trace } from './trace'

/** What {@link loadTrace} accepts: a file path (or JSON text), file bytes, a parsed export, SDK spans, or a Trace. */
export type TraceInput = string | Uint8Array | Trace | readonly ReadableSpanLike[] | Record<string, unknown>

// O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused right after); regular files ignore it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/** The file's text, or undefined when it is too large for one string (then it is read as JSONL); TraceFormatError otherwise. */
async function readTraceText(path: string): Promise<string | undefined> {
  let handle: FileHandle | undefined
  try {
    handle = await open(path, OPEN_FLAGS)
    // Checked on the open file, so the path cannot be swapped for a pipe or device between check and read.
    const info = await handle.stat()
    const refused = notRegularFileError(path, info)
    if (refused) throw refused
    // A file larger than the longest string V8 can make is read line by line (JSONL), not whole.
    if (info.size > MAX_TEXT_BYTES) return undefined
    return await handle.readFile('utf8')
  } catch (err) {
    throw err instanceof TraceFormatError ? err : fileReadError(path, err)
  } finally {
    await handle?.close().catch(() => {})
  }
}

/**
 * Every trace in one file (OTLP JSON, OTLP JSONL from the collector file exporter, TRAIL/OpenInference
 * JSON), one Trace per trace id.
 *
 * @example
 * const traces = await loadTraceFile('otel-export.jsonl')
 * console.log(traces.map((t) => `${t.traceId}: ${t.size} spans`))
 */
export async function loadTraceFile(path: string): Promise<Trace[]> {
  const text = await readTraceText(path)
  return text === undefined ? loadJsonlFile(path) : parseTraces(text, path)
}

/**
 * Loads one agent run as a {@link Trace}, detecting the format: OTLP JSON / JSONL, GenAI semantic
 * conventions, OpenInference (TRAIL, Phoenix), SDK `ReadableSpan`s, or a Trace (returned as is).
 * Tolerated oddities (orphans, duplicate spans, missing input/output, unparsed payloads) land in
 * `trace.warnings`; malformed input throws a {@link TraceFormatError} naming the file and JSON path.
 * If the input holds several traces, pass `{ traceId }` or use {@link loadTraceFile}.
 *
 * @example
 * const trace = await loadTrace('traces/refund-run.json')
 * for (const span of trace.spansByKind('tool')) console.log(span.toolName, span.toolArgs)
 */
export async function loadTrace(input: TraceInput, opts: TraceOptions = {}): Promise<Trace> {
  if (input instanceof Trace) {
    if (opts.traceId !== undefined && input.traceId.toLowerCase() !== opts.traceId.toLowerCase()) {
      throw new TraceFormatError(`no trace with id ${opts.traceId}: the Trace passed in has id ${input.traceId}`, {
        file: input.source,
      })
    }
    return input
  }
  // No file path starts with `{`; JSON text passed by mistake for a path still loads.
  if (typeof input === 'string')
    return /^\s*\{/.test(input)
      ? parseTrace(input, undefined, opts)
      : pickTrace(await loadTraceFile(input), opts, input)
  // File bytes, e.g. what the OTel JsonTraceSerializer returns.
  if (input instanceof Uint8Array) return pickTrace(parseTraces(new TextDecoder().decode(input)), opts)
  const captured = Array.isArray(input) && input.length > 0 && isReadableSpanLike(input[0])
  return pickTrace(tracesFromValue(input), opts, undefined, captured)
}

/** The files paths, directories and globs stand for, sorted; none at all is an error (a typo must not pass as "no failures"). */
async function traceFiles(globsOrPaths: string | readonly string[]): Promise<string[]> {
  const patterns = typeof globsOrPaths === 'string' ? [globsOrPaths] : [...globsOrPaths]
  const files = new Set<string>()
  for (const pattern of patterns) {
    for (const file of await expandTracePattern(pattern)) files.add(file)
  }
  if (files.size === 0) {
    const where = patterns.join(', ')
    throw new TraceFormatError(
      `no trace files were found at ${where || '(no paths given)'}; directories are searched for **/*.{json,jsonl} — check the path or the glob`,
      { file: where },
    )
  }
  return [...files].sort()
}

/**
 * All traces matched by paths, directories (searched for `**\/*.{json,jsonl}`) or globs, files sorted
 * by path. Finding no file at all is an error, so a typo does not pass as "no failures". Every trace is
 * held at once; to go through a large directory one file at a time, use {@link eachTrace}.
 *
 * @example
 * const traces = await loadTraces(['traces/', 'more/*.jsonl'])
 */
export async function loadTraces(globsOrPaths: string | readonly string[]): Promise<Trace[]> {
  const traces: Trace[] = []
  for await (const trace of eachTrace(globsOrPaths)) traces.push(trace)
  return traces
}

/**
 * The traces {@link loadTraces} would return, one at a time: each file is read when the loop reaches it,
 * and only that file's traces are held (plus whichever the loop keeps), so a directory of large traces
 * needs the memory of its largest file, not of all of them (a `for await` loop itself keeps the previous
 * trace until the next arrives: about two at a time). Same order and errors as `loadTraces`; a file that
 * is not a trace throws when the loop reaches it, after the traces of the files before it.
 *
 * @example
 * for await (const trace of eachTrace('exports/')) console.log(trace.traceId, detect(trace).length)
 */
export async function* eachTrace(globsOrPaths: string | readonly string[]): AsyncGenerator<Trace, void, undefined> {
  // Both outside the loops and cleared by hand: a suspended generator keeps its locals, stale ones included,
  // so a block-scoped `const trace` would hold the last file's last trace while the next file loads.
  let traces: Array<Trace | undefined> | undefined
  let trace: Trace | undefined
  for (const file of await traceFiles(globsOrPaths)) {
    traces = undefined
    traces = await loadTraceFile(file)
    for (let i = 0; i < traces.length; i++) {
      trace = traces[i]!
      traces[i] = undefined
      yield trace
      trace = undefined
    }
  }
}

/**
 * The trace files one path / directory / glob stands for: a file itself, a directory's
 * `**\/*.{json,jsonl}`, or a glob's matches (node_modules skipped). Unsorted; empty when nothing matched.
 *
 * @example
 * const files = (await expandTracePattern('examples/traces')).sort()
 */
export async function expandTracePattern(pattern: string): Promise<string[]> {
  if (fg.isDynamicPattern(pattern)) return walk(pattern)
  const info = await stat(pattern).catch(() => undefined)
  if (!info) return []
  // A FIFO or device named on its own is returned too: loading refuses it with a message that says what it is.
  if (!info.isDirectory()) return [pattern]
  const base = fg.convertPathToPattern(pattern.replace(/[\\/]+$/, '') || '/')
  return walk(`${base}/**/*.{json,jsonl}`)
}

/**
 * A glob's files. Symbolic links to directories are not walked into (a loop such as `d/up -> ..` made the walk
 * count one file dozens of times, or never end); a link to a file is kept, as the file it points to.
 */
async function walk(pattern: string): Promise<string[]> {
  const found = await fg(pattern, {
    onlyFiles: false,
    followSymbolicLinks: false,
    objectMode: true,
    ignore: ['**/node_modules/**'],
  })
  const files: string[] = []
  for (const entry of found) {
    if (entry.dirent.isFile()) files.push(entry.path)
    else if (entry.dirent.isSymbolicLink() && (await stat(entry.path).catch(() => undefined))?.isFile())
      files.push(entry.path)
  }
  return files
}
