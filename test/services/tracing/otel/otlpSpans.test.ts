import { describe, expect, test } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { context, trace } from '@opentelemetry/api';
import { decodeExportRequest, encodeExportResponse } from '../../../../services/tracing/otel/otlpProto.ts';
import { spansOfRequest } from '../../../../services/tracing/otel/otlpSpans.ts';
import { AppError } from '../../../../platform/errors.ts';

/** Real spans from the OpenTelemetry SDK: a root and a child with attributes of every type, an event and an error status. */
function sdkSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('unit', '1.2.3');
  const root = tracer.startSpan('root');
  const child = tracer.startSpan(
    'child',
    { attributes: { 'gen_ai.prompt': '{"q":1}', count: 5, ratio: 1.5, list: ['a', 'b'], flag: true } },
    trace.setSpan(context.active(), root),
  );
  child.addEvent('new_token', { token: 'hi' });
  child.setStatus({ code: 2, message: 'boom' });
  child.end();
  root.end();
  return exporter.getFinishedSpans();
}

describe('spansOfRequest', () => {
  test('protobuf (decoded with our descriptor) and OTLP/JSON, as the SDK serializes them, read the same', () => {
    const spans = sdkSpans();
    const fromProtobuf = spansOfRequest(decodeExportRequest(ProtobufTraceSerializer.serializeRequest(spans)!));
    const fromJson = spansOfRequest(
      JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8')),
    );
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromProtobuf.rejected).toEqual([]);
    const [child, root] = fromProtobuf.spans;
    expect(root).toMatchObject({ name: 'root', parentSpanId: null, scope: { name: 'unit', version: '1.2.3' } });
    expect(root!.resource['telemetry.sdk.language']).toBe('nodejs');
    expect(child).toMatchObject({
      name: 'child',
      traceId: root!.traceId,
      parentSpanId: root!.spanId,
      kind: 1,
      attributes: { 'gen_ai.prompt': '{"q":1}', count: 5, ratio: 1.5, list: ['a', 'b'], flag: true },
      status: { code: 2, message: 'boom' },
      events: [{ name: 'new_token', attributes: { token: 'hi' } }],
    });
    expect(child!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(child!.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child!.endMicros).toBeGreaterThanOrEqual(child!.startMicros);
  });

  test('OTLP/JSON details: int64 as strings, enum numbers or names, nested values, microseconds kept, snake_case accepted', () => {
    const { spans, rejected } = spansOfRequest({
      resource_spans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'EEE19B7EC3C1B174',
                  name: 'x',
                  kind: 'SPAN_KIND_SERVER',
                  startTimeUnixNano: '1747684501221924096',
                  endTimeUnixNano: '1747684501222807999',
                  attributes: [
                    { key: 'i', value: { intValue: '42' } },
                    { key: 'huge', value: { intValue: '9223372036854775807' } },
                    { key: 'kv', value: { kvlistValue: { values: [{ key: 'a', value: { boolValue: false } }] } } },
                    { key: 'arr', value: { arrayValue: { values: [{ doubleValue: 0.5 }, { stringValue: 's' }] } } },
                    { key: 'bytes', value: { bytesValue: 'AQI=' } },
                    { key: 'empty', value: {} },
                  ],
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(rejected).toEqual([]);
    expect(spans[0]).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      kind: 2,
      startMicros: 1747684501221924,
      endMicros: 1747684501222807,
      attributes: { i: 42, huge: '9223372036854775807', kv: { a: false }, arr: [0.5, 's'], bytes: 'AQI=', empty: null },
      status: { code: 2, message: '' },
      resource: { 'service.name': 'svc' },
    });
  });

  test('a bad span is rejected with its reason, the others are kept', () => {
    const good = {
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      name: 'ok',
      startTimeUnixNano: '1747684501221924096',
    };
    const { spans, rejected } = spansOfRequest({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                good,
                { ...good, spanId: 'abc' },
                { ...good, traceId: '00000000000000000000000000000000' },
                { ...good, startTimeUnixNano: undefined },
                { ...good, endTimeUnixNano: '1000' },
                { ...good, traceId: 'W46P95gDgQPSabYzgT/GDA==' },
              ],
            },
          ],
        },
      ],
    });
    expect(spans.map((s) => s.name)).toEqual(['ok']);
    expect(rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(/spanId must be 16 hex digits/),
      expect.stringMatching(/traceId is all zeros/),
      expect.stringMatching(/startTimeUnixNano is missing/),
      expect.stringMatching(/endTimeUnixNano is before startTimeUnixNano/),
      expect.stringMatching(/traceId must be 32 hex digits \(OTLP\/JSON encodes ids as hex\)/),
    ]);
  });

  test('a body that is not an export request is a 400', () => {
    for (const body of [null, [], 'x', { resourceSpans: {} }, { resourceSpans: [1] }]) {
      let error: unknown;
      try {
        spansOfRequest(body);
      } catch (err) {
        error = err;
      }
      expect(error, JSON.stringify(body)).toBeInstanceOf(AppError);
      expect((error as AppError).statusCode).toBe(400);
    }
    expect(() => decodeExportRequest(Buffer.from('not protobuf at all, really'))).toThrow(
      /not an OTLP ExportTraceServiceRequest in protobuf/,
    );
    expect(spansOfRequest({})).toEqual({ spans: [], rejected: [] });
  });

  test('the response encodes as the SDK reads it', () => {
    expect(encodeExportResponse(null)).toHaveLength(0);
    const bytes = encodeExportResponse({ rejectedSpans: 2, errorMessage: 'span x: bad' });
    expect(ProtobufTraceSerializer.deserializeResponse(bytes)).toMatchObject({
      partialSuccess: { errorMessage: 'span x: bad' },
    });
    expect(Number((ProtobufTraceSerializer.deserializeResponse(bytes) as any).partialSuccess.rejectedSpans)).toBe(2);
  });
});
