// The trace, thread and stats routes on the real stack, over runs ingested through the API
// and projected by the runs projector (which writes `runs` and `traces`); and the official
// clients' calls for them (`langsmith` npm: client.traces / client.threads, getRunStats).
// Every read waits until the projector has written what it needs (waitFor), no sleeps.
import { beforeAll, describe, expect, test } from 'vitest';
import { Client, Langsmith } from 'langsmith';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type TestRun } from '../../../support/runFactory.ts';
import { waitFor } from '../../../support/serviceProcess.ts';
import { projectIdForName } from '../../../../projections/projects/projectRegistry.ts';

const projectName = `traces-api-${Date.now()}`;
const USAGE = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

let ws: Workspace;
let other: Workspace;
let projectId: string;
let otherProjectId: string;

/** A finished trace (root chain + `children` llm runs with usage), in a thread when given; the root errors when asked. */
function trace(children: number, options: { thread?: string; error?: boolean; project?: string } = {}): TestRun[] {
  const end = new Date(Date.now() + 1500).toISOString();
  const runs = makeTrace(children, {
    session_name: options.project ?? projectName,
    end_time: end,
    extra: { metadata: options.thread ? { thread_id: options.thread } : {} },
  });
  for (const child of runs.slice(1)) child.outputs = { usage_metadata: USAGE };
  if (options.error) runs[0]!.error = 'ValueError: boom';
  return runs;
}

async function ingest(apiKey: string, runs: TestRun[]): Promise<void> {
  const { body, contentType } = multipartBody(postParts(runs));
  const res = await api('/runs/multipart', { method: 'POST', apiKey, body, headers: { 'content-type': contentType } });
  expect(res.status).toBe(202);
}

// Three turns of conv-1 (one errored), one of conv-2, one trace outside any thread; and a
// trace in another workspace under the same project name, in conv-1.
const conv1 = [
  trace(2, { thread: 'conv-1' }),
  trace(1, { thread: 'conv-1', error: true }),
  trace(3, { thread: 'conv-1' }),
];
const conv2 = trace(1, { thread: 'conv-2' });
const lone = trace(0);
const allTraces = [...conv1, conv2, lone];
const runCount = allTraces.reduce((n, t) => n + t.length, 0);
const llmRuns = runCount - allTraces.length;
const otherTrace = trace(1, { thread: 'conv-1' });

/** Polls the project's traces until all of them are there, as projected (needs the projector's `traces` rows). */
async function waitForTraces(
  apiKey: string,
  project: string,
  count: number,
  ready: (items: any[]) => boolean = () => true,
): Promise<any[]> {
  return waitFor(
    `${count} traces of project ${project}`,
    async () => {
      const res = await api('/api/v2/traces/query', {
        method: 'POST',
        apiKey,
        json: { project_id: project, page_size: 100 },
      });
      return res.status === 200 && res.body.items.length === count && ready(res.body.items) ? res.body.items : null;
    },
    60_000,
    200,
  );
}

beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  projectId = projectIdForName(ws.id, projectName);
  otherProjectId = projectIdForName(other.id, projectName);
  for (const t of allTraces) await ingest(ws.apiKey, t);
  await ingest(other.apiKey, otherTrace);
  // Everything below reads projected rows: wait for the finished, fully rolled-up traces.
  await waitForTraces(ws.apiKey, projectId, allTraces.length, (items) =>
    items.every((i) => i.root_run.end_time && i.trace_aggregates.run_count >= 1),
  );
  await waitForTraces(other.apiKey, otherProjectId, 1);
});

describe('GET /api/v2/traces/{id}/runs', () => {
  test('every run of the trace, root first, children by start', async () => {
    const t = conv1[2]!;
    const res = await api(`/api/v2/traces/${t[0]!.id}/runs?project_id=${projectId}`, { apiKey: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: any) => r.id)).toEqual(t.map((r) => r.id));
    expect(res.body.items[1]).toMatchObject({
      id: t[1]!.id,
      name: 'child-0',
      run_type: 'LLM',
      parent_run_ids: [t[0]!.id],
      total_tokens: 15,
      status: 'SUCCESS',
    });
    expect(res.body.items[0]).toMatchObject({ total_tokens: 45, parent_run_ids: [] });
    const picked = await api(
      `/api/v2/traces/${t[0]!.id}/runs?project_id=${projectId}&selects=THREAD_ID&selects=PROJECT_ID&selects=IS_ROOT`,
      { apiKey: ws.apiKey },
    );
    expect(picked.body.items[0]).toEqual({ thread_id: 'conv-1', project_id: projectId, is_root: true });
  });

  test('another workspace: 404 for its trace, even under a project of the same name', async () => {
    expect(
      (await api(`/api/v2/traces/${otherTrace[0]!.id}/runs?project_id=${projectId}`, { apiKey: ws.apiKey })).status,
    ).toBe(404);
    expect(
      (await api(`/api/v2/traces/${conv2[0]!.id}/runs?project_id=${otherProjectId}`, { apiKey: other.apiKey })).status,
    ).toBe(404);
    expect(
      (await api(`/api/v2/traces/${conv2[0]!.id}/runs?project_id=${otherProjectId}`, { apiKey: ws.apiKey })).status,
    ).toBe(404);
  });
});

