import { onReplayedCall } from '../recording/replay-timing'
import { TraceCaptureError } from './errors'
import { agentVerdictSpanProcessor, captureRegistry } from './registry'

type OtelApi = typeof import('@opentelemetry/api')

/**
 * Everything captureTrace needs installs with one command (the SDK parts only when you have no provider): OTel JS 3
 * (`@opentelemetry/sdk-trace`, Node 22.15+), or on Node 20 the 2.x SDK.
 */
export const CAPTURE_INSTALL =
  'npm install -D @opentelemetry/api @opentelemetry/sdk-trace @opentelemetry/context-async-hooks ' +
  '(on Node 20: npm install -D @opentelemetry/api @opentelemetry/sdk-trace-base@2 @opentelemetry/context-async-hooks@2)'

// The API's own registry of globals (one per major version): set when a provider or context manager is registered.
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1')

function registeredGlobals(): { trace?: unknown; context?: unknown } {
  return (globalThis as { [OTEL_GLOBALS]?: { trace?: unknown; context?: unknown } })[OTEL_GLOBALS] ?? {}
}

/** What captureTrace installs when no provider is registered: a provider class taking `spanProcessors`. */
type ProviderClass = new (config: { spanProcessors: ReturnType<typeof agentVerdictSpanProcessor>[] }) => object

/**
 * The tracer-provider SDKs captureTrace can install, newest first: OTel JS 3 renamed the trace SDK to
 * `@opentelemetry/sdk-trace` (its `TracerProvider`; there is no `BasicTracerProvider` and no 3.x sdk-trace-base),
 * 2.x has `BasicTracerProvider` in `@opentelemetry/sdk-trace-base`. A project has the one its OTel major brings.
 */
const PROVIDER_SDKS: ReadonlyArray<{ name: string; load: () => Promise<ProviderClass> }> = [
  { name: '@opentelemetry/sdk-trace', load: async () => (await import('@opentelemetry/sdk-trace')).TracerProvider },
  {
    name: '@opentelemetry/sdk-trace-base',
    load: async () => (await import('@opentelemetry/sdk-trace-base')).BasicTracerProvider,
  },
]

/** The first installed provider SDK of PROVIDER_SDKS; if none loads, an error naming them all, with each cause. */
async function providerClass(): Promise<ProviderClass> {
  const causes: unknown[] = []
  for (const sdk of PROVIDER_SDKS) {
    try {
      return await sdk.load()
    } catch (error) {
      causes.push(error)
    }
  }
  throw new TraceCaptureError(
    `captureTrace needs ${PROVIDER_SDKS.map((s) => s.name).join(' or ')} (to record spans when no tracer provider is registered), which is not installed: ${CAPTURE_INSTALL}`,
    { cause: new AggregateError(causes, 'no OpenTelemetry trace SDK could be imported') },
  )
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
 * must hold agentVerdictSpanProcessor()), or else a provider installed here (OTel 3's TracerProvider or 2.x's
 * BasicTracerProvider, whichever the project has); plus an async-hooks
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
    const Provider = await providerClass()
    // Only spans of a running capture are kept (by the processor); every other span is dropped when it ends.
    api.trace.setGlobalTracerProvider(
      new Provider({ spanProcessors: [agentVerdictSpanProcessor()] }) as Parameters<
        OtelApi['trace']['setGlobalTracerProvider']
      >[0],
    )
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
