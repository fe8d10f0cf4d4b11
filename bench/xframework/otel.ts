// One in-memory OpenTelemetry tracer provider per run, serialized as the OTLP/HTTP JSON exporter sends it, with
// sequential ids so regenerated fixtures only change where a run changed.
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { SequentialIds } from '../../test/helpers/otel'

export interface RunRecorder {
  provider: BasicTracerProvider
  /** The finished spans as OTLP JSON. */
  otlpJson(): string
}

export function runRecorder(serviceName: string, seed: number): RunRecorder {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    idGenerator: new SequentialIds(seed),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  return {
    provider,
    otlpJson: () => new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())),
  }
}
