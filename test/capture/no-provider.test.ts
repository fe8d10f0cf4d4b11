// captureTrace with no tracer provider registered: it installs one (and a context manager) on first use.
import { trace } from '@opentelemetry/api'
import { expect, test } from 'vitest'
import { concurrentCases } from './concurrent-cases'

test('no provider is registered before the first capture (this file runs in a process of its own)', () => {
  expect(trace.getTracerProvider().constructor.name).toBe('ProxyTracerProvider')
  expect((trace.getTracerProvider() as unknown as { getDelegate(): object }).getDelegate().constructor.name).toBe(
    'NoopTracerProvider',
  )
})

concurrentCases('no provider registered: 8 concurrent captures')