describe('POST /api/v2/traces/query', () => {
  test('the project traces with their aggregates; filters by thread and error', async () => {
    const items = await waitForTraces(ws.apiKey, projectId, allTraces.length);
    const byId = new Map(items.map((i) => [i.root_run.id, i]));
    const errored = byId.get(conv1[1]![0]!.id);
    expect(errored.root_run).toMatchObject({
      name: 'root',
      status: 'ERROR',
      thread_id: 'conv-1',
      project_id: projectId,
    });
    expect(errored.trace_aggregates).toMatchObject({ run_count: 2, error_count: 1, total_tokens: 15 });
    expect(byId.get(lone[0]!.id).root_run.thread_id).toBeNull();
    const inConv1 = await api('/api/v2/traces/query', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { project_id: projectId, thread_id: 'conv-1' },
    });
    expect(inConv1.body.items.map((i: any) => i.root_run.id).sort()).toEqual(conv1.map((t) => t[0]!.id).sort());
    const failed = await api('/api/v2/traces/query', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { project_id: projectId, has_error: true },
    });
    expect(failed.body.items.map((i: any) => i.root_run.id)).toEqual([conv1[1]![0]!.id]);
  });

  test('another workspace: its project is 404; a field out of range is a 422 through the real server', async () => {
    expect(
      (await api('/api/v2/traces/query', { method: 'POST', apiKey: ws.apiKey, json: { project_id: otherProjectId } }))
        .status,
    ).toBe(404);
    const bad = await api('/api/v2/traces/query', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { project_id: projectId, page_size: 500 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: 'VALIDATION_ERROR', detail: expect.stringMatching(/page_size/) });
  });
});

describe('threads', () => {
  test('a thread per thread_id, with its turns in order and its stats', async () => {
    const threads = await waitFor(
      'both threads',
      async () => {
        const res = await api('/api/v2/threads/query', {
          method: 'POST',
          apiKey: ws.apiKey,
          json: { project_id: projectId },
        });
        return res.status === 200 && res.body.items.length === 2 ? res.body.items : null;
      },
      30_000,
      200,
    );
    const c1 = threads.find((t: any) => t.thread_id === 'conv-1');
    expect(c1).toMatchObject({
      count: 3,
      num_errored_turns: 1,
      first_trace_id: conv1[0]![0]!.id,
      last_trace_id: conv1[2]![0]!.id,
      total_tokens: 6 * 15,
      run_count: 9,
    });

    const turns = await api(`/api/v2/threads/conv-1/traces?project_id=${projectId}`, { apiKey: ws.apiKey });
    expect(turns.body.items.map((t: any) => [t.turn_number, t.trace_id])).toEqual(
      conv1.map((t, i) => [i + 1, t[0]!.id]),
    );

    const stats = await api(`/api/v2/threads/conv-1/stats?session_id=${projectId}`, { apiKey: ws.apiKey });
    expect(stats.body).toMatchObject({
      turns: 3,
      total_tokens: 90,
      prompt_tokens: 60,
      completion_tokens: 30,
      num_errored_turns: 1,
      run_count: 9,
    });
    expect(stats.body.latency_p50_seconds).toBeGreaterThan(0);
  });

  test('another workspace sees only its own conv-1; its project and threads are 404 to us', async () => {
    const theirs = await api(`/api/v2/threads/conv-1/stats?session_id=${otherProjectId}`, { apiKey: other.apiKey });
    expect(theirs.body.turns).toBe(1);
    expect((await api(`/api/v2/threads/conv-1/stats?session_id=${otherProjectId}`, { apiKey: ws.apiKey })).status).toBe(
      404,
    );
    expect((await api(`/api/v2/threads/conv-2/traces?project_id=${projectId}`, { apiKey: other.apiKey })).status).toBe(
      404,
    );
    expect(
      (await api('/api/v2/threads/query', { method: 'POST', apiKey: other.apiKey, json: { project_id: projectId } }))
        .status,
    ).toBe(404);
    expect((await api(`/api/v2/threads/conv-9/traces?project_id=${projectId}`, { apiKey: ws.apiKey })).status).toBe(
      404,
    );
  });
});

