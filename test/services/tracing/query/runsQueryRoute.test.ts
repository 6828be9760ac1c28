// POST /runs/query and /api/v2/runs/query against the shared stack, with runs ingested the way
// the clients send them: keyset pages while new runs arrive, the filter language's 400s,
// another workspace's project (404), and the official npm client's listRuns unchanged.
import { beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { Client } from 'langsmith';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type TestRun } from '../../../support/runFactory.ts';
import { waitFor } from '../../../support/serviceProcess.ts';
import { projectIdForName } from '../../../../projections/projects/projectRegistry.ts';
import { streamedPage } from '../../../support/sseEvents.ts';

let ws: Workspace;
let other: Workspace;
const projectName = `query-${randomBytes(4).toString('hex')}`;
let project: string;
const ingested: TestRun[] = [];

async function send(apiKey: string, runs: TestRun[], extraParts: { name: string; body: string }[] = []): Promise<void> {
  const { body, contentType } = multipartBody([...postParts(runs), ...extraParts]);
  const res = await api('/runs/multipart', { method: 'POST', apiKey, body, headers: { 'content-type': contentType } });
  expect(res.status).toBe(202);
}

/** A finished trace in the test project: a chain root and `children` llm runs. */
async function ingestTrace(children: number, extra: Partial<TestRun> = {}): Promise<TestRun[]> {
  const end = new Date(Date.now() + 50).toISOString();
  const trace = makeTrace(children, { session_name: projectName, end_time: end, outputs: { ok: true }, ...extra });
  await send(ws.apiKey, trace);
  for (const r of trace) await waitForRun(ws.apiKey, r.id);
  ingested.push(...trace);
  return trace;
}

const query = (body: Record<string, unknown>, apiKey = ws.apiKey, path = '/runs/query') =>
  api(path, { method: 'POST', apiKey, json: body });

beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  project = projectIdForName(ws.id, projectName);
  for (let i = 0; i < 5; i++)
    await ingestTrace(3, i === 2 ? { error: 'kaboom', tags: ['flaky'] } : { tags: ['steady'] });
}, 120_000);

