// POST /otel/v1/traces against the shared stack: spans made by the OpenTelemetry SDK and sent
// by its own OTLP/protobuf exporter (children before their parents, in separate requests, as
// an exporter sends them), OTLP/JSON by hand, gzip, bad input, and workspaces kept apart.
// Reads wait until the projector has written what they need (waitFor), no sleeps.
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { context, trace, type Span } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { waitFor } from '../../../support/serviceProcess.ts';
import { projectIdForName } from '../../../../projections/projects/projectRegistry.ts';

const RUN = randomBytes(4).toString('hex');
const PROJECT = `otel-${RUN}`;
const THREAD = `otel-thread-${RUN}`;

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

const runIdOfSpan = (spanId: string) => `00000000-0000-0000-${spanId.slice(0, 4)}-${spanId.slice(4)}`;
const runIdOfTrace = (t: string) =>
  `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;

/** Records spans with the OpenTelemetry SDK: an agent turn (root) with a model call and a tool call under it, the tool with a step under it. */
function recordTurn(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer(
    'otel-test',
    '1.0.0',
  );
  const under = (parent: Span) => trace.setSpan(context.active(), parent);
  const root = tracer.startSpan('agent turn', {
    attributes: { 'langsmith.metadata.thread_id': THREAD, 'input.value': '{"question":"weather?"}' },
  });
  const llm = tracer.startSpan(
    'chat gpt-4o-mini',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'weather?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'sunny',
        'gen_ai.usage.input_tokens': 7,
        'gen_ai.usage.output_tokens': 3,
      },
    },
    under(root),
  );
  llm.end();
  const tool = tracer.startSpan(
    'get_weather',
    { attributes: { 'langsmith.span.kind': 'tool', 'langsmith.span.tags': 'weather, external' } },
    under(root),
  );
  const step = tracer.startSpan('http call', {}, under(tool));
  step.setStatus({ code: 2, message: 'upstream timed out' });
  step.end();
  tool.end();
  root.setAttribute('output.value', 'sunny');
  root.end();
  return memory.getFinishedSpans(); // in end order: llm, step, tool, root
}

/** Sends spans with the SDK's own OTLP/protobuf exporter; resolves with its export result. */
function exportWith(exporter: OTLPTraceExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

function jsonSpan(
  traceId: string,
  spanId: string,
  attributes: Array<{ key: string; value: Record<string, unknown> }>,
  extra: Record<string, unknown> = {},
) {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    traceId,
    spanId,
    name: `json ${spanId}`,
    kind: 1,
    startTimeUnixNano: String(now + 123_456n),
    endTimeUnixNano: String(now + 5_000_000n),
    attributes,
    ...extra,
  };
}
const exportRequest = (spans: unknown[]) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'json-svc' } }] },
      scopeSpans: [{ scope: { name: 'hand' }, spans }],
    },
  ],
});
const otlpJson = (apiKey: string, body: unknown, headers: Record<string, string> = {}, path = '/otel/v1/traces') =>
  api(path, {
    method: 'POST',
    apiKey,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('the OpenTelemetry SDK and its OTLP/protobuf exporter', () => {
  const spans = recordTurn();
  const [llm, step, tool, root] = spans as [ReadableSpan, ReadableSpan, ReadableSpan, ReadableSpan];
  const traceId = runIdOfTrace(root.spanContext().traceId);
  const ids = {
    root: traceId,
    llm: runIdOfSpan(llm.spanContext().spanId),
    tool: runIdOfSpan(tool.spanContext().spanId),
    step: runIdOfSpan(step.spanContext().spanId),
  };

  beforeAll(async () => {
    // As an exporter sends them: each span when it ends, children first; gzip, at / and under /api/v1.
    const headers = { 'x-api-key': ws.apiKey, 'Langsmith-Project': PROJECT };
    const plain = new OTLPTraceExporter({ url: `${tracingUrl()}/otel/v1/traces`, headers });
    const gzip = new OTLPTraceExporter({
      url: `${tracingUrl()}/api/v1/otel/v1/traces`,
      headers,
      compression: 'gzip' as never,
    });
    for (const [exporter, batch] of [
      [plain, [llm]],
      [gzip, [step]],
      [plain, [tool]],
      [gzip, [root]],
    ] as const) {
      const result = await exportWith(exporter, [...batch]);
      expect(result.error?.message, 'export result').toBeUndefined();
      expect(result.code).toBe(0);
    }
    await Promise.all([plain.shutdown(), gzip.shutdown()]);
  });

  test('each span is a run: trace id = root run id = the OTel trace id, children under their parents', async () => {
    const rootOrder = (await waitForRun(ws.apiKey, ids.root)).dotted_order as string;
    const toolRun = await waitForRun(ws.apiKey, ids.tool, (r) => r.dotted_order?.startsWith(rootOrder + '.'));
    const expectations: Array<[string, string | null, string]> = [
      [ids.root, null, ''],
      [ids.llm, ids.root, rootOrder],
      [ids.tool, ids.root, rootOrder],
      [ids.step, ids.tool, toolRun.dotted_order],
    ];
    for (const [id, parent, parentOrder] of expectations) {
      // Children arrived before their parents: they are grafted once the parent is known.
      const run = await waitForRun(
        ws.apiKey,
        id,
        (r) => r.parent_run_id === parent && (parent === null || r.dotted_order.startsWith(parentOrder + '.')),
      );
      expect(run).toMatchObject({
        id,
        trace_id: traceId,
        parent_run_id: parent,
        session_id: projectIdForName(ws.id, PROJECT),
      });
      expect(run.dotted_order.split('.')).toHaveLength(parentOrder === '' ? 1 : parentOrder.split('.').length + 1);
    }
    const tree = await waitFor(
      'the trace tree',
      async () => {
        const res = await api(`/api/v2/traces/${traceId}/runs?project_id=${projectIdForName(ws.id, PROJECT)}`, {
          apiKey: ws.apiKey,
        });
        return res.status === 200 && res.body.items?.length === 4 ? res.body.items : null;
      },
      30_000,
      200,
    );
    // Tree order (dotted_order): parents before children; siblings by start time (here the same millisecond, maybe).
    const order: string[] = tree.map((r: any) => r.id);
    expect([...order].sort()).toEqual(Object.values(ids).sort());
    expect(order[0]).toBe(ids.root);
    expect(order.indexOf(ids.step)).toBe(order.indexOf(ids.tool) + 1);
    expect(tree.find((r: any) => r.id === ids.step).parent_run_ids).toEqual([ids.root, ids.tool]);
  });

  test('attributes become run fields: names, run types, inputs, outputs, metadata, tags, errors, times', async () => {
    const rootRun = await waitForRun(ws.apiKey, ids.root);
    expect(rootRun).toMatchObject({
      name: 'agent turn',
      run_type: 'chain',
      inputs: { question: 'weather?' },
      outputs: { output: 'sunny' },
      status: 'success',
    });
    expect(rootRun.extra.metadata).toMatchObject({ thread_id: THREAD, 'service.name': expect.any(String) });
    expect(rootRun.start_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Date.parse(rootRun.start_time) * 1000).toBeLessThanOrEqual(Date.parse(rootRun.end_time) * 1000);

    const llmRun = await waitForRun(ws.apiKey, ids.llm);
    expect(llmRun).toMatchObject({
      name: 'chat gpt-4o-mini',
      run_type: 'llm',
      inputs: { messages: [{ role: 'user', content: 'weather?' }] },
      outputs: { messages: [{ role: 'assistant', content: 'sunny' }] },
      extra: {
        metadata: { ls_provider: 'openai', ls_model_name: 'gpt-4o-mini' },
        invocation_params: { model: 'gpt-4o-mini' },
      },
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
    expect(await waitForRun(ws.apiKey, ids.tool)).toMatchObject({
      name: 'get_weather',
      run_type: 'tool',
      tags: ['weather', 'external'],
    });
    expect(await waitForRun(ws.apiKey, ids.step)).toMatchObject({
      name: 'http call',
      run_type: 'chain',
      status: 'error',
      error: 'upstream timed out',
    });
  });

  test('langsmith.metadata.thread_id puts the trace in that thread', async () => {
    const items = await waitFor(
      'the thread',
      async () => {
        const res = await api(`/api/v2/threads/${THREAD}/traces?project_id=${projectIdForName(ws.id, PROJECT)}`, {
          apiKey: ws.apiKey,
        });
        return res.status === 200 && res.body.items?.length === 1 ? res.body.items : null;
      },
      30_000,
      200,
    );
    expect(items[0].trace_id).toBe(traceId);
  });

  test('another workspace sees none of it, and sending the same spans makes runs of its own', async () => {
    await waitForRun(ws.apiKey, ids.root);
    expect((await api(`/runs/${ids.root}`, { apiKey: other.apiKey })).status).toBe(404);
    const threads = await api(`/api/v2/threads/${THREAD}/traces?project_id=${projectIdForName(other.id, PROJECT)}`, {
      apiKey: other.apiKey,
    });
    expect(threads.body.items ?? []).toEqual([]);

    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest([root])!);
    const res = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: other.apiKey,
      body,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(200);
    const theirs = await waitForRun(other.apiKey, ids.root);
    expect(theirs.session_id).toBe(projectIdForName(other.id, 'default'));
    expect((await waitForRun(ws.apiKey, ids.root)).session_id).toBe(projectIdForName(ws.id, PROJECT));
  });
});

describe('OTLP/JSON', () => {
  test('hex ids, intValue strings, enum numbers; partial success names the span that could not be taken', async () => {
    const traceId = randomBytes(16).toString('hex');
    const rootSpan = jsonSpan(
      traceId,
      randomBytes(8).toString('hex'),
      [
        { key: 'langsmith.trace.name', value: { stringValue: 'json root' } },
        { key: 'langsmith.span.kind', value: { stringValue: 'retriever' } },
        { key: 'langsmith.metadata.attempt', value: { intValue: '3' } },
        { key: 'langsmith.trace.session_name', value: { stringValue: `${PROJECT}-json` } },
      ],
      { status: { code: 2, message: 'no documents' } },
    );
    const bad = jsonSpan(traceId, 'not-hex', []);
    const res = await otlpJson(ws.apiKey, exportRequest([rootSpan, bad]), {}, '/api/v1/otel/v1/traces');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: expect.stringMatching(/span not-hex: spanId must be 16 hex digits/),
      },
    });

    const run = await waitForRun(ws.apiKey, runIdOfTrace(traceId));
    expect(run).toMatchObject({
      name: 'json root',
      run_type: 'retriever',
      status: 'error',
      error: 'no documents',
      session_id: projectIdForName(ws.id, `${PROJECT}-json`),
      extra: {
        metadata: { attempt: 3, 'service.name': 'json-svc' },
        otel: { span_id: rootSpan.spanId, scope: { name: 'hand' } },
      },
    });
    // Microseconds of the span's nanosecond start are kept.
    expect(run.start_time.slice(-7)).toBe(
      `${String((BigInt(rootSpan.startTimeUnixNano) / 1000n) % 1_000_000n).padStart(6, '0')}Z`,
    );
  });

  test('a gzip body, and a clean export answers {}', async () => {
    const traceId = randomBytes(16).toString('hex');
    const body = gzipSync(JSON.stringify(exportRequest([jsonSpan(traceId, randomBytes(8).toString('hex'), [])])));
    const res = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: ws.apiKey,
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    await waitForRun(ws.apiKey, runIdOfTrace(traceId));
  });

  test('a protobuf request is answered in protobuf', async () => {
    const res = await fetch(`${tracingUrl()}/otel/v1/traces`, {
      method: 'POST',
      headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/x-protobuf' },
      body: new Uint8Array(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(new Uint8Array(await res.arrayBuffer())).toHaveLength(0); // an empty ExportTraceServiceResponse
  });
});

describe('bad requests', () => {
  test('no API key: 401', async () => {
    expect((await otlpJson('', exportRequest([]))).status).toBe(401);
  });

  test('a body that is not an export request: 400 saying so', async () => {
    const garbage = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: ws.apiKey,
      body: Buffer.from('not protobuf, honestly'),
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(garbage.status).toBe(400);
    expect(garbage.body.detail).toMatch(/not an OTLP ExportTraceServiceRequest in protobuf/);
    const notJson = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: ws.apiKey,
      body: '{"resourceSpans":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const wrongShape = await otlpJson(ws.apiKey, { resourceSpans: { spans: [] } });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.body.detail).toMatch(/resourceSpans must be an array/);
  });

  test('when no span can be taken: 400 naming why', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await otlpJson(
      ws.apiKey,
      exportRequest([
        jsonSpan(traceId, randomBytes(8).toString('hex'), [
          { key: 'langsmith.span.dotted_order', value: { stringValue: 'garbage' } },
        ]),
      ]),
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(
      /no span of the request could be ingested: span [0-9a-f]{16}: dotted_order .* segment 1/,
    );
  });

  test('attribute values nested deeper than 256 levels: the span is refused naming the limit, the rest is taken', async () => {
    const traceId = randomBytes(16).toString('hex');
    let deep: Record<string, unknown> = { stringValue: 'bottom' };
    for (let i = 0; i < 300; i++) deep = { arrayValue: { values: [deep] } };
    const ok = jsonSpan(traceId, randomBytes(8).toString('hex'), []);
    const bad = jsonSpan(traceId, randomBytes(8).toString('hex'), [{ key: 'input.value', value: deep }], {
      parentSpanId: ok.spanId,
    });
    const res = await otlpJson(ws.apiKey, exportRequest([ok, bad]));
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess).toEqual({
      rejectedSpans: '1',
      errorMessage: `span ${bad.spanId}: an attribute value nests objects and arrays deeper than 256 levels, the limit for JSON sent to this service`,
    });
    await waitForRun(ws.apiKey, runIdOfTrace(traceId));
  });

  test('a JSON string attribute nested deeper than the limit is kept as the string it is', async () => {
    const traceId = randomBytes(16).toString('hex');
    const text = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const res = await otlpJson(
      ws.apiKey,
      exportRequest([
        jsonSpan(traceId, randomBytes(8).toString('hex'), [{ key: 'input.value', value: { stringValue: text } }]),
      ]),
    );
    expect(res.status).toBe(200);
    expect((await waitForRun(ws.apiKey, runIdOfTrace(traceId))).inputs).toEqual({ input: text });
  });

  test('a request whose values nest far deeper (key-value lists 600 levels deep): 422 naming the limit, in JSON and in protobuf', async () => {
    let deep: Record<string, unknown> = { stringValue: 'bottom' };
    for (let i = 0; i < 600; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } };
    const span = jsonSpan(randomBytes(16).toString('hex'), randomBytes(8).toString('hex'), [
      { key: 'input.value', value: deep },
    ]);
    const json = await otlpJson(ws.apiKey, exportRequest([span]));
    expect(json.status).toBe(422);
    expect(json.body.detail).toBe(
      'an attribute value of the request nests objects and arrays deeper than 256 levels, the limit for JSON sent to this service',
    );

    const { default: protobuf } = await import('protobufjs');
    const { readFileSync } = await import('node:fs');
    protobuf.util.recursionLimit = 100_000; // this process encodes what the server must refuse
    const root = protobuf.parse(
      readFileSync(new URL('../../../../services/tracing/otel/otlpTrace.proto', import.meta.url), 'utf8'),
    ).root;
    const Request = root.lookupType('opentelemetry.proto.otlp_trace_subset.ExportTraceServiceRequest');
    const pbSpan = { ...span, traceId: Buffer.from(span.traceId, 'hex'), spanId: Buffer.from(span.spanId, 'hex') };
    const body = Request.encode(Request.fromObject(exportRequest([pbSpan]))).finish();
    const pb = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: ws.apiKey,
      body,
      headers: { 'content-type': 'application/x-protobuf' },
    });
    expect(pb.status).toBe(422);
    expect(pb.body.detail).toMatch(/deeper than 256 levels/);
  });

  test('another content type: 415 naming the accepted ones', async () => {
    const res = await api('/otel/v1/traces', {
      method: 'POST',
      apiKey: ws.apiKey,
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/application\/x-protobuf or application\/json/);
  });
});
