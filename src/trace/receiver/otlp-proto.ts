// OTLP/HTTP protobuf bodies → the OTLP JSON shape the JSON reader takes. protobufjs does the decoding; the
// schema below is written from the OTLP specification (opentelemetry-proto v1: collector/trace/v1,
// trace/v1, common/v1, resource/v1) and google.rpc.Status, because no npm package ships those `.proto`
// files. Field numbers and wire types are what matter; see docs/decisions/0025-otlp-receiver.md.
import protobuf from 'protobufjs'

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }

message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
  fixed32 flags = 16;
}
message Event {
  fixed64 time_unix_nano = 1;
  string name = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Link {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  repeated KeyValue attributes = 4;
  uint32 dropped_attributes_count = 5;
  fixed32 flags = 6;
}
message Status {
  string message = 2;
  int32 code = 3;
}

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}

message RpcStatus {
  int32 code = 1;
  string message = 2;
}
`

interface OtlpTypes {
  request: protobuf.Type
  response: protobuf.Type
  status: protobuf.Type
}

let types: OtlpTypes | undefined

/** Parsed once, on the first protobuf body (a JSON-only receiver never pays for it). */
function otlpTypes(): OtlpTypes {
  if (!types) {
    const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root
    types = {
      request: root.lookupType('otlp.ExportTraceServiceRequest'),
      response: root.lookupType('otlp.ExportTraceServiceResponse'),
      status: root.lookupType('otlp.RpcStatus'),
    }
  }
  return types
}

// Enums as numbers (span kind, status code), 64-bit integers as decimal strings, bytes as base64 (ids are
// turned into hex below): the OTLP JSON encoding, except for the ids.
const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: Number,
  bytes: String,
  defaults: false,
  arrays: false,
}

type Json = Record<string, unknown>

/**
 * Decodes an OTLP/HTTP protobuf `ExportTraceServiceRequest` into the OTLP JSON shape (lowerCamelCase keys,
 * hex ids, int64 and fixed64 as decimal strings, `bytesValue` as base64). Throws (a protobufjs error) on
 * bytes that are not such a message.
 *
 * @example
 * const doc = decodeTraceRequest(body) // { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8e…', … }] }] }] }
 * const traces = tracesFromValue(doc)
 */
export function decodeTraceRequest(body: Uint8Array): Json {
  const { request } = otlpTypes()
  const doc = request.toObject(request.decode(body), TO_OBJECT) as Json
  hexIds(doc)
  return doc
}

const ID_KEYS = ['traceId', 'spanId', 'parentSpanId'] as const

/** Rewrites the base64 ids of every span and link as lowercase hex, in place (OTLP JSON writes ids as hex). */
function hexIds(doc: Json): void {
  for (const rs of (doc.resourceSpans as Json[] | undefined) ?? []) {
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      for (const span of (ss.spans as Json[] | undefined) ?? []) {
        toHex(span)
        for (const link of (span.links as Json[] | undefined) ?? []) toHex(link)
      }
    }
  }
}

function toHex(obj: Json): void {
  for (const key of ID_KEYS) {
    const v = obj[key]
    if (typeof v === 'string') obj[key] = Buffer.from(v, 'base64').toString('hex')
  }
}

/**
 * An `ExportTraceServiceResponse` as protobuf bytes: empty on full success, with `partial_success` when
 * spans were rejected.
 *
 * @example
 * res.end(encodeTraceResponse()) // 0 bytes: everything accepted
 */
export function encodeTraceResponse(partial?: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  const { response } = otlpTypes()
  const message = partial
    ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } }
    : {}
  return response.encode(response.create(message)).finish()
}

/**
 * A `google.rpc.Status` as protobuf bytes: the body OTLP/HTTP sends with a 4xx/5xx to a protobuf client.
 *
 * @example
 * res.writeHead(400, { 'content-type': 'application/x-protobuf' }).end(encodeRpcStatus(3, 'not an ExportTraceServiceRequest'))
 */
export function encodeRpcStatus(code: number, message: string): Uint8Array {
  const { status } = otlpTypes()
  return status.encode(status.create({ code, message })).finish()
}

/** Decodes a `google.rpc.Status` (for tests and clients of the receiver). */
export function decodeRpcStatus(body: Uint8Array): { code: number; message: string } {
  const { status } = otlpTypes()
  const o = status.toObject(status.decode(body), { defaults: true }) as { code: number; message: string }
  return { code: o.code, message: o.message }
}