describe('POST /runs/query', () => {
  test('pages by keyset cursor: runs arriving between pages are neither lost nor repeated', async () => {
    const before = new Set(ingested.map((r) => r.id));
    const pageThrough = async (order: 'asc' | 'desc') => {
      const ids: string[] = [];
      const arrived: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await query({ session: [project], limit: 4, order, select: ['id', 'start_time'], cursor });
        expect(res.status).toBe(200);
        expect(res.body.runs.length).toBeGreaterThan(0);
        ids.push(...res.body.runs.map((r: { id: string }) => r.id));
        cursor = res.body.cursors.next;
        if (cursor) arrived.push(...(await ingestTrace(1)).map((r) => r.id));
      } while (cursor);
      return { ids, arrived };
    };

    const desc = await pageThrough('desc');
    expect(new Set(desc.ids).size).toBe(desc.ids.length);
    expect(new Set(desc.ids)).toEqual(before); // newer arrivals sort before the cursor: not on later pages

    const asc = await pageThrough('asc');
    expect(new Set(asc.ids).size).toBe(asc.ids.length);
    expect(asc.ids.slice(0, before.size + desc.arrived.length)).toEqual(
      expect.arrayContaining([...before, ...desc.arrived]),
    );
    expect(asc.ids.slice(-asc.arrived.length)).toEqual(expect.arrayContaining(asc.arrived)); // arrivals come last, ascending
    expect(asc.ids.length).toBe(before.size + desc.arrived.length + asc.arrived.length);
  });

  test('filters, trace_filter and tree_filter, under / and /api/v1', async () => {
    const errored = ingested.filter((r) => r.error === 'kaboom');
    for (const path of ['/runs/query', '/api/v1/runs/query']) {
      const res = await query(
        {
          session: [project],
          filter: 'and(eq(status, "error"), has(tags, "flaky"))',
          select: ['id', 'status', 'error', 'tags'],
        },
        ws.apiKey,
        path,
      );
      expect(res.status).toBe(200);
      expect(res.body.runs.map((r: { id: string }) => r.id).sort()).toEqual(errored.map((r) => r.id).sort());
      expect(res.body.runs[0]).toMatchObject({ status: 'error', error: 'kaboom', tags: ['flaky'] });
    }
    const root = errored.find((r) => r.parent_run_id === null)!;
    const children = await query({
      session: [project],
      trace_filter: `eq(id, "${root.id}")`,
      is_root: false,
      select: ['id'],
    });
    expect(children.body.runs.map((r: { id: string }) => r.id).sort()).toEqual(
      errored
        .filter((r) => r !== root)
        .map((r) => r.id)
        .sort(),
    );
    const trees = await query({
      session: [project],
      is_root: true,
      tree_filter: 'eq(name, "child-2")',
      select: ['id'],
    });
    expect(trees.body.runs.map((r: { id: string }) => r.id).sort()).toEqual(
      ingested
        .filter((r) => r.parent_run_id === null && ingested.some((c) => c.trace_id === r.id && c.name === 'child-2'))
        .map((r) => r.id)
        .sort(),
    );
  });

  test('the default response carries what the clients select', async () => {
    const [root] = ingested as [TestRun];
    const res = await query({ id: [root.id] });
    expect(res.status).toBe(200);
    expect(res.body.runs).toHaveLength(1);
    expect(res.body.runs[0]).toMatchObject({
      id: root.id,
      trace_id: root.id,
      name: 'root',
      run_type: 'chain',
      parent_run_id: null,
      parent_run_ids: [],
      dotted_order: root.dotted_order,
      session_id: project,
      inputs: { question: 'q' },
      outputs: { ok: true },
      status: 'success',
      app_path: `/o/${ws.id}/projects/p/${project}/r/${root.id}?poll=true`,
      feedback_stats: null,
      is_root: true,
    });
    expect(res.body.cursors).toEqual({ next: null, prev: null });
  });

  test('unknown field or operator: 400 naming it; wrong types: 422 naming the field', async () => {
    const unknownField = await query({ session: [project], filter: 'and(eq(name, "x"), gt(nonsense, 1))' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toMatchObject({
      error: 'INVALID_FILTER',
      detail: expect.stringMatching(/^filter: unknown field "nonsense" at position 23/),
    });
    const unknownOp = await query({ session: [project], trace_filter: 'approx(latency, 2)' });
    expect(unknownOp.status).toBe(400);
    expect(unknownOp.body.detail).toMatch(/^trace_filter: unknown operator "approx" at position 1/);
    const badValue = await query({ filter: 'gt(latency, "soon")' });
    expect(badValue.status).toBe(400);
    expect(badValue.body.detail).toMatch(/expected a duration .* found "soon" at position 13/);
    for (const [body, status, message] of [
      [{ limit: 'ten' }, 422, /limit/],
      [{ session: [12] }, 422, /session/],
      [{ error: 'yes' }, 422, /error/],
      [{ order: 'sideways' }, 422, /order/],
      [{ select: ['id', 'nope'] }, 422, /select\/1 must be equal to one of the allowed values/],
      [{ session: ['not-a-uuid'] }, 422, /session\/0 must match format "uuid"/],
      [{ is_root: 2 }, 422, /is_root/],
      [{ cursor: 'garbage' }, 400, /cursor is not a cursor this service issued/],
    ] as const) {
      const res = await query(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.detail).toMatch(message);
    }
    // The v2 route needs its projects.
    const noProjects = await query({}, ws.apiKey, '/api/v2/runs/query');
    expect(noProjects.status).toBe(422);
    expect(noProjects.body.detail).toMatch(/project_ids/);
    // Fields the clients send that we do not act on, and extra kwargs, are fine.
    expect(
      (
        await query({
          session: [project],
          query: 'anything',
          execution_order: 1,
          reference_example: null,
          made_up_kwarg: { a: 1 },
          limit: 1,
        })
      ).status,
    ).toBe(200);
  });

  test("another workspace's project is 404; another workspace sees none of these runs", async () => {
    const res = await query({ session: [project] }, other.apiKey);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
    expect((await query({ session: [uuidv7()] })).status).toBe(404);
    const all = await query({ id: ingested.slice(0, 3).map((r) => r.id) }, other.apiKey);
    expect(all.status).toBe(200);
    expect(all.body.runs).toEqual([]);
  });

  test('the official npm client: listRuns by project id, with a filter', async () => {
    const client = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey });
    const runs = [];
    for await (const run of client.listRuns({ projectId: project, filter: 'eq(run_type, "llm")', isRoot: false }))
      runs.push(run);
    const llm = ingested.filter((r) => r.run_type === 'llm').map((r) => r.id);
    expect(runs.map((r) => r.id).sort()).toEqual(llm.sort());
    expect(runs[0]).toMatchObject({ run_type: 'llm', session_id: project, outputs: { ok: true } });
  });
});

