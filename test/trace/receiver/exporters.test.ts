import '../../../matchers/vitest'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { startTraceReceiver, type TraceReceiver } from '../../../src/trace/receiver/receiver'
import { spanToJSON } from '../../../src/trace/span-json'
import { type DumpedSpan, inMemoryTraces } from '../../helpers/dumped-spans'

const CHILD = fileURLToPath(new URL('./export-child.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

let receiver: TraceReceiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

describe('the real OTLP exporters of another process → startTraceReceiver', () => {
  it.each([
    ['@opentelemetry/exporter-trace-otlp-proto', 'proto', 'none'],
    ['@opentelemetry/exporter-trace-otlp-proto, gzip', 'proto', 'gzip'],
    ['@opentelemetry/exporter-trace-otlp-http (JSON), gzip', 'json', 'gzip'],
  ])(
    '%s: 3 complete traces equal to what InMemorySpanExporter got',
    async (_name, protocol, compression) => {
      receiver = await startTraceReceiver()
      const env: NodeJS.ProcessEnv = { ...process.env, ...receiver.env, OTEL_EXPORTER_OTLP_COMPRESSION: compression }
      // The exporter reads the endpoint from the environment, as an agent in any language would.
      delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      const child = promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, protocol], {
        cwd: ROOT,
        env,
        timeout: 60_000,
      })
      const traces = await Promise.all([1, 2, 3].map(() => receiver!.trace({ timeout: 60_000 })))
      const { stdout } = await child
      const expected = inMemoryTraces(JSON.parse(stdout) as DumpedSpan[])
      expect(expected.size).toBe(3)
      expect(new Set(traces.map((t) => t.traceId))).toEqual(new Set(expected.keys()))
      for (const trace of traces) {
        const want = expected.get(trace.traceId)!
        // Depth-first order, parent ids and roots: the same tree; spanToJSON: ids, attributes, events, status, ns.
        expect(trace.spans.map(spanToJSON)).toEqual(want.spans.map(spanToJSON))
        expect(trace.roots.map((s) => s.id)).toEqual(want.roots.map((s) => s.id))
        expect(trace.warnings).toEqual(want.warnings)
      }
      expect(
        traces
          .flatMap((t) => t.spans)
          .some((s) => s.status === 'error' && s.events.some((e) => e.name === 'exception')),
      ).toBe(true)
      expect(receiver.stats.refused).toBe(0)
      if (compression === 'gzip') expect(receiver.stats.gzipped).toBe(receiver.stats.accepted)
      else expect(receiver.stats.gzipped).toBe(0)
    },
    90_000,
  )

  it('a received trace goes straight into the trace matchers (detectors only, no judge)', async () => {
    receiver = await startTraceReceiver()
    const child = promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, 'proto'], {
      cwd: ROOT,
      env: { ...process.env, ...receiver.env },
      timeout: 60_000,
    })
    const failing = receiver.trace({ where: (t) => t.spans.some((s) => s.status === 'error'), timeout: 60_000 })
    const agent = receiver.trace({ where: { rootName: 'invoke_agent support' }, timeout: 60_000 })
    const [bad, good] = await Promise.all([failing, agent])
    await child
    await expect(good).toHaveNoFailingSpans({ judge: false })
    const error = await expect(bad)
      .toHaveNoFailingSpans({ judge: false })
      .then(
        () => undefined,
        (e: Error) => e,
      )
    expect(error?.message).toContain('Rate Limiting')
    expect(error?.message).toContain('execute_tool lookup_order')
  }, 90_000)
})
