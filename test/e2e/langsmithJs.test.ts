// The official `langsmith` npm client, unchanged, tracing into the running service: nested
// `traceable` functions through auto-batching (multipart with zstd, gzip or plain bodies, and
// the JSON /runs/batch fallback), and the direct createRun/updateRun path where the server
// makes trace_id and dotted_order. Every run must come back through GET /runs/{id} with the
// client's tree, and through the client's own readRun. Feedback created without a trace id goes
// through POST /feedback and is read, listed, updated and deleted through the client.
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { Client, uuid7, type RunTree } from 'langsmith';
import { traceable, getCurrentRunTree } from 'langsmith/traceable';
import { createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import {
  expectTracedRuns,
  offloadedFields,
  bigText,
  segmentIso,
  isoMicros,
  type ExpectedRun,
  type ServerRun,
} from './tracedRuns.ts';

interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  encoding: string | null;
  streamed: boolean;
  /** The answer's body when it was not a 2xx. */
  detail?: string;
}

/**
 * A fetch for the client that records what it sends and, to reach the client's other body
 * encodings against the same server, can rewrite the flags of the /info answer it reads.
 */
function recordingFetch(
  log: RecordedRequest[],
  info?: { instance_flags?: Record<string, unknown>; batch_ingest_config?: Record<string, unknown> },
): typeof fetch {
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const res = await fetch(input, init);
    log.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      status: res.status,
      encoding: new Headers(init?.headers).get('content-encoding'),
      streamed: init?.body instanceof ReadableStream,
      ...(res.ok ? {} : { detail: (await res.clone().text()).slice(0, 2000) }),
    });
    if (info && url.pathname.endsWith('/info') && res.ok) {
      const body = (await res.json()) as Record<string, Record<string, unknown>>;
      Object.assign(body.instance_flags!, info.instance_flags);
      Object.assign(body.batch_ingest_config!, info.batch_ingest_config);
      return new Response(JSON.stringify(body), {
        status: res.status,
        headers: { 'content-type': 'application/json' },
      });
    }
    return res;
  };
}

// Whatever the client logs through console.warn/error while tracing is a failure it swallowed
// ("Error exporting batch", "Failed to send multipart request", …), except deprecation notes.
const clientComplaints: string[] = [];
beforeEach(() => {
  clientComplaints.length = 0;
  for (const level of ['warn', 'error'] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      const text = args
        .map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a)))
        .join(' ');
      if (!/deprecated/i.test(text)) clientComplaints.push(`console.${level}: ${text}`);
    });
});
afterEach(() => {
  vi.restoreAllMocks();
});

let workspace: Workspace;
beforeAll(async () => {
  workspace = (await createWorkspaces(1))[0]!;
});

const runTreeOf = (): RunTree => getCurrentRunTree();
const errorOf = async (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: Error) => e,
  );

/**
 * Nested traceables: a root calling children and grandchildren, one child with inputs and one
 * with outputs above the claim-check threshold (128 KiB), a failing tool (caught by the
 * root), an attachment, and a second trace whose root itself fails.
 */