describe('project stats', () => {
  test.each(['/runs/stats', '/api/v1/runs/stats'])('POST %s: counts, tokens, errors and a series', async (path) => {
    const res = await api(path, {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { session: [projectId], interval: 'hour' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      trace_count: allTraces.length,
      run_count: runCount,
      run_type_counts: { chain: allTraces.length, llm: llmRuns },
      status_counts: { success: runCount - 1, error: 1 },
      total_tokens: llmRuns * 15,
      trace_error_count: 1,
      interval: '1h',
    });
    expect(res.body.series.reduce((n: number, b: any) => n + b.trace_count, 0)).toBe(allTraces.length);
  });

  test('GET /sessions/{id}/stats next to the project routes; another workspace is 404', async () => {
    const res = await api(`/sessions/${projectId}/stats?bucket=day`, { apiKey: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ trace_count: allTraces.length, run_count: runCount, interval: '1d' });
    expect((await api(`/api/v1/sessions/${projectId}/stats`, { apiKey: other.apiKey })).status).toBe(404);
    expect(
      (await api('/runs/stats', { method: 'POST', apiKey: other.apiKey, json: { session: [projectId] } })).status,
    ).toBe(404);
    expect((await api(`/sessions/${projectId}/stats?bucket=fortnight`, { apiKey: ws.apiKey })).status).toBe(422);
  });
});

describe('the official npm client', () => {
  test('client.traces.query pages with next_cursor; client.traces.listRuns', async () => {
    const client = new Langsmith({ baseURL: tracingUrl(), apiKey: ws.apiKey, maxRetries: 0 });
    const seen: string[] = [];
    for await (const t of client.traces.query({ project_id: projectId, page_size: 2 })) seen.push(t.root_run!.id!);
    expect(seen.sort()).toEqual(allTraces.map((t) => t[0]!.id).sort());
    const runs = await client.traces.listRuns(conv1[0]![0]!.id, {
      project_id: projectId,
      selects: ['ID', 'NAME', 'INPUTS'],
    });
    expect(runs.items).toEqual(conv1[0]!.map((r) => ({ id: r.id, name: r.name, inputs: r.inputs })));
  });

  test('client.threads.query, listTraces (paged by cursor) and stats', async () => {
    const client = new Langsmith({ baseURL: tracingUrl(), apiKey: ws.apiKey, maxRetries: 0 });
    const threads: string[] = [];
    for await (const t of client.threads.query({ project_id: projectId, page_size: 1 })) threads.push(t.thread_id!);
    expect(threads.sort()).toEqual(['conv-1', 'conv-2']);
    const turns: number[] = [];
    for await (const t of client.threads.listTraces('conv-1', {
      project_id: projectId,
      page_size: 2,
      selects: ['TRACE_ID', 'TURN_NUMBER'],
    }))
      turns.push(t.turn_number!);
    expect(turns).toEqual([1, 2, 3]);
    const stats = await client.threads.stats('conv-1', { session_id: projectId, selects: ['TURNS', 'TOTAL_TOKENS'] });
    expect(stats).toMatchObject({ turns: 3, total_tokens: 90 });
  });

  test('Client.getRunStats', async () => {
    const client = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey });
    const stats = await client.getRunStats({ projectIds: [projectId], isRoot: true });
    expect(stats).toMatchObject({ run_count: allTraces.length, error_count: 1, trace_count: allTraces.length });
  });
});

test('the routes are in the OpenAPI document', async () => {
  const doc = await api('/docs/json');
  expect(doc.status).toBe(200);
  for (const path of [
    '/api/v2/traces/query',
    '/api/v2/traces/{trace_id}/runs',
    '/api/v2/threads/query',
    '/api/v2/threads/{thread_id}/traces',
    '/api/v2/threads/{thread_id}/stats',
    '/runs/stats',
    '/sessions/{session_id}/stats',
  ])
    expect(Object.keys(doc.body.paths), path).toContain(path);
});
