// A registered provider without agentVerdictSpanProcessor() would capture nothing: captureTrace says what to add.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { expect, test } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { TraceCaptureError } from '../../src/capture/errors'
import { supportAgent } from './agent'

test("the user's provider without the processor: a TraceCaptureError naming agentVerdictSpanProcessor, fn not run", async () => {
  new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }).register()
  let ran = false
  const error = await captureTrace(() => {
    ran = true
    return supportAgent(0)
  }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TraceCaptureError)
  expect((error as Error).message).toMatch(
    /a tracer provider is registered, but without agentVerdictSpanProcessor\(\).*spanProcessors: \[agentVerdictSpanProcessor\(\), …\]/,
  )
  expect(ran).toBe(false)
})
