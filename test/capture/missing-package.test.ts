// An optional OpenTelemetry package that is not installed: captureTrace names it and the install command, and
// runs nothing.
import { expect, test, vi } from 'vitest'
import { captureTrace } from '../../src/capture/capture-trace'
import { TraceCaptureError } from '../../src/capture/errors'

// Neither trace SDK: OTel JS 3's `@opentelemetry/sdk-trace` nor 2.x's `@opentelemetry/sdk-trace-base`.
vi.mock('@opentelemetry/sdk-trace', () => {
  throw new Error("Cannot find package '@opentelemetry/sdk-trace'")
})
vi.mock('@opentelemetry/sdk-trace-base', () => {
  throw new Error("Cannot find package '@opentelemetry/sdk-trace-base'")
})

test('no trace SDK: a TraceCaptureError naming both SDKs, the install command for each OTel major, and each cause; fn is not run', async () => {
  let ran = false
  const error = await captureTrace(() => {
    ran = true
  }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TraceCaptureError)
  expect((error as Error).message).toBe(
    'captureTrace needs @opentelemetry/sdk-trace or @opentelemetry/sdk-trace-base (to record spans when no tracer provider is registered), which is not installed: ' +
      'npm install -D @opentelemetry/api @opentelemetry/sdk-trace @opentelemetry/context-async-hooks ' +
      '(on Node 20: npm install -D @opentelemetry/api @opentelemetry/sdk-trace-base@2 @opentelemetry/context-async-hooks@2)',
  )
  // Each import's own error is kept (Vitest wraps a mock factory's throw: its message is the wrapper's cause).
  const causes = ((error as Error).cause as AggregateError).errors.map((e: Error) => (e.cause as Error).message)
  expect(causes).toEqual([
    expect.stringContaining("Cannot find package '@opentelemetry/sdk-trace'"),
    expect.stringContaining("Cannot find package '@opentelemetry/sdk-trace-base'"),
  ])
  expect(ran).toBe(false)
})
