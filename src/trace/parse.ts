import { describeValue, TraceFormatError } from './errors'
import { jsonlLines, looksLikeJsonl, parseJsonText } from './json-text'
import { ReadContext } from './readers/context'
import { isOpenInferenceEnvelope, locateOpenInferenceSpan, readOpenInference } from './readers/openinference'
import { isOtlpRequest, locateOtlpSpan, readOtlp } from './readers/otlp'
import { readOtlpText } from './readers/otlp-text'
import { fromReadableSpans, isReadableSpanLike } from './readers/readable-spans'
import type { Span } from './span'
import { Trace } from './trace'
import { addTreeWarnings } from './warnings'

/** Options for picking one trace out of an input. */
export interface TraceOptions {
  /** Which trace to return when the input holds several trace ids. */
  traceId?: string
}

/** Where a span id sits in the input, for errors found after reading (parent-id cycles). */
type Locate = (spanId: string) => { jsonPath?: string; line?: number } | undefined

interface Reading {
  spans: Span[]
  locate: Locate
}

function notATrace(value: unknown, file: string | undefined): TraceFormatError {
  return new TraceFormatError(
    `not a trace: expected OTLP \`resourceSpans\` or an OpenInference \`{trace_id, spans}\` envelope, found ${describeValue(value)}; pass a trace export (OTLP JSON/JSONL, TRAIL/OpenInference JSON) or SDK ReadableSpans`,
    { file, jsonPath: '$' },
  )
}

/** Reads one parsed document (or an array of SDK spans) with the reader its shape calls for. */
function readValue(value: unknown, ctx: ReadContext): Reading {
  if (isOtlpRequest(value)) {
    const spans = readOtlp(value, ctx)
    return { spans, locate: (id) => pathTo(locateOtlpSpan(value, id), '.parentSpanId') }
  }
  if (isOpenInferenceEnvelope(value)) {
    const spans = readOpenInference(value, ctx)
    return { spans, locate: (id) => pathTo(locateOpenInferenceSpan(value, id), '.parent_span_id') }
  }
  if (Array.isArray(value) && value.length > 0 && isReadableSpanLike(value[0])) {
    const spans = fromReadableSpans(value, { context: ctx })
    return { spans, locate: (id) => pathTo(indexPath(spans, id), '.parentSpanContext.spanId') }
  }
  throw notATrace(value, ctx.source)
}

function pathTo(path: string | undefined, key: string): { jsonPath: string } | undefined {
  return path === undefined ? undefined : { jsonPath: path + key }
}

function indexPath(spans: Span[], id: string): string | undefined {
  const i = spans.findIndex((s) => s.id === id)
  return i === -1 ? undefined : `$[${i}]`
}

/** OTel collector file exporter output: one ExportTraceServiceRequest per line. */
function readJsonl(text: string, ctx: ReadContext): Reading {
  const spans: Span[] = []
  const readings: Array<{ line: number; reading: Reading }> = []
  for (const { line, text: body } of jsonlLines(text)) {
    const reading = readJsonlLine(body, line, ctx)
    readings.push({ line, reading })
    for (const s of reading.spans) spans.push(s)
  }
  const locate: Locate = (id) => {
    for (const { line, reading } of readings) {
      const where = reading.locate(id)
      if (where) return { ...where, line }
    }
    return undefined
  }
  return { spans, locate }
}

/** One JSONL line's spans; errors name the line. */
function readJsonlLine(body: string, line: number, ctx: ReadContext): Reading {
  try {
    return readValue(parseJsonText(body, ctx.source, line), ctx)
  } catch (err) {
    throw err instanceof TraceFormatError ? err.locate({ line }) : err
  }
}

/**
 * Traces from a JSONL export fed one line at a time, for files too large to hold as one string. Keeps
 * the spans, not the parsed lines: an error found after reading (a parent-id cycle) names the line only.
 *
 * @example
 * const reader = new JsonlTraceReader('big.jsonl')
 * reader.add(1, firstLine)
 * const traces = reader.traces()
 */
