// A project on OpenTelemetry JS 3 has `@opentelemetry/sdk-trace` (TracerProvider) and no sdk-trace-base (there is
// no 3.x of it, and no BasicTracerProvider): with no provider registered, captureTrace installs OTel 3's provider.
import { trace } from '@opentelemetry/api'
import { TracerProvider } from '@opentelemetry/sdk-trace'
import { expect, test, vi } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { supportAgent } from './agent'

vi.mock('@opentelemetry/sdk-trace-base', () => {
  throw new Error("Cannot find package '@opentelemetry/sdk-trace-base'")
})

test('sdk-trace only: the installed provider is its TracerProvider, and the capture gets the run’s spans', async () => {
  const run = await captureTrace(() => supportAgent(1))
  expect(run.trace.spans.length).toBeGreaterThan(0)
  expect(run.trace.spans.every((s) => s.attributes.case === 1)).toBe(true)
  const delegate = (trace.getTracerProvider() as unknown as { getDelegate(): object }).getDelegate()
  expect(delegate).toBeInstanceOf(TracerProvider)
})
