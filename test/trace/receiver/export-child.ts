// A stand-in for an agent in another process: records 3 runs with the real OTel SDK and exports them with the
// real OTLP exporter named on the command line (`proto` or `json`), configured only by the standard
// OTEL_EXPORTER_OTLP_* environment variables. It also keeps the same spans in an InMemorySpanExporter and
// prints them on stdout as JSON, so the test can compare what the receiver got with what the SDK recorded.
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { agentRun, openInferenceRun } from '../../helpers/otel'

const protocol = process.argv[2]
if (protocol !== 'proto' && protocol !== 'json') throw new Error(`usage: export-child.ts proto|json (got ${protocol})`)

const memory = new InMemorySpanExporter()
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': `child-${protocol}` }),
  spanProcessors: [
    new BatchSpanProcessor(protocol === 'proto' ? new ProtoExporter() : new HttpJsonExporter()),
    new SimpleSpanProcessor(memory),
  ],
})
const tracer = provider.getTracer('export-child', '1.0.0')
agentRun(tracer)
agentRun(tracer, { failure: 429, offsetMs: 5000 })
openInferenceRun(tracer, 10_000)
// forceFlush() resolves once the batch exporter has had its answer (shutdown() would also empty `memory`).
await provider.forceFlush()

const spans = memory.getFinishedSpans().map((s) => ({
  name: s.name,
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parentSpanId: s.parentSpanContext?.spanId,
  startTime: s.startTime,
  endTime: s.endTime,
  status: s.status,
  attributes: s.attributes,
  events: s.events,
}))
process.stdout.write(JSON.stringify(spans))
await provider.shutdown()