export class JsonlTraceReader {
  private readonly ctx: ReadContext
  private readonly spans: Span[] = []
  /** Line number and the index of its first span, in order. */
  private readonly lines: Array<{ line: number; first: number }> = []

  constructor(source?: string) {
    this.ctx = new ReadContext(source)
  }

  /** Reads one non-blank line (1-based `line`, for error messages). */
  add(line: number, body: string): void {
    this.lines.push({ line, first: this.spans.length })
    for (const s of readJsonlLine(body, line, this.ctx).spans) this.spans.push(s)
  }

  /** Every trace read so far, one per trace id. */
  traces(): Trace[] {
    const { spans, lines } = this
    const locate: Locate = (id) => {
      const index = spans.findIndex((s) => s.id === id)
      if (index === -1) return undefined
      let line = lines[0]?.line
      for (const l of lines) if (l.first <= index) line = l.line
      return { line }
    }
    return buildTraces({ spans, locate }, this.ctx)
  }
}

function readText(text: string, ctx: ReadContext): Reading {
  // A BOM is legal in a UTF-8 file but not in JSON.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (!/\S/.test(body)) {
    throw new TraceFormatError(
      `the file is empty (${text.length === 0 ? '0 bytes' : 'only whitespace'}): expected an OTLP JSON export or an OpenInference trace; check that the exporter flushed before the process exited`,
      { file: ctx.source, jsonPath: '$' },
    )
  }
  const streamed = readOtlpText(body, ctx)
  // Span ids are located for errors only (a parent-id cycle), so the document is parsed only then.
  if (streamed)
    return { spans: streamed, locate: (id) => pathTo(locateOtlpSpan(JSON.parse(body), id), '.parentSpanId') }
  let doc: unknown
  try {
    doc = JSON.parse(body)
  } catch {
    if (looksLikeJsonl(body)) return readJsonl(body, ctx)
    doc = parseJsonText(body, ctx.source)
  }
  return readValue(doc, ctx)
}

/** Groups spans by trace id (in order of first appearance) and builds a Trace for each. */
function buildTraces({ spans, locate }: Reading, ctx: ReadContext): Trace[] {
  const groups = new Map<string, Span[]>()
  const first = spans[0]?.traceId
  if (spans.every((s) => s.traceId === first)) {
    if (spans.length > 0) groups.set(first, spans)
  } else {
    for (const s of spans) {
      let list = groups.get(s.traceId)
      if (!list) groups.set(s.traceId, (list = []))
      list.push(s)
    }
  }
  const traces: Trace[] = []
  for (const [traceId, group] of groups) {
    let trace: Trace
    try {
      trace = new Trace(group, { traceId, warnings: ctx.warningsFor(traceId), source: ctx.source })
    } catch (err) {
      if (err instanceof TraceFormatError && err.spanIds)
        throw err.locate({ file: ctx.source, ...locate(err.spanIds[0]) })
      throw err
    }
    addTreeWarnings(trace)
    traces.push(trace)
  }
  return traces
}

/**
 * Every trace in a JSON/JSONL text (OTLP, OpenInference/TRAIL), one per trace id. Synchronous.
 *
 * @example
 * const traces = parseTraces(readFileSync('otel-export.jsonl', 'utf8'), 'otel-export.jsonl')
 */
export function parseTraces(text: string, source?: string): Trace[] {
  const ctx = new ReadContext(source)
  return buildTraces(readText(text, ctx), ctx)
}

/**
 * Every trace in an already-parsed document (OTLP request, OpenInference envelope) or array of SDK spans.
 *
 * @example
 * const traces = tracesFromValue(JSON.parse(text))
 */
export function tracesFromValue(value: unknown, source?: string): Trace[] {
  const ctx = new ReadContext(source)
  return buildTraces(readValue(value, ctx), ctx)
}

/**
 * Why spans captured in one process (SDK ReadableSpans) hold several traces, and what to do: most often
 * one agent run whose child spans did not inherit their parent's OTel context.
 */
