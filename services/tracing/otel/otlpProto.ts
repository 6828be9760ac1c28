// OTLP/HTTP protobuf bodies: decoding an ExportTraceServiceRequest into the plain-object shape
// OTLP/JSON also has (camelCase field names, int64 as decimal strings), and encoding the
// ExportTraceServiceResponse. The message definitions are in otlpTrace.proto.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { errors } from '../../common/errors.ts';

const PACKAGE = 'opentelemetry.proto.otlp_trace_subset';
const root = protobuf.parse(readFileSync(new URL('./otlpTrace.proto', import.meta.url), 'utf8')).root;
const ExportTraceServiceRequest = root.lookupType(`${PACKAGE}.ExportTraceServiceRequest`);
const ExportTraceServiceResponse = root.lookupType(`${PACKAGE}.ExportTraceServiceResponse`);

/** Ids and bytes values stay Uint8Array; 64-bit integers become decimal strings, as in OTLP/JSON. */
export function decodeExportRequest(body: Uint8Array): Record<string, unknown> {
  try {
    return ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, arrays: true });
  } catch (err) {
    throw errors.badRequest(`the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(err as Error).message}`);
  }
}

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export function encodeExportResponse(partial: PartialSuccess | null): Uint8Array {
  const message = partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {};
  return ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(message)).finish();
}

/** The same response in OTLP/JSON (int64 as a decimal string). */
export function exportResponseJson(partial: PartialSuccess | null): Record<string, unknown> {
  return partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {};
}