test('the OpenAPI document describes the query routes', async () => {
  const doc = await api('/docs/json');
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toEqual(
    expect.arrayContaining([
      '/runs/query',
      '/api/v1/runs/query',
      '/api/v2/runs/query',
      '/api/v2/runs/{run_id}',
      '/api/v2/runs/{run_id}/url',
    ]),
  );
  expect(
    doc.body.paths['/runs/query'].post.requestBody.content['application/json'].schema.properties.filter,
  ).toBeDefined();
});

describe('POST /api/v2/runs/query', () => {
  test('items and next_cursor, paged by body cursor', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await query(
        {
          project_ids: [project],
          is_root: true,
          page_size: 2,
          selects: ['ID', 'NAME', 'PROJECT_ID', 'LATENCY_SECONDS'],
          ...(cursor ? { cursor } : {}),
        },
        ws.apiKey,
        '/api/v2/runs/query',
      );
      expect(res.status).toBe(200);
      for (const item of res.body.items)
        expect(Object.keys(item).sort()).toEqual(['id', 'latency_seconds', 'name', 'project_id']);
      ids.push(...res.body.items.map((i: { id: string }) => i.id));
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    const roots = (await query({ session: [project], is_root: true, select: ['id'] })).body.runs.map(
      (r: { id: string }) => r.id,
    );
    expect(ids).toEqual(roots);
    expect((await query({ project_ids: [project] }, other.apiKey, '/api/v2/runs/query')).status).toBe(404);
  });

  test('Accept: text/event-stream streams the same runs as the JSON pages; an Accept admitting neither is a 406', async () => {
    const body = { project_ids: [project], page_size: 3, selects: ['ID', 'RUN_TYPE', 'STATUS'] };
    const json: unknown[] = [];
    const streamed: unknown[] = [];
    for (const [accept, into] of [
      ['application/json', json],
      ['text/event-stream', streamed],
    ] as const) {
      let cursor: string | null = null;
      do {
        const res = await fetch(`${tracingUrl()}/api/v2/runs/query`, {
          method: 'POST',
          headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json', accept },
          body: JSON.stringify({ ...body, ...(cursor ? { cursor } : {}) }),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(
          accept === 'text/event-stream' ? /^text\/event-stream/ : /^application\/json/,
        );
        const page =
          accept === 'text/event-stream'
            ? streamedPage(await res.text())
            : ((await res.json()) as { items: unknown[]; next_cursor: string | null });
        into.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
    }
    expect(streamed).toEqual(json);
    expect(json.length).toBeGreaterThanOrEqual(20);
    const refused = await api('/api/v2/runs/query', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: body,
      headers: { accept: 'text/plain' },
    });
    expect(refused.status).toBe(406);
    expect(refused.body.error).toBe('NOT_ACCEPTABLE');
  });

  test('run_type and status in the v2 enums (upper case), and run_type filters in any case', async () => {
    const res = await query(
      { project_ids: [project], run_type: 'LLM', selects: ['ID', 'RUN_TYPE', 'STATUS'] },
      ws.apiKey,
      '/api/v2/runs/query',
    );
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(new Set(res.body.items.map((i: { run_type: string }) => i.run_type))).toEqual(new Set(['LLM']));
    expect(new Set(res.body.items.map((i: { status: string }) => i.status))).toEqual(new Set(['SUCCESS', 'ERROR']));
    const lower = await query(
      { project_ids: [project], run_type: 'llm', selects: ['ID'] },
      ws.apiKey,
      '/api/v2/runs/query',
    );
    expect(lower.body.items).toEqual(res.body.items.map((i: { id: string }) => ({ id: i.id })));
  });

  test('GET /api/v2/runs/{id}/url: the UI path on the base URL the client used; app_path agrees', async () => {
    const [root, child] = ingested as [TestRun, TestRun];
    const path = `/o/${ws.id}/projects/p/${project}/r/${child.id}?poll=true`;
    const res = await api(`/api/v2/runs/${child.id}/url?project_id=${project}&trace_id=${root.id}`, {
      apiKey: ws.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: `${tracingUrl()}${path}` });
    expect((await api(`/runs/${child.id}`, { apiKey: ws.apiKey })).body.app_path).toBe(path);
    const v2 = await api(`/api/v2/runs/${child.id}?project_id=${project}&selects=APP_PATH`, { apiKey: ws.apiKey });
    expect(v2.body).toEqual({ app_path: path });
    const proxied = await api(
      `/api/v2/runs/${child.id}/url?project_id=${project}&trace_id=${root.id}&start_time=${child.start_time}`,
      {
        apiKey: ws.apiKey,
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'smith.example.com' },
      },
    );
    expect(proxied.body).toEqual({ url: `https://smith.example.com${path}` });
    expect(
      (await api(`/api/v2/runs/${child.id}/url?project_id=${project}&trace_id=${root.id}`, { apiKey: other.apiKey }))
        .status,
    ).toBe(404);
    for (const q of [
      `trace_id=${root.id}`,
      `project_id=${project}`,
      `project_id=nope&trace_id=${root.id}`,
      `project_id=${project}&trace_id=${root.id}&start_time=yesterday`,
    ]) {
      expect((await api(`/api/v2/runs/${child.id}/url?${q}`, { apiKey: ws.apiKey })).status, q).toBe(422);
    }
    expect(
      (await api(`/api/v2/runs/not-a-uuid/url?project_id=${project}&trace_id=${root.id}`, { apiKey: ws.apiKey }))
        .status,
    ).toBe(422);
  });

  test('GET /api/v2/runs/{id} with repeated selects', async () => {
    const [root] = ingested as [TestRun];
    const res = await api(
      `/api/v2/runs/${root.id}?project_id=${project}&selects=ID&selects=NAME&selects=INPUTS&selects=IS_ROOT`,
      { apiKey: ws.apiKey },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: root.id, name: 'root', inputs: { question: 'q' }, is_root: true });
    expect((await api(`/api/v2/runs/${root.id}?project_id=${project}`, { apiKey: ws.apiKey })).body).toEqual({
      id: root.id,
    });
    expect((await api(`/api/v2/runs/${root.id}?project_id=${project}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await api(`/api/v2/runs/${uuidv7()}?project_id=${project}`, { apiKey: ws.apiKey })).status).toBe(404);
    expect((await api(`/api/v2/runs/${root.id}`, { apiKey: ws.apiKey })).status).toBe(422);
  });
});

// These read the columns the runs projector derives (thread_id, metadata pairs, usage rollups)
// and the feedback projector's table.
describe('derived columns and feedback', () => {
  type Run = Record<string, any>;
  const waitForRuns = (body: Record<string, unknown>, ready: (runs: Run[]) => boolean): Promise<Run[]> =>
    waitFor(
      `runs matching ${JSON.stringify(body)}`,
      async () => {
        const res = await query(body);
        expect(res.status).toBe(200);
        return ready(res.body.runs) ? res.body.runs : null;
      },
      30_000,
      200,
    );

  test("eq(thread_id, …) and thread_id in select, as the clients' thread helpers use them", async () => {
    const thread = `thread-${randomBytes(4).toString('hex')}`;
    const trace = await ingestTrace(1, { extra: { metadata: { thread_id: thread, user: 'alice' } } });
    const runs = await waitForRuns(
      {
        session: [project],
        is_root: true,
        filter: `eq(thread_id, "${thread}")`,
        select: ['id', 'thread_id'],
        order: 'asc',
      },
      (r) => r.length > 0,
    );
    expect(runs).toEqual([expect.objectContaining({ id: trace[0]!.id, thread_id: thread })]);
  });

  test('metadata_key and metadata_value pair within and(…)', async () => {
    const user = `user-${randomBytes(4).toString('hex')}`;
    const trace = await ingestTrace(1, { extra: { metadata: { user, env: 'prod' } } });
    const paired = await waitForRuns(
      { session: [project], filter: `and(eq(metadata_key, "user"), eq(metadata_value, "${user}"))`, select: ['id'] },
      (r) => r.length === 2,
    );
    expect(paired.map((r) => r.id).sort()).toEqual(trace.map((r) => r.id).sort());
    const crossed = await query({
      session: [project],
      filter: `and(eq(metadata_key, "env"), eq(metadata_value, "${user}"))`,
      select: ['id'],
    });
    expect(crossed.body.runs).toEqual([]);
  });

  test('token filters see usage rolled up to the root', async () => {
    const trace = makeTrace(1, { session_name: projectName, end_time: new Date(Date.now() + 50).toISOString() });
    trace[1]!.outputs = { usage_metadata: { input_tokens: 7, output_tokens: 5, total_tokens: 12 } };
    trace[0]!.outputs = { answer: 'x' };
    await send(ws.apiKey, trace);
    const runs = await waitForRuns(
      { trace: trace[0]!.id, filter: 'gte(total_tokens, 12)', select: ['id', 'total_tokens', 'prompt_tokens'] },
      (r) => r.length === 2,
    );
    expect(runs.map((r) => r.total_tokens)).toEqual([12, 12]);
  });

  test('feedback_key / feedback_score pair within and(…); feedback_stats per run', async () => {
    const [root, child] = (await ingestTrace(1)) as [TestRun, TestRun];
    const feedback = (runId: string, key: string, score: number) => ({
      name: `feedback.${uuidv7()}`,
      body: JSON.stringify({ run_id: runId, trace_id: root.id, key, score }),
    });
    await send(
      ws.apiKey,
      [],
      [feedback(root.id, 'correctness', 1), feedback(child.id, 'correctness', 0), feedback(child.id, 'helpful', 1)],
    );
    const paired = await waitForRuns(
      {
        trace: root.id,
        filter: 'and(eq(feedback_key, "correctness"), eq(feedback_score, 1))',
        select: ['id', 'feedback_stats'],
      },
      (r) => r.length > 0,
    );
    expect(paired).toEqual([
      {
        id: root.id,
        trace_id: root.id,
        name: 'root',
        run_type: 'chain',
        start_time: expect.any(String),
        feedback_stats: { correctness: { n: 1, avg: 1, stdev: 0, errors: 0, values: {} } },
      },
    ]);
    const any = await waitForRuns(
      { trace: root.id, filter: 'gt(feedback_score, 0.5)', select: ['id'] },
      (r) => r.length === 2,
    );
    expect(any.map((r) => r.id).sort()).toEqual([root.id, child.id].sort());
  });
});