export const CONTEXT_PROPAGATION_HINT = [
  'If these spans are one agent run, its spans landed in different traces: the agent did not propagate the OTel context.',
  "Start child spans inside their parent's context — tracer.startActiveSpan(name, fn), or context.with(trace.setSpan(context.active(), parent), fn) —",
  'and register an async-hooks context manager so the context survives `await`: NodeTracerProvider.register() does; with BasicTracerProvider call',
  'context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()) (@opentelemetry/context-async-hooks).',
  "If they are several runs (tests running at the same time share the exporter), capture each test's run with captureTrace(fn) from agent-verdict, or pick one with { traceId }.",
].join('\n')

/**
 * Why spans captured in one process hold several traces when each trace is a whole run (one root, children
 * under it): an exporter shared by tests that ran at the same time, not a context that was lost.
 */
export const CONCURRENT_RUNS_HINT = [
  'Each of these traces is a whole run (one root with its spans under it): one exporter shared by tests that run at the same time (test.concurrent, describe.concurrent) collects every run.',
  "Capture each test's own run instead: const run = await captureTrace(() => agent(…)); await expect(run).toHaveNoFailingSpans() (import { captureTrace } from 'agent-verdict').",
  'Or pick one with { traceId }, or call exporter.reset() between runs that do not overlap.',
].join('\n')

/** Most traces are whole runs (several spans under one root): several runs, not one run split by a lost context. */
function looksLikeSeveralRuns(traces: Trace[]): boolean {
  let whole = 0
  for (const t of traces) if (t.size > 1 && t.roots.length === 1) whole++
  return whole >= 2 && whole * 2 >= traces.length
}

/**
 * The one trace of an input: the one named by `opts.traceId`, or the only one; otherwise a
 * TraceFormatError listing the trace ids found (with {@link CONCURRENT_RUNS_HINT} or
 * {@link CONTEXT_PROPAGATION_HINT} when `captured`: the traces come from SDK spans captured in-process).
 *
 * @example
 * const trace = pickTrace(parseTraces(text, 'export.jsonl'), { traceId: '5b8efff7…' }, 'export.jsonl')
 */
export function pickTrace(traces: Trace[], opts: TraceOptions = {}, source?: string, captured = false): Trace {
  if (traces.length === 0)
    throw new TraceFormatError('no spans found: the input holds no spans; check that the exporter ran and flushed', {
      file: source,
      jsonPath: '$',
    })
  // The usual case, one trace and no id asked for, needs no list of ids.
  if (traces.length === 1 && opts.traceId === undefined) return traces[0]
  const ids = traces.map((t) => t.traceId)
  const list = ids.length > 10 ? `${ids.slice(0, 10).join(', ')}, …` : ids.join(', ')
  if (opts.traceId !== undefined) {
    const wanted = opts.traceId.toLowerCase()
    const found = traces.find((t) => t.traceId.toLowerCase() === wanted)
    if (!found)
      throw new TraceFormatError(`no trace with id ${opts.traceId}: found ${ids.length} trace(s): ${list}`, {
        file: source,
      })
    if (traces.length > 1)
      found.warnings.push({
        code: 'multiple-traces',
        message: `the input holds ${traces.length} traces (${list}); returned ${found.traceId}`,
      })
    return found
  }
  if (traces.length > 1) {
    const hint = captured ? `\n${looksLikeSeveralRuns(traces) ? CONCURRENT_RUNS_HINT : CONTEXT_PROPAGATION_HINT}` : ''
    throw new TraceFormatError(
      `holds ${traces.length} traces (${list}); pass { traceId } to pick one, or use loadTraceFile() / parseTraces() to get them all${hint}`,
      { file: source },
    )
  }
  return traces[0]
}

/**
 * Parses one trace from a JSON/JSONL text, synchronously (the CLI and the benchmark use it).
 *
 * @example
 * const trace = parseTrace(readFileSync('traces/run.json', 'utf8'), 'traces/run.json')
 * trace.spansByKind('llm').length
 */
export function parseTrace(text: string, source?: string, opts: TraceOptions = {}): Trace {
  return pickTrace(parseTraces(text, source), opts, source)
}
