// OTLP/HTTP protobuf bodies: decoding an ExportTraceServiceRequest into the plain-object shape
// OTLP/JSON also has (camelCase field names, int64 as decimal strings), and encoding the
// ExportTraceServiceResponse. The message definitions are in otlpTrace.proto.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH } from '../../../platform/json/jsonNesting.ts';

const PACKAGE = 'opentelemetry.proto.otlp_trace_subset';
const root = protobuf.parse(readFileSync(new URL('./otlpTrace.proto', import.meta.url), 'utf8')).root;
const ExportTraceServiceRequest = root.lookupType(`${PACKAGE}.ExportTraceServiceRequest`);
const ExportTraceServiceResponse = root.lookupType(`${PACKAGE}.ExportTraceServiceResponse`);

// protobufjs refuses messages nested deeper than protoc's default of 100, which would cap
// attribute values at about 47 levels. A key-value list takes three message levels per level of
// value (AnyValue, KeyValueList, KeyValue) under six of envelope: this lets values nest up to
// MAX_JSON_DEPTH, the limit of all JSON taken in, which otlpSpans.ts then holds them to.
protobuf.util.recursionLimit = Math.max(protobuf.util.recursionLimit, 3 * MAX_JSON_DEPTH + 16);
protobuf.Reader.recursionLimit = protobuf.util.recursionLimit;

/** Ids and bytes values stay Uint8Array; 64-bit integers become decimal strings, as in OTLP/JSON. */
export function decodeExportRequest(body: Uint8Array): Record<string, unknown> {
  try {
    return ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, arrays: true });
  } catch (err) {
    if ((err as Error).message === 'max depth exceeded')
      throw errors.jsonTooDeep('an attribute value of the request', MAX_JSON_DEPTH);
    throw errors.badRequest(`the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(err as Error).message}`);
  }
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export function encodeExportResponse(partial: PartialSuccess | null): Uint8Array {
  const message = partial
    ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } }
    : {};
  return ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(message)).finish();
}

/** The same response in OTLP/JSON (int64 as a decimal string). */
export function exportResponseJson(partial: PartialSuccess | null): Record<string, unknown> {
  return partial
    ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }
    : {};
}
