// An optional OpenTelemetry package that is not installed: captureTrace names it and the install command, and
// runs nothing.
import { expect, test, vi } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { TraceCaptureError } from '../../src/capture/errors'

vi.mock('@opentelemetry/sdk-trace-base', () => {
  throw new Error("Cannot find package '@opentelemetry/sdk-trace-base'")
})

test('the SDK is missing: a TraceCaptureError with the install command; fn is not run', async () => {
  let ran = false
  const error = await captureTrace(() => {
    ran = true
  }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TraceCaptureError)
  expect((error as Error).message).toBe(
    'captureTrace needs @opentelemetry/sdk-trace-base (to record spans when no tracer provider is registered), which is not installed: npm install -D @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks',
  )
  expect(ran).toBe(false)
})
