import type { CapturableSpan, Capture } from './capture'

/**
 * What every copy of agent-verdict in the process shares: the captures running now (by trace id) and whether a
 * span processor exists. On globalThis, like OpenTelemetry's own globals, so a processor created by the CJS build
 * in a setup file routes spans to a capture started by the ESM build in a test file.
 */
export interface CaptureRegistry {
  readonly captures: Map<string, Capture>
  /** agentVerdictSpanProcessor() instances created, ours included. */
  processors: number
  /** True once captureTrace installed its own provider (none was registered). */
  installedProvider: boolean
  /** The one-time set-up (provider, context manager, replay listener), shared by concurrent first calls. */
  ready?: Promise<unknown>
}

const KEY = Symbol.for('agent-verdict.trace-capture')

/** The process-wide registry, created on first use. */
export function captureRegistry(): CaptureRegistry {
  const holder = globalThis as { [KEY]?: CaptureRegistry }
  holder[KEY] ??= { captures: new Map(), processors: 0, installedProvider: false }
  return holder[KEY]
}

/**
 * The span processor `captureTrace` reads from, with the method shapes of the OpenTelemetry SDK's
 * `SpanProcessor` (sdk-trace-base 1.x and 2.x, sdk-trace 3.x), so it goes into any provider's processor list.
 */
export interface AgentVerdictSpanProcessor {
  onStart(span: CapturableSpan, parentContext: unknown): void
  onEnd(span: CapturableSpan): void
  forceFlush(): Promise<void>
  shutdown(): Promise<void>
}

/**
 * A span processor for your own tracer provider: it hands each span that a running `captureTrace` started to
 * that capture (by trace id) and ignores every other span, so it costs nothing outside captures and your
 * exporters keep working as before. Needed only when you register a provider yourself (NodeSDK,
 * NodeTracerProvider); with none registered, `captureTrace` installs one with this processor.
 *
 * @example
 * import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
 * import { agentVerdictSpanProcessor } from 'agent-verdict'
 *
 * new NodeTracerProvider({ spanProcessors: [agentVerdictSpanProcessor(), myExportingProcessor] }).register()
 */
export function agentVerdictSpanProcessor(): AgentVerdictSpanProcessor {
  const registry = captureRegistry()
  registry.processors++
  return {
    onStart(span) {
      registry.captures.get(span.spanContext().traceId)?.start(span)
    },
    onEnd(span) {
      registry.captures.get(span.spanContext().traceId)?.end(span)
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  }
}
