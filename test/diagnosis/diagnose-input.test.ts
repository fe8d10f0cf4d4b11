// diagnose() takes a live capture as users hold it (fromReadableSpans output, SDK spans, the exporter),
// and spans of one run split over several traces get a hint about OTel context propagation.
import '../../matchers/vitest'
import { context, trace as otel, type Tracer } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { describe, expect, test } from 'vitest'
import { resolveTrace } from '../../matchers/trace-received'
import { diagnose } from '../../src/diagnosis/diagnose'
import { TraceFormatError } from '../../src/trace/errors'
import { loadTrace } from '../../src/trace/load'
import { fromReadableSpans } from '../../src/trace/readers/readable-spans'
import { Trace } from '../../src/trace/trace'

/** A small agent: a chat, a failing tool call (HTTP 404, which a detector names), a closing chat. */
function agent(tracer: Tracer, propagate: boolean): void {
  const root = tracer.startSpan('invoke_agent support', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
  })
  // Without propagation each child starts from the empty active context: a new trace of its own.
  const parent = propagate ? otel.setSpan(context.active(), root) : context.active()
  const chat = tracer.startSpan(
    'chat gpt-4o-mini',
    { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' } },
    parent,
  )
  chat.end()
  const tool = tracer.startSpan(
    'execute_tool lookup_order',
    {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_order',
        'http.response.status_code': 404,
      },
    },
    parent,
  )
  tool.setStatus({ code: 2, message: 'HTTP 404 Not Found: no order A-1042' })
  tool.end()
  root.end()
}

function capture(propagate: boolean): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  agent(provider.getTracer('support-agent'), propagate)
  return exporter
}

const summary = (d: Awaited<ReturnType<typeof diagnose>>) => ({
  verdict: d.verdict,
  failing: d.failingLeaves.map((l) => l.spanId),
  spans: d.spans.length,
})

describe('diagnose() input', () => {
  test('fromReadableSpans() output, the SDK spans and the exporter diagnose like the Trace built from them', async () => {
    const exporter = capture(true)
    const expected = summary(await diagnose(new Trace(fromReadableSpans(exporter.getFinishedSpans()))))
    // The capture is not trivially clean: the 404 tool span fails, so equal results mean the same spans were read.
    expect(expected.failing).toHaveLength(1)
    expect(expected.spans).toBe(3)
    expect(summary(await diagnose(fromReadableSpans(exporter.getFinishedSpans())))).toEqual(expected)
    expect(summary(await diagnose(exporter.getFinishedSpans()))).toEqual(expected)
    expect(summary(await diagnose(exporter))).toEqual(expected)
  })

  test('anything else is a TypeError naming what to pass, not a raw property read', async () => {
    for (const wrong of [undefined, 'traces/run.json', { spans: 3 }, [{ name: 'not a span' }]] as unknown[]) {
      const error = await diagnose(wrong as Trace).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(
        /^diagnose: .* — pass a Trace \(await loadTrace\(path\)\), the spans of one run \(fromReadableSpans\(exporter\.getFinishedSpans\(\)\) or trace\.spans\), SDK ReadableSpans, or an InMemorySpanExporter$/,
      )
      expect((error as Error).message).not.toContain('Cannot read properties')
    }
    const path = await diagnose('traces/run.json' as unknown as Trace).catch((e: Error) => e.message)
    expect(path).toContain('load it first with await loadTrace(path)')
  })

  test('an empty capture says nothing was recorded', async () => {
    await expect(diagnose(new InMemorySpanExporter())).rejects.toThrow(
      new TraceFormatError(
        'no spans to diagnose: nothing was recorded — check that the exporter was attached and the spans ended before diagnose()',
      ),
    )
  })
})

describe('one run split over several traces (context not propagated)', () => {
  const HINT =
    /holds 3 traces \([0-9a-f]{32}, [0-9a-f]{32}, [0-9a-f]{32}\); pass \{ traceId \} to pick one.*\nIf these spans are one agent run, its spans landed in different traces: the agent did not propagate the OTel context\.\nStart child spans inside their parent's context — tracer\.startActiveSpan\(name, fn\), or context\.with\(trace\.setSpan\(context\.active\(\), parent\), fn\) —\nand register an async-hooks context manager .*AsyncLocalStorageContextManager.*\nIf they are several runs \(tests running at the same time share the exporter\), capture each test's run with captureTrace\(fn\) from agent-verdict, or pick one with \{ traceId \}\./s

  test('the real SDK puts each unparented span in its own trace; propagating the context gives one', () => {
    expect(
      new Set(
        capture(false)
          .getFinishedSpans()
          .map((s) => s.spanContext().traceId),
      ).size,
    ).toBe(3)
    expect(
      new Set(
        capture(true)
          .getFinishedSpans()
          .map((s) => s.spanContext().traceId),
      ).size,
    ).toBe(1)
  })

  test('diagnose, loadTrace and the matchers add the propagation hint for a capture', async () => {
    const exporter = capture(false)
    for (const input of [exporter, exporter.getFinishedSpans(), fromReadableSpans(exporter.getFinishedSpans())]) {
      const error = await diagnose(input).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(TraceFormatError)
      expect((error as Error).message).toMatch(HINT)
    }
    await expect(loadTrace(exporter.getFinishedSpans())).rejects.toThrow(HINT)
    expect(() => resolveTrace(exporter, { name: 'toCallTool', args: 'name' })).toThrow(HINT)
    expect(() => expect(exporter).toStayWithinBudget({ llmCalls: 3 })).toThrow(HINT)
  })

  test('a trace file holding several traces gets no OTel hint: it is an export, not one capture', async () => {
    const spans = fromReadableSpans(capture(false).getFinishedSpans())
    const otlp = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: spans.map((s) => ({
                traceId: s.traceId,
                spanId: s.id,
                name: s.name,
                startTimeUnixNano: String(s.startNs),
                endTimeUnixNano: String(s.endNs),
              })),
            },
          ],
        },
      ],
    }
    const error = await loadTrace(otlp).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(TraceFormatError)
    expect((error as Error).message).toMatch(/holds 3 traces/)
    expect((error as Error).message).not.toContain('propagate')
  })
})