function tracedPipeline(client: Client, project: string) {
  const trees: RunTree[] = [];
  const attachmentBytes = new Uint8Array(Array.from({ length: 2048 }, (_, i) => (i * 31 + 7) % 256));
  const bigDocument = bigText(200 * 1024, 7);
  const common = { client, project_name: project, tracingEnabled: true } as const;
  const enter = () => trees.push(runTreeOf());

  const embed = traceable(
    async ({ text }: { text: string }) => {
      enter();
      return { vector: [text.length, 0.25, -1] };
    },
    { ...common, name: 'embed', run_type: 'embedding' },
  );
  const retrieve = traceable(
    async ({ query }: { query: string }) => {
      enter();
      const a = await embed({ text: query });
      const b = await embed({ text: `${query}?` });
      return { documents: ['doc-1', 'doc-2'], vectors: [a.vector, b.vector] };
    },
    { ...common, name: 'retrieve', run_type: 'retriever' },
  );
  const summarize = traceable(
    async ({ document }: { document: string }) => {
      enter();
      return { summary: document.slice(0, 24), length: document.length };
    },
    { ...common, name: 'summarize', run_type: 'llm' },
  );
  const expand = traceable(
    async ({ seed }: { seed: number }) => {
      enter();
      return { text: bigText(150 * 1024, seed) };
    },
    { ...common, name: 'expand', run_type: 'llm' },
  );
  const flakyTool = traceable(
    async ({ attempt }: { attempt: number }) => {
      enter();
      throw new Error(`tool failed on attempt ${attempt}`);
    },
    { ...common, name: 'flaky-tool', run_type: 'tool' },
  );
  const annotate = traceable(
    async (input: { caption: string; image: Uint8Array }) => {
      enter();
      return { annotated: input.caption.toUpperCase(), bytes: input.image.byteLength };
    },
    {
      ...common,
      name: 'annotate',
      run_type: 'tool',
      extractAttachments: (input: { caption: string; image: Uint8Array }) => [
        { image: ['image/png', input.image] },
        { caption: input.caption },
      ],
    },
  );
  const pipeline = traceable(
    async ({ question }: { question: string }) => {
      enter();
      const found = await retrieve({ query: question });
      const summary = await summarize({ document: bigDocument });
      const expanded = await expand({ seed: 3 });
      const failure = await errorOf(flakyTool({ attempt: 1 }));
      const note = await annotate({ caption: 'a chart', image: attachmentBytes });
      return {
        answer: `${summary.summary} (${found.documents.length} docs)`,
        expanded: expanded.text.length,
        failure: failure.message,
        note,
      };
    },
    {
      ...common,
      name: 'pipeline',
      run_type: 'chain',
      tags: ['e2e', 'langsmith-js'],
      metadata: { suite: 'langsmith-js' },
    },
  );
  const failingRoot = traceable(
    async ({ reason }: { reason: string }) => {
      enter();
      await summarize({ document: 'short text' });
      throw new Error(reason);
    },
    { ...common, name: 'failing-root', run_type: 'chain' },
  );

  return { trees, attachmentBytes, bigDocument, pipeline, failingRoot };
}

/** What the server must hold for a run tree the client finished. */
function expectedFromTree(rt: RunTree): ExpectedRun {
  return {
    id: rt.id,
    name: rt.name,
    runType: rt.run_type,
    parentRunId: rt.parent_run?.id ?? null,
    traceId: rt.trace_id,
    dottedOrder: rt.dotted_order,
    inputs: rt.inputs,
    outputs: rt.outputs ?? null,
    error: rt.error ?? null,
    startTime: segmentIso(rt.dotted_order.split('.').at(-1)!),
    endTime: isoMicros(rt.end_time!),
  };
}

async function expectClientReadsBack(client: Client, runs: Map<string, ServerRun>): Promise<void> {
  for (const [id, served] of runs) {
    const read = await client.readRun(id);
    expect(read).toMatchObject({
      id,
      name: served.name,
      run_type: served.run_type,
      trace_id: served.trace_id,
      dotted_order: served.dotted_order,
      parent_run_id: served.parent_run_id,
      status: served.status,
      inputs: served.inputs,
      outputs: served.outputs ?? null,
    });
    expect(Date.parse(String(read.start_time))).toBe(Date.parse(served.start_time));
  }
}

const variants = [
  // The server's own /info: npm 0.12 on Node 24 compresses queued runs with zstd.
  {
    label: 'multipart, zstd (the server /info as it is)',
    info: undefined,
    route: '/runs/multipart',
    encoding: 'zstd',
    attachments: true,
  },
  {
    label: 'multipart, gzip (zstd_compression_enabled:false)',
    info: { instance_flags: { zstd_compression_enabled: false } },
    route: '/runs/multipart',
    encoding: 'gzip',
    attachments: true,
  },
  {
    label: 'multipart, streamed uncompressed (no compression flags)',
    info: { instance_flags: { zstd_compression_enabled: false, gzip_body_enabled: false } },
    route: '/runs/multipart',
    encoding: null,
    attachments: true,
  },
  {
    label: 'JSON /runs/batch (use_multipart_endpoint:false)',
    info: { batch_ingest_config: { use_multipart_endpoint: false } },
    route: '/runs/batch',
    encoding: null,
    attachments: false,
  },
] as const;

