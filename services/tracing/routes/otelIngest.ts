// POST /otel/v1/traces: OpenTelemetry traces over OTLP/HTTP, protobuf or JSON, with the body
// decoding (gzip/zstd/deflate, decoded-size limit) of the other ingestion routes. Spans become
// runs (services/tracing/otel/); the answer is an ExportTraceServiceResponse in the request's
// encoding, with partial_success naming the spans that could not be taken.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../platform/config.ts';
import { errors, type AppError } from '../../../platform/errors.ts';
import { readDecodedBody, readJsonBody } from '../../../platform/http/requestBody.ts';
import { MAX_JSON_DEPTH } from '../../../platform/json/jsonNesting.ts';
import { errorResponses } from '../../../platform/http/openapi.ts';
import {
  decodeExportRequest,
  encodeExportResponse,
  exportResponseJson,
  type PartialSuccess,
} from '../otel/otlpProto.ts';
import { spansOfRequest, type SpanRejection } from '../otel/otlpSpans.ts';
import type { OtelIngestion } from '../otel/otelIngestion.ts';
import { tenantOf } from '../../tenancy/index.ts';

const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];
const OTLP_JSON_ENVELOPE_DEPTH = 4 * MAX_JSON_DEPTH + 16;

function summary(rejected: SpanRejection[]): string {
  const shown = rejected.slice(0, 5).map((r) => `span ${r.spanId}: ${r.reason}`);
  if (rejected.length > shown.length) shown.push(`and ${rejected.length - shown.length} more`);
  return shown.join('; ');
}

export function otelIngestRoutes(app: FastifyInstance, config: Config, otel: OtelIngestion): void {
  app.register(async (scope) => {
    scope.addContentTypeParser(PROTOBUF_TYPES, (request, payload, done) => {
      readDecodedBody(payload, request.headers, config.INGEST_SIZE_LIMIT_BYTES).then(
        (body) => done(null, body),
        (err: Error) => done(err),
      );
    });
    // OTLP/JSON wraps every level of an attribute value in up to four levels of envelope
    // (AnyValue, kvlistValue, values, KeyValue): the body may nest that much deeper; the values
    // inside are held to MAX_JSON_DEPTH as they are read (otlpSpans.ts).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', (request, payload, done) => {
      readJsonBody(payload, request.headers, config.INGEST_SIZE_LIMIT_BYTES, OTLP_JSON_ENVELOPE_DEPTH).then(
        (body) => done(null, body),
        (err: AppError) =>
          done(
            err.code === 'JSON_TOO_DEEP'
              ? errors.jsonTooDeep('an attribute value of the request', MAX_JSON_DEPTH)
              : err,
          ),
      );
    });
    // Anything else is named in a 415.
    scope.addContentTypeParser('*', (request, payload, done) => {
      payload.resume();
      done(
        errors.unsupportedMediaType(
          String(request.headers['content-type'] ?? '(none)'),
          'application/x-protobuf or application/json',
        ),
      );
    });

    scope.post(
      '/otel/v1/traces',
      {
        schema: {
          tags: ['runs'],
          summary: 'Ingest OpenTelemetry spans (OTLP/HTTP ExportTraceServiceRequest) as runs',
          description:
            'Protobuf (application/x-protobuf) or OTLP/JSON (application/json), optionally gzip/zstd/deflate encoded. Each span becomes a ' +
            'complete run; langsmith.* and gen_ai.* attributes map onto run fields (docs/otel.md). Header Langsmith-Project names the ' +
            'project for spans without langsmith.trace.session_*. Answers an ExportTraceServiceResponse in the request encoding.',
          consumes: ['application/x-protobuf', 'application/json'],
          body: {
            content: {
              'application/x-protobuf': {
                schema: { type: 'string', format: 'binary', description: 'ExportTraceServiceRequest' },
              },
              'application/json': {
                // null is a field's default in the protobuf JSON mapping, as absent is.
                schema: {
                  type: 'object',
                  description: 'ExportTraceServiceRequest in OTLP/JSON',
                  properties: { resourceSpans: { type: ['array', 'null'], items: { type: 'object' } } },
                },
              },
            },
          },
          headers: {
            type: 'object',
            properties: { 'langsmith-project': { type: 'string', description: 'default project name' } },
          },
          response: {
            200: {
              description: 'ExportTraceServiceResponse (protobuf or OTLP/JSON, as the request)',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      partialSuccess: {
                        type: 'object',
                        properties: { rejectedSpans: { type: 'string' }, errorMessage: { type: 'string' } },
                      },
                    },
                  },
                },
                'application/x-protobuf': { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...errorResponses(413, 503),
          },
        },
        // Protobuf bodies arrive as bytes; both forms are checked as they are read (otlpProto.ts, otlpSpans.ts).
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const isProtobuf = Buffer.isBuffer(request.body);
        const body = isProtobuf ? decodeExportRequest(request.body as Buffer) : request.body;
        const { spans, rejected: unreadable } = spansOfRequest(body);
        const project = request.headers['langsmith-project'];
        const rejected = [
          ...unreadable,
          ...(spans.length
            ? await otel.ingest(tenantOf(request), spans, typeof project === 'string' && project ? project : null)
            : []),
        ];
        if (rejected.length > 0 && rejected.length === spans.length + unreadable.length)
          throw errors.badRequest(`no span of the request could be ingested: ${summary(rejected)}`);
        const partial: PartialSuccess | null = rejected.length
          ? { rejectedSpans: rejected.length, errorMessage: summary(rejected) }
          : null;
        if (isProtobuf) return reply.type('application/x-protobuf').send(Buffer.from(encodeExportResponse(partial)));
        return reply.send(exportResponseJson(partial));
      },
    );
  });
}
