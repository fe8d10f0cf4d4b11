import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { notRegularFileError, TraceFormatError } from '../src/trace/errors'
import { parseTrace, pickTrace, tracesFromValue } from '../src/trace/parse'
import { isReadableSpanLike } from '../src/trace/readers/readable-spans'
import { SpanSchema, type Span } from '../src/trace/span'
import { Trace } from '../src/trace/trace'
import { usageMessage } from './messages'

/** What every trace matcher accepts as `expect(received)`, for error messages. */
export const TRACE_RECEIVED_HELP = [
  '  - a Trace (from `await loadTrace(path)`),',
  '  - what `await captureTrace(fn)` resolves to (`{ result, trace }`),',
  '  - a trace file path (OTLP JSON/JSONL, TRAIL/OpenInference JSON) as a string or file URL,',
  '  - an InMemorySpanExporter, or its `getFinishedSpans()`,',
  '  - an array of spans from a Trace (`trace.spans`),',
  '  - a parsed trace export (an OTLP `{ resourceSpans }` or OpenInference `{ trace_id, spans }` object).',
].join('\n')

/**
 * Turns `expect(received)` of a trace matcher into a {@link Trace}. Synchronous on purpose: a path is
 * read with `readFileSync` so the deterministic matchers (`toCallTool`, `toStayWithinBudget`) need no
 * `await`, and every trace matcher accepts the same values. Throws a TypeError (wrong kind of value)
 * or the reader's TraceFormatError (a file that is not a trace), each prefixed with the matcher hint.
 *
 * @example
 * const trace = resolveTrace(exporter.getFinishedSpans(), { name: 'toCallTool', args: 'name' })
 */
export function resolveTrace(received: unknown, hint: { name: string; args?: string; isNot?: boolean }): Trace {
  const fail = (problem: string) => usageMessage(hint.name, hint.isNot, hint.args ?? '', problem)
  try {
    const trace = toTrace(received)
    if (trace) return trace
  } catch (error) {
    if (error instanceof TraceFormatError) {
      // A matcher takes no traceId: say how to pick one before the assertion.
      const pick = /^holds \d+ traces/.test(error.problem)
        ? '\nA matcher checks one run: pick it first, e.g. expect(await loadTrace(received, { traceId }))'
        : ''
      error.message = fail(`received is not a readable trace: ${error.message}${pick}`)
    }
    throw error
  }
  throw new TypeError(fail(`received must be one of:\n${TRACE_RECEIVED_HELP}\n— got ${describeReceived(received)}`))
}

function toTrace(received: unknown): Trace | undefined {
  if (received instanceof Trace) return nonEmpty(received)
  const captured = capturedTrace(received)
  if (captured) return nonEmpty(captured)
  if (typeof received === 'string') return parseTrace(readTraceFile(received), received)
  if (received instanceof URL)
    return received.protocol === 'file:'
      ? parseTrace(readTraceFile(fileURLToPath(received)), fileURLToPath(received))
      : undefined
  if (isExporter(received)) return fromArray(received.getFinishedSpans())
  if (Array.isArray(received)) return fromArray(received)
  if (received !== null && typeof received === 'object' && !(received instanceof Uint8Array)) {
    const keys = Object.keys(received)
    if (keys.includes('resourceSpans') || keys.includes('spans')) return pickTrace(tracesFromValue(received))
  }
  return undefined
}

/** The trace of a `captureTrace` result (`{ result, trace }`). */
function capturedTrace(received: unknown): Trace | undefined {
  if (received === null || typeof received !== 'object' || !('trace' in received)) return undefined
  const { trace } = received as { trace: unknown }
  return trace instanceof Trace ? trace : undefined
}

/** A trace with no span (an empty capture) is no evidence: it fails, saying why it is empty. */
function nonEmpty(trace: Trace): Trace {
  if (trace.size > 0) return trace
  throw new TraceFormatError(trace.warnings.map((w) => w.message).join('\n') || 'the trace holds no span')
}

function fromArray(items: readonly unknown[]): Trace | undefined {
  if (items.length === 0) {
    throw new TraceFormatError(
      'the array of spans is empty: nothing was recorded — check that the exporter was attached and the spans ended before the assertion',
    )
  }
  if (isReadableSpanLike(items[0])) return pickTrace(tracesFromValue(items), {}, undefined, true)
  if (SpanSchema.safeParse(items[0]).success) return new Trace(items.map((s, i) => parseSpan(s, i)))
  return undefined
}

function parseSpan(value: unknown, index: number): Span {
  const parsed = SpanSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new TraceFormatError(
    `span ${index} is not a normalized span: ${issue.path.join('.') || '(root)'} ${issue.message}; pass spans from a Trace (trace.spans)`,
    {
      jsonPath: `$[${index}]`,
    },
  )
}

// O_NONBLOCK: opening a FIFO must not block the test process waiting for a writer; regular files ignore it.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

function readTraceFile(path: string): string {
  let fd: number | undefined
  try {
    fd = openSync(path, OPEN_FLAGS)
    // A FIFO would block this synchronous read for good, a device never end: refused before reading.
    const stats = fstatSync(fd)
    if (!stats.isDirectory()) {
      const refused = notRegularFileError(path, stats)
      if (refused) throw refused
    }
    return readFileSync(fd, 'utf8')
  } catch (err) {
    if (err instanceof TraceFormatError) throw err
    const code = (err as NodeJS.ErrnoException).code
    const problem =
      code === 'ENOENT'
        ? 'no such file; check the path (relative paths resolve from the current directory, not the test file)'
        : code === 'EISDIR'
          ? 'is a directory, not a trace file; load one file, or loop over `await loadTraces(dir)`'
          : `cannot be read (${(err as Error).message})`
    throw new TraceFormatError(problem, { file: path, cause: err })
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function isExporter(value: unknown): value is { getFinishedSpans(): unknown[] } {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { getFinishedSpans?: unknown }).getFinishedSpans === 'function'
  )
}

function describeReceived(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  // Nested arrays are described one level deep: received values can nest without bound.
  if (Array.isArray(value))
    return `an array whose first item is ${Array.isArray(value[0]) ? 'an array' : describeReceived(value[0]).replace(/^an? /, 'a ')}`
  if (value instanceof Uint8Array) return 'bytes (decode them and parse with parseTrace(text), or pass the file path)'
  if (value instanceof Promise) return 'a Promise — await it first: expect(await loadTrace(path))'
  if (value instanceof URL) return `a non-file URL (${value.protocol})`
  if (typeof value !== 'object') return typeof value === 'string' ? 'a string' : typeof value
  const keys = Object.keys(value)
  return `an object with keys ${keys.slice(0, 6).join(', ') || '(none)'}${keys.length > 6 ? ', …' : ''}`
}
