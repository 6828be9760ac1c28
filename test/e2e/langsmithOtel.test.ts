// The official `langsmith` npm client in its OpenTelemetry mode, unchanged: `traceable`
// functions become OTel spans (langsmith.* and gen_ai.* attributes, langsmith.is_root and
// langsmith.span.parent_id), which its LangSmithOTLPTraceExporter posts to
// {endpoint}/otel/v1/traces. They must come back as runs with the client's tree and fields.
import { beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { Client } from 'langsmith';
import { traceable } from 'langsmith/traceable';
import { initializeOTEL } from 'langsmith/experimental/otel/setup';
import { createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const PROJECT = `ls-otel-${randomBytes(4).toString('hex')}`;
const THREAD = `ls-otel-thread-${randomBytes(4).toString('hex')}`;
const uuidOf = (hex: string) =>
  `${hex.padStart(32, '0').slice(0, 8)}-${hex.padStart(32, '0').slice(8, 12)}-${hex.padStart(32, '0').slice(12, 16)}-${hex.padStart(32, '0').slice(16, 20)}-${hex.padStart(32, '0').slice(20)}`;

let ws: Workspace;
const seen: { traceId?: string; outerSpan?: string; innerSpan?: string } = {};

beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
  process.env.LANGSMITH_TRACING = 'true';
  const { DEFAULT_LANGSMITH_SPAN_PROCESSOR } = initializeOTEL({
    exporterConfig: { url: `${tracingUrl()}/otel/v1/traces`, headers: { 'x-api-key': ws.apiKey } },
  });
  const client = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey, tracingMode: 'otel' });
  const model = traceable(
    async (question: string) => {
      seen.innerSpan = trace.getActiveSpan()?.spanContext().spanId;
      return { answer: `echo: ${question}` };
    },
    { name: 'fake-model', run_type: 'llm', client },
  );
  const agent = traceable(
    async (question: string) => {
      seen.traceId = trace.getActiveSpan()?.spanContext().traceId;
      seen.outerSpan = trace.getActiveSpan()?.spanContext().spanId;
      return model(question);
    },
    { name: 'agent', client, project_name: PROJECT, metadata: { thread_id: THREAD }, tags: ['otel-mode'] },
  );
  await agent('hello');
  await client.awaitPendingTraceBatches();
  await DEFAULT_LANGSMITH_SPAN_PROCESSOR.forceFlush();
});

describe('langsmith traceable in OTel mode', () => {
  test('the root is the run of the OTel trace id; the model call hangs under it, with the fields the client gave', async () => {
    expect(seen.traceId).toMatch(/^[0-9a-f]{32}$/);
    const rootId = uuidOf(seen.traceId!);
    const root = await waitForRun(ws.apiKey, rootId, (r) => r.end_time !== null);
    expect(root).toMatchObject({
      id: rootId,
      trace_id: rootId,
      parent_run_id: null,
      name: 'agent',
      run_type: 'chain',
      inputs: { input: 'hello' },
      outputs: { answer: 'echo: hello' },
      session_id: projectIdForName(ws.id, PROJECT),
    });
    expect(root.extra.metadata).toMatchObject({ thread_id: THREAD });
    expect(root.tags).toEqual(['otel-mode']);
    const model = await waitForRun(ws.apiKey, uuidOf(seen.innerSpan!), (r) => r.parent_run_id === rootId);
    expect(model).toMatchObject({
      name: 'fake-model',
      run_type: 'llm',
      trace_id: rootId,
      outputs: { answer: 'echo: hello' },
    });
    expect(model.dotted_order.startsWith(`${root.dotted_order}.`)).toBe(true);
  });
});