describe('langsmith (npm) traceable with auto-batching', () => {
  test.each(variants)(
    '$label',
    async ({ info, route, encoding, attachments }) => {
      const requests: RecordedRequest[] = [];
      const client = new Client({
        apiUrl: `${tracingUrl()}/api/v1`,
        apiKey: workspace.apiKey,
        autoBatchTracing: true,
        fetchImplementation: recordingFetch(requests, info),
      });
      const project = `js-traceable-${route.slice(6)}-${encoding ?? 'plain'}-${Date.now()}`;
      const p = tracedPipeline(client, project);

      const result = await p.pipeline({ question: 'what is in the report?' });
      expect(result.failure).toBe('tool failed on attempt 1');
      expect((await errorOf(p.failingRoot({ reason: 'the root gave up' }))).message).toBe('the root gave up');
      await client.awaitPendingTraceBatches();

      // The client sent everything through the batch route with the encoding under test, and
      // never fell back to the per-run routes.
      const writes = requests.filter((r) => r.method !== 'GET');
      expect(writes.length).toBeGreaterThan(0);
      expect(writes.filter((w) => w.status !== 202)).toEqual([]);
      for (const w of writes)
        expect(w).toMatchObject({ method: 'POST', path: `/api/v1${route}`, status: 202, encoding });
      if (route === '/runs/multipart' && encoding === null) expect(writes.every((w) => w.streamed)).toBe(true);
      expect(requests.filter((r) => r.path.endsWith('/info')).every((r) => r.status === 200)).toBe(true);

      const trees = p.trees;
      expect(trees.map((t) => t.name).sort()).toEqual([
        'annotate',
        'embed',
        'embed',
        'expand',
        'failing-root',
        'flaky-tool',
        'pipeline',
        'retrieve',
        'summarize',
        'summarize',
      ]);
      const runs = await expectTracedRuns(workspace.apiKey, trees.map(expectedFromTree));

      const byName = (name: string) => trees.filter((t) => t.name === name).map((t) => runs.get(t.id)!);
      const [root] = byName('pipeline');
      expect(root).toMatchObject({ tags: ['e2e', 'langsmith-js'], is_root: true });
      expect(root!.extra.metadata).toMatchObject({ suite: 'langsmith-js' });
      expect(root!.extra.runtime).toMatchObject({ sdk: 'langsmith-js' });
      const summarized = byName('summarize').find((r) => r.parent_run_id === root!.id)!;
      expect(summarized.inputs.document).toBe(p.bigDocument);
      expect(byName('expand')[0]!.outputs.text).toBe(bigText(150 * 1024, 3));
      expect(byName('flaky-tool')[0]).toMatchObject({
        status: 'error',
        error: 'Error: tool failed on attempt 1',
        outputs: null,
      });
      expect(byName('failing-root')[0]).toMatchObject({
        status: 'error',
        error: 'Error: the root gave up',
        is_root: true,
      });
      // The grandchildren hang under retrieve.
      const retrieveRun = byName('retrieve')[0]!;
      for (const e of byName('embed')) expect(e.parent_run_id).toBe(retrieveRun.id);

      // Payloads above 128 KiB went to object storage as a claim check.
      expect(await offloadedFields(workspace.id, summarized.id)).toEqual(['inputs']);
      expect(await offloadedFields(workspace.id, byName('expand')[0]!.id)).toEqual(['outputs']);
      expect(await offloadedFields(workspace.id, root!.id)).toEqual([]);

      const annotated = byName('annotate')[0]!;
      if (attachments) {
        expect(annotated.inputs).toEqual({ caption: 'a chart' });
        const stored = annotated.s3_urls['attachment.image'];
        expect(stored).toMatchObject({ mime_type: 'image/png' });
        const download = await fetch(new URL(stored.presigned_url, tracingUrl()));
        expect(download.status).toBe(200);
        expect(new Uint8Array(await download.arrayBuffer())).toEqual(p.attachmentBytes);
      }

      await expectClientReadsBack(client, runs);
      expect(clientComplaints).toEqual([]);
    },
    120_000,
  );
});

