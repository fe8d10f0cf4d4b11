import { randomBytes } from 'node:crypto'
import { tracesFromValue } from '../trace/parse'
import { Trace, type TraceWarning } from '../trace/trace'
import { Capture, type CaptureSnapshot } from './capture'
import { readyOtel } from './otel'
import { captureRegistry } from './registry'

/** What {@link captureTrace} resolves to: `fn`'s result and the trace of its spans only. */
export interface CapturedTrace<T> {
  result: T
  /** The spans `fn` started (and their descendants), one trace. Empty, with a warning, if it started none. */
  trace: Trace
}

/** What {@link captureTrace.settled} resolves to: like `Promise.allSettled`'s entries, plus the trace. */
export type SettledCapture<T> =
  | { status: 'fulfilled'; result: T; trace: Trace }
  | { status: 'rejected'; error: unknown; trace: Trace }

/** Options of {@link captureTrace}. */
export interface CaptureTraceOptions {
  /**
   * How long to wait, after `fn` settles, for spans it started that are still open (a stream still being read,
   * a span ended in a `finally` after the return). Default 200 ms. Spans still open then are kept, ending when
   * the capture ended, and named in a trace warning (code `unfinished-span`).
   */
  settleMs?: number
}

const DEFAULT_SETTLE_MS = 200

/**
 * Runs `fn` in a fresh root OpenTelemetry context and resolves to `{ result, trace }`, where `trace` holds only
 * the spans started inside that call — however many captures run at once (`test.concurrent`,
 * `describe.concurrent`, several Vitest workers). Pass it, or its `.trace`, to any trace matcher.
 *
 * The agent records spans with `@opentelemetry/api` tracers as usual. With no tracer provider registered,
 * the first call installs one (OTel 3's `TracerProvider`, or 2.x's `BasicTracerProvider`, plus an async-hooks
 * context manager if none is registered); with your own provider, add {@link agentVerdictSpanProcessor} to it.
 * If `fn` throws, the promise rejects with that error unchanged; use `captureTrace.settled(fn)` to keep the trace
 * of a failed run.
 * Under agent recordings, a replayed call's span lasts as long as the recorded call did (decision 0035).
 *
 * @example
 * import { captureTrace } from 'agent-verdict'
 *
 * test.concurrent('refund agent', async () => {
 *   const run = await captureTrace(() => supportAgent('Refund order 1042'))
 *   expect(run.result).toContain('refunded')
 *   await expect(run).toHaveNoFailingSpans()
 *   expect(run.trace).toStayWithinBudget({ llmCalls: 5, latencyMs: 30_000 })
 * })
 */
export async function captureTrace<T>(
  fn: () => T | PromiseLike<T>,
  opts: CaptureTraceOptions = {},
): Promise<CapturedTrace<T>> {
  const run = await settled(fn, opts)
  if (run.status === 'rejected') throw run.error
  return { result: run.result, trace: run.trace }
}

/**
 * Like {@link captureTrace}, but never rejects for `fn`'s error: resolves to `{ status: 'rejected', error, trace }`,
 * so a failing run's spans can still be asserted on (which call failed, and why). Rejects only when the capture
 * itself cannot start (a `TraceCaptureError`: an OpenTelemetry package to install, a processor to add) or its
 * spans cannot be read (a `TraceFormatError`, e.g. an attribute nested deeper than the reader's bound).
 *
 * @example
 * const run = await captureTrace.settled(() => agent.run('Cancel order 7'))
 * if (run.status === 'rejected') await expect(run.trace).toHaveNoFailingSpans({ judge: false })
 */
async function settled<T>(fn: () => T | PromiseLike<T>, opts: CaptureTraceOptions = {}): Promise<SettledCapture<T>> {
  // A run already started (a promise) is outside any capture: its spans cannot be told from other tests'.
  if (typeof fn !== 'function')
    throw new TypeError(
      `captureTrace(fn): fn must be a function that starts the run, e.g. captureTrace(() => agent.run(question)) — got ${
        fn !== null && typeof fn === 'object' && typeof (fn as { then?: unknown }).then === 'function'
          ? 'a promise: the run had already started outside the capture'
          : typeof fn
      }`,
    )
  const api = await readyOtel()
  const registry = captureRegistry()
  const traceId = randomBytes(16).toString('hex')
  const rootSpanId = randomBytes(8).toString('hex')
  const capture = new Capture(traceId, rootSpanId)
  registry.captures.set(traceId, capture)
  // A fresh root: ROOT_CONTEXT drops whatever context the caller ran in (another capture, a test's own span);
  // the sampled remote parent makes parent-based samplers record the agent's spans.
  const root = api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId,
    spanId: rootSpanId,
    traceFlags: api.TraceFlags.SAMPLED,
    isRemote: true,
  })
  let outcome: { status: 'fulfilled'; result: T } | { status: 'rejected'; error: unknown }
  try {
    outcome = { status: 'fulfilled', result: await api.context.with(root, fn) }
  } catch (error) {
    outcome = { status: 'rejected', error }
  }
  try {
    await capture.settle(opts.settleMs ?? DEFAULT_SETTLE_MS)
  } finally {
    registry.captures.delete(traceId)
  }
  const trace = toTrace(capture.snapshot(BigInt(Date.now()) * 1_000_000n), traceId, registry.installedProvider)
  return { ...outcome, trace }
}

/**
 * {@link captureTrace} that keeps a failed run's trace: resolves to `{ status, result | error, trace }`.
 *
 * @example
 * const run = await captureTrace.settled(() => agent.run('Cancel order 7'))
 * if (run.status === 'rejected') console.log(run.error, run.trace.spans.length)
 */
captureTrace.settled = settled

function toTrace(snapshot: CaptureSnapshot, traceId: string, installedProvider: boolean): Trace {
  const warnings: TraceWarning[] = snapshot.unfinished.map(({ id, name }) => ({
    code: 'unfinished-span',
    spanId: id,
    message: `span ${name} (id ${id}) was still open when captureTrace ended: kept, ending then; end it before fn returns (or await the stream it wraps), or raise settleMs`,
  }))
  if (snapshot.spans.length === 0) {
    warnings.push({ code: 'other', message: noSpanMessage(installedProvider) })
    return new Trace([], { traceId, warnings })
  }
  // The reader that loadTrace uses for SDK spans: the same conventions and warnings (missing input/output, …).
  const [trace] = tracesFromValue(snapshot.spans)
  trace.warnings.push(...warnings)
  return trace
}

/** Why a capture can come back empty, most likely cause first. */
export function noSpanMessage(installedProvider: boolean): string {
  return [
    'captureTrace recorded no span: the function started none inside the capture.',
    installedProvider
      ? 'Does the agent record spans with @opentelemetry/api (trace.getTracer(…)), and start them inside fn rather than before it?'
      : 'Does your tracer provider hold agentVerdictSpanProcessor(), with a parent-based sampler (the capture’s root is sampled)? Is the agent traced with @opentelemetry/api tracers, and started inside fn?',
    'Spans started with { root: true } or in context.with(ROOT_CONTEXT, …) leave the capture.',
  ].join(' ')
}
