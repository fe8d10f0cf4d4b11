// A project where `@opentelemetry/sdk-trace` cannot be imported but 2.x's sdk-trace-base can (pnpm keeps the
// former out of reach when it is only sdk-trace-base's own dependency): captureTrace installs BasicTracerProvider.
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { expect, test, vi } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { supportAgent } from './agent'

// Only imports Vitest transforms are mocked (captureTrace's): sdk-trace-base, loaded by Node, still gets its own.
vi.mock('@opentelemetry/sdk-trace', () => {
  throw new Error("Cannot find package '@opentelemetry/sdk-trace'")
})

test('sdk-trace-base only: the installed provider is its BasicTracerProvider, and the capture gets the run’s spans', async () => {
  const run = await captureTrace(() => supportAgent(2))
  expect(run.trace.spans.length).toBeGreaterThan(0)
  const delegate = (trace.getTracerProvider() as unknown as { getDelegate(): object }).getDelegate()
  expect(delegate).toBeInstanceOf(BasicTracerProvider)
})