describe('langsmith (npm) createRun/updateRun without dotted_order', () => {
  test('the server makes trace_id and dotted_order, also for a child of a run posted a moment before', async () => {
    const requests: RecordedRequest[] = [];
    const client = new Client({
      apiUrl: tracingUrl(),
      apiKey: workspace.apiKey,
      autoBatchTracing: true,
      fetchImplementation: recordingFetch(requests),
    });
    const project = `js-direct-${Date.now()}`;
    const [rootId, childId, grandchildId, bigId] = [uuid7(), uuid7(), uuid7(), uuid7()];
    const big = bigText(160 * 1024, 11);

    // No start_time: the client sends Date.now() as a number.
    await client.createRun({
      id: rootId,
      name: 'direct-root',
      run_type: 'chain',
      inputs: { question: 'direct?' },
      project_name: project,
      extra: { metadata: { via: 'createRun' } },
    });
    await client.createRun({
      id: childId,
      name: 'direct-child',
      run_type: 'llm',
      inputs: { prompt: 'hello' },
      parent_run_id: rootId,
      project_name: project,
    });
    await client.createRun({
      id: grandchildId,
      name: 'direct-grandchild',
      run_type: 'tool',
      inputs: { n: 1 },
      parent_run_id: childId,
      project_name: project,
    });
    await client.createRun({
      id: bigId,
      name: 'direct-big',
      run_type: 'parser',
      inputs: { blob: big },
      parent_run_id: rootId,
      project_name: project,
      start_time: Date.now(),
    });

    const ends = { grandchild: Date.now() + 1, child: Date.now() + 2, big: Date.now() + 3, root: Date.now() + 4 };
    await client.updateRun(grandchildId, { error: 'grandchild broke', end_time: ends.grandchild });
    await client.updateRun(childId, { outputs: { completion: 'hi there' }, end_time: ends.child });
    await client.updateRun(bigId, { outputs: { parsed: true }, end_time: ends.big });
    await client.updateRun(rootId, { outputs: { answer: 'done' }, end_time: ends.root, tags: ['direct'] });
    await client.awaitPendingTraceBatches();

    const writes = requests.filter((r) => r.method !== 'GET');
    expect(writes.map((w) => `${w.method} ${w.path.replace(/[0-9a-f-]{36}$/, ':id')} ${w.status}`)).toEqual([
      ...Array(4).fill('POST /runs 202'),
      ...Array(4).fill('PATCH /runs/:id 202'),
    ]);

    const runs = await expectTracedRuns(workspace.apiKey, [
      {
        id: rootId,
        name: 'direct-root',
        runType: 'chain',
        parentRunId: null,
        traceId: rootId,
        inputs: { question: 'direct?' },
        outputs: { answer: 'done' },
        error: null,
        endTime: isoMicros(ends.root),
      },
      {
        id: childId,
        name: 'direct-child',
        runType: 'llm',
        parentRunId: rootId,
        traceId: rootId,
        inputs: { prompt: 'hello' },
        outputs: { completion: 'hi there' },
        error: null,
        endTime: isoMicros(ends.child),
      },
      {
        id: grandchildId,
        name: 'direct-grandchild',
        runType: 'tool',
        parentRunId: childId,
        traceId: rootId,
        inputs: { n: 1 },
        outputs: null,
        error: 'grandchild broke',
        endTime: isoMicros(ends.grandchild),
      },
      {
        id: bigId,
        name: 'direct-big',
        runType: 'parser',
        parentRunId: rootId,
        traceId: rootId,
        inputs: { blob: big },
        outputs: { parsed: true },
        error: null,
        endTime: isoMicros(ends.big),
      },
    ]);
    expect(runs.get(rootId)).toMatchObject({ tags: ['direct'] });
    expect(runs.get(rootId)!.extra).toMatchObject({ metadata: { via: 'createRun' }, runtime: { sdk: 'langsmith-js' } });
    expect(await offloadedFields(workspace.id, bigId)).toEqual(['inputs']);
    // All four landed in one project, the one named on the root.
    expect(new Set([...runs.values()].map((r) => r.session_id)).size).toBe(1);

    await expectClientReadsBack(client, runs);
    expect(clientComplaints).toEqual([]);
  }, 120_000);
});

