// captureTrace with the user's own provider (NodeTracerProvider, as NodeSDK sets up) and the documented
// span processor: captures still get only their own spans, and the user's exporter still gets every span.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, expect } from 'vitest'
import { captureRegistry } from '../../src/capture/registry'
import { agentVerdictSpanProcessor } from '../../src/index'
import { CASES, concurrentCases } from './concurrent-cases'

const exporter = new InMemorySpanExporter()
new NodeTracerProvider({
  spanProcessors: [agentVerdictSpanProcessor(), new SimpleSpanProcessor(exporter)],
}).register()

afterAll(() => {
  // The user's pipeline is untouched: all runs' spans reached their exporter, and no provider was installed.
  expect(exporter.getFinishedSpans()).toHaveLength(CASES * 4)
  expect(captureRegistry().installedProvider).toBe(false)
})

concurrentCases("the user's NodeTracerProvider with agentVerdictSpanProcessor(): 8 concurrent captures")
