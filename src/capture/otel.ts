import { onReplayedCall } from '../recording/replay-timing'
import { TraceCaptureError } from './errors'
import { agentVerdictSpanProcessor, captureRegistry } from './registry'

type OtelApi = typeof import('@opentelemetry/api')

/** Everything captureTrace needs installs with one command (the SDK parts only when you have no provider). */
export const CAPTURE_INSTALL =
  'npm install -D @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks'

// The API's own registry of globals (one per major version): set when a provider or context manager is registered.
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1')

function registeredGlobals(): { trace?: unknown; context?: unknown } {
  return (globalThis as { [OTEL_GLOBALS]?: { trace?: unknown; context?: unknown } })[OTEL_GLOBALS] ?? {}
}

async function load<T>(name: string, why: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer()
  } catch (error) {
    throw new TraceCaptureError(`captureTrace needs ${name} (${why}), which is not installed: ${CAPTURE_INSTALL}`, {
      cause: error,
    })
  }
}

/**
 * The OpenTelemetry API, with a way for the agent's spans to reach captureTrace: the user's provider (which
 * must hold agentVerdictSpanProcessor()), or else a BasicTracerProvider installed here; plus an async-hooks
 * context manager when none is registered, without which the context is lost at the first `await`. Once per
 * process; concurrent first calls share it.
 */
export function readyOtel(): Promise<OtelApi> {
  const registry = captureRegistry()
  registry.ready ??= setUp().catch((error: unknown) => {
    registry.ready = undefined // a later call, after `npm install`, tries again
    throw error
  })
  return registry.ready as Promise<OtelApi>
}

async function setUp(): Promise<OtelApi> {
  const api = await load(
    '@opentelemetry/api',
    'the tracer API your agent records spans with',
    () => import('@opentelemetry/api'),
  )
  const registry = captureRegistry()
  if (!registeredGlobals().context) {
    const { AsyncLocalStorageContextManager } = await load(
      '@opentelemetry/context-async-hooks',
      'to keep each capture’s context across `await` when no context manager is registered',
      () => import('@opentelemetry/context-async-hooks'),
    )
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  }
  if (!registeredGlobals().trace) {
    const { BasicTracerProvider } = await load(
      '@opentelemetry/sdk-trace-base',
      'to record spans when no tracer provider is registered',
      () => import('@opentelemetry/sdk-trace-base'),
    )
    // Only spans of a running capture are kept (by the processor); every other span is dropped when it ends.
    api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [agentVerdictSpanProcessor()] }))
    registry.installedProvider = true
  } else if (registry.processors === 0) {
    throw new TraceCaptureError(
      'captureTrace: a tracer provider is registered, but without agentVerdictSpanProcessor(), so no span would reach the capture. ' +
        "Add it to your provider's span processors, e.g. new NodeTracerProvider({ spanProcessors: [agentVerdictSpanProcessor(), …] }) " +
        "or new NodeSDK({ spanProcessors: [agentVerdictSpanProcessor(), …] }) (import { agentVerdictSpanProcessor } from 'agent-verdict'), " +
        'before the first captureTrace.',
    )
  }
  onReplayedCall(({ recordedMs }) => {
    const active = api.trace.getActiveSpan()
    if (active) registry.captures.get(active.spanContext().traceId)?.noteReplay(recordedMs)
  })
  return api
}