describe('langsmith (npm) feedback through POST /feedback', () => {
  test('createFeedback without traceId, readFeedback, listFeedback, updateFeedback, deleteFeedback; feedback_stats of the run and the project', async () => {
    const requests: RecordedRequest[] = [];
    const client = new Client({
      apiUrl: `${tracingUrl()}/api/v1`,
      apiKey: workspace.apiKey,
      autoBatchTracing: true,
      fetchImplementation: recordingFetch(requests),
    });
    const project = `js-feedback-${Date.now()}`;
    const runId = uuid7();
    await client.createRun({
      id: runId,
      name: 'rated',
      run_type: 'chain',
      inputs: { question: 'rate me' },
      project_name: project,
    });
    await client.updateRun(runId, { outputs: { answer: 'rated' }, end_time: Date.now() + 1 });
    await client.awaitPendingTraceBatches();
    const run = await waitForRun(workspace.apiKey, runId, (r) => r.status === 'success');

    // No traceId: the client posts to /feedback (with one, it would batch it as multipart).
    const created = await client.createFeedback(runId, 'correctness', {
      score: 0.8,
      value: 'good',
      comment: 'fine',
      correction: { answer: 'better' },
      sourceInfo: { reviewer: 'js' },
      feedbackConfig: { type: 'continuous', min: 0, max: 1 },
    });
    const other = await client.createFeedback(runId, 'helpfulness', { score: true });
    // read at once: the server waits for its projector rather than answer 404
    expect(await client.readFeedback(created.id)).toMatchObject({
      id: created.id,
      run_id: runId,
      trace_id: runId,
      session_id: run.session_id,
      key: 'correctness',
      score: 0.8,
      value: 'good',
      comment: 'fine',
      correction: { answer: 'better' },
      feedback_source: { type: 'api', metadata: { reviewer: 'js' } },
      feedback_config: { type: 'continuous', min: 0, max: 1 },
    });
    const listed = async (options: Parameters<Client['listFeedback']>[0]) => {
      const ids: string[] = [];
      for await (const f of client.listFeedback(options)) ids.push(f.id);
      return ids.sort();
    };
    expect(await listed({ runIds: [runId] })).toEqual([created.id, other.id].sort());
    expect(await listed({ runIds: [runId], feedbackKeys: ['correctness'] })).toEqual([created.id]);

    await client.updateFeedback(created.id, { score: 0.2, comment: 'on reflection' });
    expect(await client.readFeedback(created.id)).toMatchObject({
      score: 0.2,
      comment: 'on reflection',
      value: 'good',
    });
    await client.deleteFeedback(other.id);
    expect((await errorOf(client.readFeedback(other.id))).message).toMatch(/404|not found/i);
    expect(await listed({ runIds: [runId] })).toEqual([created.id]);

    const stats = { correctness: { n: 1, avg: 0.2, values: { good: 1 } } };
    await vi.waitFor(
      async () =>
        expect((await client.readRun(runId)).feedback_stats).toEqual({
          correctness: expect.objectContaining(stats.correctness),
        }),
      { timeout: 20_000, interval: 200 },
    );
    expect((await client.readProject({ projectName: project, includeStats: true })).feedback_stats).toEqual({
      correctness: expect.objectContaining(stats.correctness),
    });

    const feedbackCalls = requests
      .filter((r) => r.path.includes('/feedback'))
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}$/, ':id')} ${r.status}`);
    expect(feedbackCalls).toEqual([
      'POST /api/v1/feedback 200',
      'POST /api/v1/feedback 200',
      'GET /api/v1/feedback/:id 200',
      'GET /api/v1/feedback 200',
      'GET /api/v1/feedback 200',
      'PATCH /api/v1/feedback/:id 200',
      'GET /api/v1/feedback/:id 200',
      'DELETE /api/v1/feedback/:id 200',
      'GET /api/v1/feedback/:id 404',
      'GET /api/v1/feedback 200',
    ]);
    expect(clientComplaints).toEqual([]);
  }, 120_000);
});
