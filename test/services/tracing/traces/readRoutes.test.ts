// The trace, thread and stats routes over rows put straight into `runs` and `traces` of a
// scratch database (no projector involved): paging, filters, shapes, tenant isolation and
// bad input, against real ClickHouse.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { formatDottedTimestamp } from '../../../../platform/time.ts';
import { sql } from '../../../../platform/clickhouse/sql.ts';
import {
  fillRunKeys,
  fillTraceCopies,
  readRoutesApp,
  runRow,
  scratchDatabase,
  SECOND,
  traceRow,
  type ScratchDatabase,
} from './readModelFixture.ts';
import { streamedPage } from '../../../support/sseEvents.ts';

const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const iso = (micros: number) => new Date(micros / 1000).toISOString();

const tenantA = randomUUID();
const tenantB = randomUUID();
const projectA = randomUUID();
const projectA2 = randomUUID();
const projectB = randomUUID();
const projectA3 = randomUUID();
const rootlessTrace = randomUUID();
// An hour boundary ten hours ago: the traces below span about four hours after it.
const T0 = Math.floor((Date.now() * 1000) / HOUR) * HOUR - 10 * HOUR;
const WINDOW = { min_start_time: iso(T0 - HOUR), max_start_time: iso(T0 + 10 * HOUR) };

interface Made {
  trace_id: string;
  start_time: number;
  thread_id: string;
  status: string;
  latency: number | null;
  total_tokens: number;
  total_cost: number;
}

// 25 traces in project A: every 10 minutes, the last six at one instant (ties); threads a and b;
// every fifth errored; the last still running.
const made: Made[] = [];
for (let i = 0; i < 25; i++) {
  const start_time = T0 + Math.min(i, 19) * 10 * MINUTE;
  const status = i === 24 ? 'pending' : i % 5 === 0 ? 'error' : 'success';
  made.push({
    trace_id: randomUUID(),
    start_time,
    thread_id: i % 3 === 0 ? 'thread-a' : i % 3 === 1 ? 'thread-b' : '',
    status,
    latency: status === 'pending' ? null : i + 1,
    total_tokens: 100 * (i + 1),
    total_cost: 0.01 * (i + 1),
  });
}
const traceRows = made.map((m, i) =>
  traceRow({
    tenant_id: tenantA,
    trace_id: m.trace_id,
    session_id: projectA,
    thread_id: m.thread_id,
    name: `trace-${i}`,
    status: m.status,
    start_time: m.start_time,
    end_time: m.latency === null ? null : m.start_time + m.latency * SECOND,
    first_token_time: i % 2 === 0 ? m.start_time + SECOND / 2 : null,
    run_count: 3,
    error_count: m.status === 'error' ? 1 : 0,
    run_types: ['chain', 'llm'],
    run_type_counts: [1, 2],
    statuses: m.status === 'success' ? ['success'] : [m.status, 'success'],
    status_counts: m.status === 'success' ? [3] : [1, 2],
    prompt_tokens: 60 * (i + 1),
    completion_tokens: 40 * (i + 1),
    total_tokens: m.total_tokens,
    total_cost: m.total_cost,
    version: 10,
  }),
);

// One trace with a run tree, inserted out of order: root > (a > a1, b).
const tree = (() => {
  const trace_id = randomUUID();
  const seg = (t: number, id: string) => formatDottedTimestamp(t) + id;
  const root = { id: trace_id, t: T0 + 5 * HOUR };
  const a = { id: randomUUID(), t: root.t + SECOND };
  const b = { id: randomUUID(), t: root.t + 3 * SECOND };
  const a1 = { id: randomUUID(), t: root.t + 2 * SECOND };
  const rootOrder = seg(root.t, root.id);
  const runs = [
    { ...b, parent: root.id, order: `${rootOrder}.${seg(b.t, b.id)}`, name: 'b' },
    { ...a1, parent: a.id, order: `${rootOrder}.${seg(a.t, a.id)}.${seg(a1.t, a1.id)}`, name: 'a1' },
    { ...root, parent: null, order: rootOrder, name: 'root' },
    { ...a, parent: root.id, order: `${rootOrder}.${seg(a.t, a.id)}`, name: 'a' },
  ];
  return { trace_id, runs, inTreeOrder: ['root', 'a', 'a1', 'b'], ids: { root: root.id, a: a.id, a1: a1.id, b: b.id } };
})();

// A trace whose runs moved (the projector's way: the newest row at a place left is a tombstone,
// has_post = 0, just below the new place's version): `late` from T0 + 6h to T0 + 8h, `joined`
// from project A3 to A2. Each is shown once, at its new place, and filters see the new place only.
const moved = (() => {
  const trace_id = randomUUID();
  const seg = (t: number, id: string) => formatDottedTimestamp(t) + id;
  const root = { id: trace_id, t: T0 + 6 * HOUR };
  const late = { id: randomUUID(), t: root.t + SECOND, movedTo: T0 + 8 * HOUR };
  const joined = { id: randomUUID(), t: root.t + 2 * SECOND };
  const order = (r: { id: string; t: number }) => `${seg(root.t, root.id)}.${seg(r.t, r.id)}`;
  const at = (id: string, name: string, session_id: string, start_time: number, dotted_order: string, more = {}) =>
    runRow({ tenant_id: tenantA, trace_id, id, session_id, start_time, dotted_order, name, ...more });
  const rows = [
    at(root.id, 'root', projectA2, root.t, seg(root.t, root.id)),
    at(late.id, 'late', projectA2, late.t, order(late), { version: 1, status: 'pending' }),
    at(late.id, 'late', projectA2, late.t, order(late), { version: 9, has_post: 0 }),
    at(late.id, 'late', projectA2, late.movedTo, order(late), { version: 10 }),
    at(joined.id, 'joined', projectA3, joined.t, order(joined), { version: 1 }),
    at(joined.id, 'joined', projectA3, joined.t, order(joined), { version: 19, has_post: 0 }),
    at(joined.id, 'joined', projectA2, joined.t, order(joined), { version: 20 }),
  ];
  return { trace_id, rows, root, late };
})();

let db: ScratchDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!);
  // An older version of the first trace (still pending, other thread) that FINAL must hide.
  await db.ch.insert('traces', [{ ...traceRows[0]!, status: 'pending', thread_id: 'stale', version: 1 }]);
  await db.ch.insert('traces', traceRows);
  await db.ch.insert('traces', [
    traceRow({
      tenant_id: tenantA,
      trace_id: randomUUID(),
      session_id: projectA2,
      thread_id: 'thread-a',
      start_time: T0 + HOUR,
    }),
    traceRow({
      tenant_id: tenantB,
      trace_id: randomUUID(),
      session_id: projectB,
      thread_id: 'thread-a',
      start_time: T0 + HOUR,
    }),
    traceRow({
      tenant_id: tenantA,
      trace_id: tree.trace_id,
      session_id: projectA2,
      start_time: T0 + 5 * HOUR,
      run_count: 4,
    }),
    {
      ...traceRow({
        tenant_id: tenantA,
        trace_id: rootlessTrace,
        session_id: projectA3,
        start_time: T0 + HOUR,
        name: 'a child',
      }),
      has_root: 0,
    },
  ]);
  await db.ch.insert(
    'runs',
    tree.runs.map((r) =>
      runRow({
        tenant_id: tenantA,
        trace_id: tree.trace_id,
        id: r.id,
        session_id: projectA2,
        parent_run_id: r.parent,
        dotted_order: r.order,
        name: r.name,
        start_time: r.t,
        inputs: JSON.stringify({ question: r.name }),
        outputs: JSON.stringify({ answer: r.name }),
        extra: JSON.stringify({ metadata: { thread_id: 'x', user: r.name } }),
        error: r.name === 'b' ? 'boom' : null,
        status: r.name === 'b' ? 'error' : 'success',
        total_tokens: 7,
      }),
    ),
  );
  // The same trace id in workspace B must not leak into A, nor A's into B.
  await db.ch.insert('runs', [
    runRow({
      tenant_id: tenantB,
      trace_id: tree.trace_id,
      id: tree.trace_id,
      session_id: projectB,
      dotted_order: 'x',
      start_time: T0,
    }),
  ]);
  await db.ch.insert('runs', moved.rows);
  await fillRunKeys(db.ch);
  await fillTraceCopies(db.ch);
  app = await readRoutesApp(db.ch, [
    { tenantId: tenantA, projectId: projectA },
    { tenantId: tenantA, projectId: projectA2 },
    { tenantId: tenantA, projectId: projectA3 },
    { tenantId: tenantB, projectId: projectB },
  ]);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function call(tenant: string, method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await app.inject({
    method,
    url,
    headers: { 'x-tenant-id': tenant },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: res.statusCode, body: res.json() };
}

const postTraces = (body: Record<string, unknown>, tenant = tenantA) =>
  call(tenant, 'POST', '/api/v2/traces/query', { ...WINDOW, ...body });

async function allPages(path: string, body: Record<string, unknown>, tenant = tenantA) {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const res = await call(tenant, 'POST', path, { ...body, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor ?? undefined;
    if (!cursor) return { items, pages: pages + 1 };
  }
  throw new Error('paging did not end');
}

/** Every item of a query as streamed pages (Accept: text/event-stream), following next_cursor. */
async function allStreamedPages(path: string, body: Record<string, unknown>, tenant = tenantA) {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages < 50; pages++) {
    const res = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'x-tenant-id': tenant, accept: 'text/event-stream' },
      payload: { ...body, ...(cursor ? { cursor } : {}) },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const page = streamedPage(res.body);
    expect(page.events.at(-1)).toEqual({ event: 'end', data: '' });
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) return { items, pages };
  }
  throw new Error('paging did not end');
}

/** The queries answer JSON or a stream; an Accept admitting neither is a 406 (never a form not asked for). */
describe.each(['/api/v2/traces/query', '/api/v2/threads/query'])('%s as a stream', (path) => {
  test('the same items as the JSON pages, page for page', async () => {
    const body = { ...WINDOW, project_id: projectA, page_size: 7 };
    const streamed = await allStreamedPages(path, body);
    const json = await allPages(path, body);
    expect(streamed.items.length).toBeGreaterThan(0);
    expect(streamed).toEqual(json);
  });

  test('an Accept that admits neither JSON nor a stream is a 406; one that admits JSON gets JSON', async () => {
    const send = (accept: string) =>
      app.inject({
        method: 'POST',
        url: path,
        headers: { 'x-tenant-id': tenantA, accept },
        payload: { ...WINDOW, project_id: projectA },
      });
    const refused = await send('text/html, application/xml;q=0.9');
    expect(refused.statusCode).toBe(406);
    expect(refused.json()).toEqual({
      error: 'NOT_ACCEPTABLE',
      detail: expect.stringContaining('application/json, text/event-stream'),
    });
    const json = await send('text/html, */*;q=0.1');
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });

  test('bad input is an ordinary 400 or 404 before any stream', async () => {
    const send = (payload: object, tenant = tenantA) =>
      app.inject({
        method: 'POST',
        url: path,
        headers: { 'x-tenant-id': tenant, accept: 'text/event-stream' },
        payload,
      });
    expect((await send({ project_id: projectA, cursor: 'not-a-cursor' })).json()).toMatchObject({
      error: 'BAD_REQUEST',
    });
    expect((await send({ project_id: projectA }, tenantB)).statusCode).toBe(404);
  });
});

describe('POST /api/v2/traces/query', () => {
  test('pages through every trace of the project once, newest first, ties included', async () => {
    const paged = await allPages('/api/v2/traces/query', { ...WINDOW, project_id: projectA, page_size: 7 });
    expect(paged.pages).toBe(4);
    const ids = paged.items.map((i) => i.root_run.id);
    expect(new Set(ids).size).toBe(25);
    expect(new Set(ids)).toEqual(new Set(made.map((m) => m.trace_id)));
    const starts = paged.items.map((i) => Date.parse(i.root_run.start_time));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    const whole = await postTraces({ project_id: projectA, page_size: 100 });
    expect(whole.body.items.map((i: any) => i.root_run.id)).toEqual(ids);
    expect(whole.body.next_cursor).toBeNull();
  });

  test('an item: the root run in the v2 shape (from the newest trace row) and the trace aggregates', async () => {
    const first = made[0]!;
    const res = await postTraces({ project_id: projectA, trace_ids: [first.trace_id] });
    expect(res.body.items).toHaveLength(1);
    const item = res.body.items[0];
    expect(item.root_run).toEqual({
      id: first.trace_id,
      name: 'trace-0',
      run_type: 'CHAIN',
      status: 'ERROR',
      start_time: iso(first.start_time).replace('Z', '000Z'),
      end_time: iso(first.start_time + SECOND).replace('Z', '000Z'),
      latency_seconds: 1,
      parent_run_ids: [],
      project_id: projectA,
      trace_id: first.trace_id,
      thread_id: 'thread-a',
      is_root: true,
      prompt_tokens: 60,
      completion_tokens: 40,
      prompt_cost: 0,
      completion_cost: 0,
      tags: [],
    });
    expect(item.trace_aggregates).toEqual({
      total_tokens: 100,
      total_cost: 0.01,
      first_token_time: iso(first.start_time + SECOND / 2).replace('Z', '000Z'),
      run_count: 3,
      error_count: 1,
    });
  });

  test('fields the trace row lacks come from the root run; a root not projected yet is known by id only', async () => {
    const res = await postTraces({
      project_id: projectA2,
      trace_ids: [tree.trace_id],
      selects: ['ID', 'ERROR', 'DOTTED_ORDER', 'TOTAL_TOKENS'],
    });
    expect(res.body.items[0].root_run).toEqual({
      id: tree.trace_id,
      error: null,
      dotted_order: tree.runs.find((r) => r.name === 'root')!.order,
    });
    const rootless = await postTraces({ project_id: projectA3 });
    expect(rootless.body.items).toEqual([
      {
        root_run: { id: rootlessTrace },
        trace_aggregates: expect.objectContaining({ run_count: 1 }),
        query_metadata: null,
      },
    ]);
  });

  test('selects: root-run fields under root_run, the three aggregates under trace_aggregates', async () => {
    const res = await postTraces({
      project_id: projectA2,
      trace_ids: [tree.trace_id],
      selects: ['NAME', 'INPUTS', 'TOTAL_TOKENS'],
    });
    expect(res.body.items[0]).toEqual({
      root_run: { name: 'root', inputs: { question: 'root' } },
      trace_aggregates: { total_tokens: 0, run_count: 4, error_count: 0 },
      query_metadata: null,
    });
  });

  test('filters: thread, error, trace ids, several projects, the time window', async () => {
    const byThread = await postTraces({ project_id: projectA, thread_id: 'thread-a', page_size: 100 });
    expect(byThread.body.items.map((i: any) => i.root_run.id).sort()).toEqual(
      made
        .filter((m) => m.thread_id === 'thread-a')
        .map((m) => m.trace_id)
        .sort(),
    );
    const errored = await postTraces({ project_id: projectA, has_error: true, page_size: 100 });
    expect(errored.body.items).toHaveLength(made.filter((m) => m.status === 'error').length);
    const notErrored = await postTraces({ project_id: projectA, has_error: false, page_size: 100 });
    expect(notErrored.body.items).toHaveLength(25 - errored.body.items.length);
    const two = await postTraces({ project_ids: [projectA, projectA2], page_size: 100 });
    expect(two.body.items).toHaveLength(27);
    const early = await postTraces({
      project_id: projectA,
      min_start_time: iso(T0),
      max_start_time: iso(T0 + 30 * MINUTE),
      page_size: 100,
    });
    expect(early.body.items).toHaveLength(3); // starts at 0, 10 and 20 minutes; 30 is excluded
  });

  test('sort_by latency, tokens or cost, either way, paged by cursor: each trace once, in order', async () => {
    const latency = (m: Made) => (m.latency === null ? -1 : m.latency); // still running: the shortest
    const cases = [
      { sort_by: 'latency', sort_order: 'desc', key: latency },
      { sort_by: 'latency', sort_order: 'asc', key: latency },
      { sort_by: 'total_tokens', sort_order: 'asc', key: (m: Made) => m.total_tokens },
      { sort_by: 'total_cost', sort_order: 'desc', key: (m: Made) => m.total_cost },
      { sort_by: 'start_time', sort_order: 'asc', key: (m: Made) => m.start_time },
    ] as const;
    for (const c of cases) {
      const paged = await allPages('/api/v2/traces/query', {
        ...WINDOW,
        project_id: projectA,
        page_size: 7,
        sort_by: c.sort_by,
        sort_order: c.sort_order,
      });
      const sign = c.sort_order === 'desc' ? -1 : 1;
      const expected = [...made].sort(
        (a, b) => sign * (c.key(a) - c.key(b)) || sign * (a.trace_id < b.trace_id ? -1 : 1),
      );
      if (c.sort_by === 'start_time') {
        // Six traces share a start time: they are ordered by id, which ClickHouse compares its own way (UUID halves).
        expect(paged.items.map((i) => Date.parse(i.root_run.start_time))).toEqual(
          expected.map((m) => m.start_time / 1000),
        );
        expect(new Set(paged.items.map((i) => i.root_run.id)).size).toBe(25);
      } else
        expect(
          paged.items.map((i) => i.root_run.id),
          `${c.sort_by} ${c.sort_order}`,
        ).toEqual(expected.map((m) => m.trace_id));
    }
  });

  test('a cursor continues only the sort it was issued for (400 otherwise); a bad sort is a 422 naming it', async () => {
    const first = await postTraces({ project_id: projectA, page_size: 5, sort_by: 'latency' });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const mixed = await postTraces({ project_id: projectA, cursor: first.body.next_cursor, sort_by: 'total_cost' });
    expect(mixed).toEqual({
      status: 400,
      body: expect.objectContaining({
        error: 'BAD_REQUEST',
        detail: expect.stringContaining('issued for sort latency desc'),
      }),
    });
    const bad = await postTraces({ project_id: projectA, sort_by: 'name' });
    expect(bad).toEqual({
      status: 422,
      body: expect.objectContaining({
        error: 'VALIDATION_ERROR',
        detail: expect.stringMatching(/sort_by.*start_time, latency, total_tokens, total_cost/),
      }),
    });
    expect((await postTraces({ project_id: projectA, sort_order: 'up' })).body.detail).toMatch(/sort_order.*desc, asc/);
  });

  test('trace_filter: the root run must match; tree_filter: some run of the trace must; a bad filter is INVALID_FILTER', async () => {
    const ids = async (body: Record<string, unknown>) =>
      (await postTraces({ project_id: projectA2, ...body })).body.items.map((i: any) => i.root_run.id);
    expect(await ids({ trace_filter: 'eq(name, "root")' })).toEqual([tree.trace_id]);
    expect(await ids({ trace_filter: 'eq(name, "b")' })).toEqual([]);
    expect(await ids({ tree_filter: 'eq(name, "b")' })).toEqual([tree.trace_id]);
    expect(await ids({ tree_filter: 'and(eq(status, "error"), eq(name, "a"))' })).toEqual([]);
    expect((await ids({})).length).toBe(2);
    const bad = await postTraces({ project_id: projectA2, trace_filter: 'eq(name,' });
    expect(bad).toEqual({
      status: 400,
      body: expect.objectContaining({ error: 'INVALID_FILTER', detail: expect.stringContaining('trace_filter') }),
    });
  });

  test('another workspace: its project is 404, and its traces never show', async () => {
    expect((await postTraces({ project_id: projectB })).status).toBe(404);
    expect((await postTraces({ project_id: projectA }, tenantB)).status).toBe(404);
    const own = await postTraces({ project_id: projectB, page_size: 100 }, tenantB);
    expect(own.body.items).toHaveLength(1);
  });

  test.each([
    [{}, 422, /project_id/],
    [{ project_id: 'nope' }, 422, /project_id must match format "uuid"/],
    [{ project_id: projectA, page_size: 0 }, 422, /page_size/],
    [{ project_id: projectA, page_size: 101 }, 422, /page_size/],
    [{ project_id: projectA, selects: ['NOT_A_FIELD'] }, 422, /selects/],
    [{ project_id: projectA, min_start_time: 'yesterday' }, 422, /min_start_time/],
    [{ project_id: projectA, cursor: 'garbage' }, 400, /cursor/],
    [{ project_id: projectA, ai_search: 'slow traces' }, 400, /ai_search is not supported/],
    [{ project_id: projectA, sort_by: 'latency', cursor: 'eyJ0IjoxLCJpZCI6IngifQ' }, 400, /cursor/],
    [{ project_id: projectA, min_start_time: iso(T0), max_start_time: iso(T0) }, 400, /before/],
  ])('bad input %j is a %i naming it', async (body, status, detail) => {
    const res = await call(tenantA, 'POST', '/api/v2/traces/query', body);
    expect(res.status).toBe(status);
    expect(res.body.detail).toMatch(detail);
  });
});

describe('GET /api/v2/traces/{id}/runs', () => {
  const runsOf = (query: string, tenant = tenantA, id: string = tree.trace_id) =>
    call(tenant, 'GET', `/api/v2/traces/${id}/runs?${query}`);

  test('every run in tree order, with no payloads unless selected', async () => {
    const res = await runsOf(`project_id=${projectA2}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: any) => r.name)).toEqual(tree.inTreeOrder);
    const a1 = res.body.items[2];
    expect(a1).toEqual({
      id: tree.ids.a1,
      name: 'a1',
      run_type: 'CHAIN',
      status: 'SUCCESS',
      start_time: expect.any(String),
      end_time: expect.any(String),
      latency_seconds: 1,
      first_token_time: null,
      error: null,
      parent_run_ids: [tree.ids.root, tree.ids.a],
      total_tokens: 7,
      total_cost: 0,
    });
    expect(res.body.items[3]).toMatchObject({ name: 'b', status: 'ERROR', error: 'boom' });
    // sent as bytes serialised once (sendJsonBytes), with the type and length of any JSON answer
    const raw = await app.inject({
      method: 'GET',
      url: `/api/v2/traces/${tree.trace_id}/runs?project_id=${projectA2}`,
      headers: { 'x-tenant-id': tenantA },
    });
    expect(raw.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(raw.headers['content-length'])).toBe(raw.rawPayload.length);
    expect(raw.json()).toEqual(res.body);
  });

  test('selects pick the fields, payloads included', async () => {
    const res = await runsOf(`project_id=${projectA2}&selects=ID&selects=INPUTS&selects=OUTPUTS&selects=METADATA`);
    expect(res.body.items[1]).toEqual({
      id: tree.ids.a,
      inputs: { question: 'a' },
      outputs: { answer: 'a' },
      metadata: { thread_id: 'x', user: 'a' },
    });
    const one = await runsOf(`project_id=${projectA2}&selects=NAME`);
    expect(one.body.items.map((r: any) => r)).toEqual(tree.inTreeOrder.map((name) => ({ name })));
  });

  test('a start time window narrows the runs; an empty window is an empty list', async () => {
    const root = tree.runs.find((r) => r.name === 'root')!;
    const res = await runsOf(
      `project_id=${projectA2}&selects=NAME&min_start_time=${iso(root.t + SECOND)}&max_start_time=${iso(root.t + 2 * SECOND)}`,
    );
    expect(res.body.items).toEqual([{ name: 'a' }, { name: 'a1' }]);
    const none = await runsOf(
      `project_id=${projectA2}&min_start_time=${iso(T0 - 2 * HOUR)}&max_start_time=${iso(T0 - HOUR)}`,
    );
    expect(none).toEqual({ status: 200, body: { items: [] } });
  });

  test('a run that moved (project, start time) is shown once, at its new place, and filtered by it', async () => {
    const names = async (query: string) => {
      const res = await call(
        tenantA,
        'GET',
        `/api/v2/traces/${moved.trace_id}/runs?selects=NAME&selects=STATUS&${query}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((r: any) => `${r.name}:${r.status}`);
    };
    expect(await names(`project_id=${projectA2}`)).toEqual(['root:SUCCESS', 'late:SUCCESS', 'joined:SUCCESS']);
    expect(await names(`project_id=${projectA3}`)).toEqual([]);
    const window = (from: number, to: number) =>
      `project_id=${projectA2}&min_start_time=${iso(from)}&max_start_time=${iso(to)}`;
    // the old start time's window: `late` left it
    expect(await names(window(moved.root.t, moved.late.t))).toEqual(['root:SUCCESS']);
    expect(await names(window(moved.late.movedTo, moved.late.movedTo))).toEqual(['late:SUCCESS']);
  });

  test('404: an unknown trace, a trace of another project, another workspace (even with the same trace id)', async () => {
    expect((await runsOf(`project_id=${projectA2}`, tenantA, randomUUID())).status).toBe(404);
    expect((await runsOf(`project_id=${projectA}`)).status).toBe(404);
    expect((await runsOf(`project_id=${projectA2}`, tenantB)).status).toBe(404);
    const b = await runsOf(`project_id=${projectB}`, tenantB);
    expect(b.body.items).toHaveLength(1);
  });

  test.each([
    ['', 422, /project_id/],
    [`project_id=${projectA2}&selects=BOGUS`, 422, /selects/],
    [`project_id=${projectA2}&filter=${encodeURIComponent('eq(run_type, "llm")')}`, 400, /filter is not supported/],
    [`project_id=${projectA2}&min_start_time=${iso(T0)}`, 400, /go together/],
  ])('bad input ?%s is a %i', async (query, status, detail) => {
    const res = await runsOf(query);
    expect(res.status).toBe(status);
    expect(res.body.detail).toMatch(detail);
  });

  test('a trace id that is not a UUID is a 422', async () => {
    expect((await runsOf(`project_id=${projectA2}`, tenantA, 'not-a-uuid')).status).toBe(422);
  });
});

describe('threads', () => {
  const threadA = made.filter((m) => m.thread_id === 'thread-a');
  const threadB = made.filter((m) => m.thread_id === 'thread-b');

  test('POST /threads/query: a summary per thread, most recent activity first, keyset-paged', async () => {
    const paged = await allPages('/api/v2/threads/query', { ...WINDOW, project_id: projectA, page_size: 1 });
    // Both threads were last active at the 190-minute ties: equal activity orders by thread id, descending.
    expect(paged.items.map((t) => t.thread_id)).toEqual(['thread-b', 'thread-a']);
    const a = paged.items[1];
    const latencies = threadA.map((m) => m.latency).filter((l): l is number => l !== null);
    expect(a).toMatchObject({
      thread_id: 'thread-a',
      count: threadA.length,
      first_trace_id: threadA[0]!.trace_id,
      min_start_time: iso(threadA[0]!.start_time).replace('Z', '000Z'),
      num_errored_turns: threadA.filter((m) => m.status === 'error').length,
      total_tokens: threadA.reduce((s, m) => s + m.total_tokens, 0),
      run_count: 3 * threadA.length,
    });
    expect(a.total_cost).toBeCloseTo(
      threadA.reduce((s, m) => s + m.total_cost, 0),
      9,
    );
    expect(a.latency_p50).toBeGreaterThanOrEqual(Math.min(...latencies));
    expect(a.latency_p99).toBeLessThanOrEqual(Math.max(...latencies));
    expect(a.latency_p50).toBeLessThanOrEqual(a.latency_p99);
  });

  test('POST /threads/query: the window decides which traces a thread is summarised over', async () => {
    const res = await call(tenantA, 'POST', '/api/v2/threads/query', {
      project_id: projectA,
      min_start_time: iso(T0),
      max_start_time: iso(T0 + 35 * MINUTE),
    });
    // traces 0..3: 0 and 3 in thread a, 1 in thread b, 2 in none
    expect(res.body.items.map((t: any) => [t.thread_id, t.count])).toEqual([
      ['thread-a', 2],
      ['thread-b', 1],
    ]);
  });

  test('GET /threads/{id}/traces: the turns in order, numbered across pages', async () => {
    const seen: any[] = [];
    let cursor = '';
    do {
      const res = await call(
        tenantA,
        'GET',
        `/api/v2/threads/thread-b/traces?project_id=${projectA}&page_size=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.items);
      cursor = res.body.next_cursor ?? '';
    } while (cursor);
    expect(seen.map((t) => t.turn_number)).toEqual(threadB.map((_, i) => i + 1));
    expect(new Set(seen.map((t) => t.trace_id))).toEqual(new Set(threadB.map((m) => m.trace_id)));
    expect(seen[0]).toMatchObject({
      trace_id: threadB[0]!.trace_id,
      thread_id: 'thread-b',
      name: 'trace-1',
      latency: 2,
      total_tokens: 200,
      status: 'success',
      run_count: 3,
    });
    const picked = await call(
      tenantA,
      'GET',
      `/api/v2/threads/thread-b/traces?project_id=${projectA}&selects=TOTAL_TOKENS&page_size=1`,
    );
    expect(picked.body.items).toEqual([
      { trace_id: threadB[0]!.trace_id, total_tokens: 200, status: 'success', run_count: 3 },
    ]);
  });

  test('GET /threads/{id}/stats: turns, times, latency percentiles, tokens and errors', async () => {
    const res = await call(tenantA, 'GET', `/api/v2/threads/thread-a/stats?session_id=${projectA}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      turns: threadA.length,
      first_start_time: iso(threadA[0]!.start_time).replace('Z', '000Z'),
      total_tokens: threadA.reduce((s, m) => s + m.total_tokens, 0),
      num_errored_turns: threadA.filter((m) => m.status === 'error').length,
      error_count: threadA.filter((m) => m.status === 'error').length,
      run_count: 3 * threadA.length,
    });
    expect(res.body.latency_p50_seconds).toBeGreaterThan(0);
    const some = await call(
      tenantA,
      'GET',
      `/api/v2/threads/thread-a/stats?session_id=${projectA}&selects=TURNS&selects=FEEDBACK_STATS`,
    );
    const errored = threadA.filter((m) => m.status === 'error').length;
    expect(some.body).toEqual({
      turns: threadA.length,
      run_count: 3 * threadA.length,
      error_count: errored,
      num_errored_turns: errored,
    });
  });

  test("POST /threads/stats: aggregates over the traces of the project's threads in the window", async () => {
    const inThreads = made.filter((m) => m.thread_id !== '');
    const finished = inThreads.filter((m) => m.latency !== null);
    const streamed = finished.filter((m) => made.indexOf(m) % 2 === 0); // the fixture gives even traces a first token
    const res = await call(tenantA, 'POST', '/api/v2/threads/stats', {
      ...WINDOW,
      project_id: projectA,
      select: [
        'THREAD_COUNT',
        'TRACE_COUNT',
        'TOTAL_TOKENS',
        'PROMPT_TOKENS',
        'TOTAL_COST',
        'ERROR_RATE',
        'STREAMING_RATE',
        'LATENCY_P50',
        'MEDIAN_TOKENS',
        'PROMPT_TOKEN_DETAILS',
        'THREAD_FEEDBACK_STATS',
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      thread_count: 2,
      trace_count: inThreads.length,
      total_tokens: inThreads.reduce((s, m) => s + m.total_tokens, 0),
      prompt_tokens: inThreads.reduce((s, m) => s + 60 * (made.indexOf(m) + 1), 0),
      total_cost: expect.closeTo(
        inThreads.reduce((s, m) => s + m.total_cost, 0),
        9,
      ),
      error_rate: inThreads.filter((m) => m.status === 'error').length / inThreads.length,
      streaming_rate: streamed.length / finished.length,
      latency_p50_seconds: expect.any(Number),
      median_tokens: expect.any(Number),
    });
    // traces 0..3 of the window's start: 0 and 3 in thread a, 1 in thread b; trace 0 errored
    const early = await call(tenantA, 'POST', '/api/v2/threads/stats', {
      project_id: projectA,
      min_start_time: iso(T0),
      max_start_time: iso(T0 + 35 * MINUTE),
      select: ['THREAD_COUNT', 'TRACE_COUNT', 'ERROR_RATE'],
    });
    expect(early.body).toEqual({ thread_count: 2, trace_count: 3, error_rate: 1 / 3 });
    const none = await call(tenantA, 'POST', '/api/v2/threads/stats', {
      project_id: projectA,
      min_start_time: iso(T0 - 2 * HOUR),
      max_start_time: iso(T0 - HOUR),
      select: ['THREAD_COUNT', 'ERROR_RATE', 'LATENCY_P99'],
    });
    expect(none.body).toEqual({ thread_count: 0, error_rate: 0, latency_p99_seconds: null });
    expect(
      (await call(tenantB, 'POST', '/api/v2/threads/stats', { project_id: projectA, select: ['THREAD_COUNT'] })).status,
    ).toBe(404);
    for (const [body, status] of [
      [{ project_id: projectA }, 422],
      [{ project_id: projectA, select: [] }, 422],
      [{ project_id: projectA, select: ['NOPE'] }, 422],
      [{ select: ['TRACE_COUNT'] }, 422],
      [{ project_id: projectA, select: ['TRACE_COUNT'], filter: 'eq(status, "error")' }, 400],
    ] as const) {
      const bad = await call(tenantA, 'POST', '/api/v2/threads/stats', body);
      expect(bad.status, JSON.stringify(body)).toBe(status);
    }
  });

  test('404 for an unknown thread, another project, another workspace; 422 for a field not of its form, 400 for a filter', async () => {
    expect((await call(tenantA, 'GET', `/api/v2/threads/nope/traces?project_id=${projectA}`)).status).toBe(404);
    expect((await call(tenantA, 'GET', `/api/v2/threads/nope/stats?session_id=${projectA}`)).status).toBe(404);
    expect((await call(tenantA, 'GET', `/api/v2/threads/thread-a/stats?session_id=${projectB}`)).status).toBe(404);
    expect((await call(tenantB, 'GET', `/api/v2/threads/thread-b/traces?project_id=${projectA}`)).status).toBe(404);
    expect((await call(tenantB, 'POST', '/api/v2/threads/query', { project_id: projectA })).status).toBe(404);
    // thread-a exists in B too (one trace): B sees only its own
    const b = await call(tenantB, 'GET', `/api/v2/threads/thread-a/stats?session_id=${projectB}&selects=TURNS`);
    expect(b.body.turns).toBe(1);
    for (const [method, url, body, status] of [
      ['POST', '/api/v2/threads/query', {}, 422],
      ['POST', '/api/v2/threads/query', { project_id: projectA, filter: 'eq(status, "error")' }, 400],
      ['POST', '/api/v2/threads/query', { project_id: projectA, page_size: 'ten' }, 422],
      ['GET', '/api/v2/threads/thread-a/traces', undefined, 422],
      ['GET', `/api/v2/threads/thread-a/traces?project_id=${projectA}&page_size=1000`, undefined, 422],
      ['GET', `/api/v2/threads/thread-a/traces?project_id=${projectA}&selects=NOPE`, undefined, 422],
      ['GET', `/api/v2/threads/thread-a/stats?session_id=${projectA}&selects=NOPE`, undefined, 422],
      ['GET', '/api/v2/threads/thread-a/stats', undefined, 422],
    ] as const) {
      const res = await call(tenantA, method, url, body);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(status);
    }
  });
});

describe('project stats', () => {
  const completed = made.filter((m) => m.latency !== null);

  test('POST /runs/stats: run-stats figures, counts by run type and status, an hourly series', async () => {
    const res = await call(tenantA, 'POST', '/runs/stats', {
      session: [projectA],
      start_time: iso(T0),
      end_time: iso(T0 + 5 * HOUR),
      interval: 'hour',
    });
    expect(res.status).toBe(200);
    const s = res.body;
    const errored = made.filter((m) => m.status === 'error').length;
    expect(s).toMatchObject({
      trace_count: 25,
      run_count: 75,
      error_count: errored,
      trace_error_count: errored,
      run_type_counts: { chain: 25, llm: 50 },
      status_counts: { success: 75 - errored - 1, error: errored, pending: 1 },
      total_tokens: made.reduce((x, m) => x + m.total_tokens, 0),
      prompt_tokens: made.reduce((x, _m, i) => x + 60 * (i + 1), 0),
      interval: '1h',
    });
    expect(s.error_rate).toBeCloseTo(errored / 75, 9);
    expect(s.trace_error_rate).toBeCloseTo(errored / 25, 9);
    expect(s.streaming_rate).toBeCloseTo(13 / 25, 9);
    expect(s.latency_avg).toBeCloseTo(completed.reduce((x, m) => x + m.latency!, 0) / completed.length, 6);
    expect(s.latency_p50).toBeCloseTo(12.5, 6); // 24 latencies 1..24, interpolated median
    expect(s.first_token_p50).toBeCloseTo(0.5, 6);
    expect(s.total_cost).toBeCloseTo(
      made.reduce((x, m) => x + m.total_cost, 0),
      9,
    );
    // Five hourly buckets: six traces in each of the first three hours, then the 190-minute ties.
    expect(s.series.map((b: any) => [b.start_time, b.trace_count])).toEqual([
      [iso(T0).replace('Z', '000Z'), 6],
      [iso(T0 + HOUR).replace('Z', '000Z'), 6],
      [iso(T0 + 2 * HOUR).replace('Z', '000Z'), 6],
      [iso(T0 + 3 * HOUR).replace('Z', '000Z'), 7],
      [iso(T0 + 4 * HOUR).replace('Z', '000Z'), 0],
    ]);
    expect(s.series.reduce((x: number, b: any) => x + b.run_count, 0)).toBe(75);
    expect(s.series[4]).toMatchObject({ trace_count: 0, run_count: 0, error_rate: null, latency_p50: null });
  });

  test('is_root counts root runs only; error filters traces by their root', async () => {
    const roots = await call(tenantA, 'POST', '/runs/stats', {
      session: [projectA],
      start_time: iso(T0),
      is_root: true,
    });
    expect(roots.body).toMatchObject({
      run_count: 25,
      error_count: 5,
      run_type_counts: { chain: 25 },
      status_counts: { success: 19, error: 5, pending: 1 },
    });
    const failed = await call(tenantA, 'POST', '/runs/stats', {
      session: [projectA],
      start_time: iso(T0),
      error: true,
    });
    expect(failed.body.trace_count).toBe(5);
  });

  test('GET /sessions/{id}/stats: auto buckets from the first trace when no start is given', async () => {
    const res = await call(tenantA, 'GET', `/sessions/${projectA}/stats?end_time=${iso(T0 + 5 * HOUR)}`);
    expect(res.status).toBe(200);
    expect(res.body.trace_count).toBe(25);
    expect(res.body.interval).toBe('5m'); // five hours in at most 100 buckets
    expect(res.body.series).toHaveLength(60);
    expect(res.body.series.reduce((x: number, b: any) => x + b.trace_count, 0)).toBe(25);
    const daily = await call(
      tenantA,
      'GET',
      `/sessions/${projectA}/stats?start_time=${iso(T0)}&end_time=${iso(T0 + HOUR)}&bucket=1d`,
    );
    expect(daily.body.series).toHaveLength(1);
    expect(daily.body.series[0].trace_count).toBe(6);
  });

  test('an empty range is zeros, not an error', async () => {
    const res = await call(
      tenantA,
      'GET',
      `/sessions/${projectA}/stats?start_time=${iso(T0 - 3 * HOUR)}&end_time=${iso(T0 - 2 * HOUR)}&bucket=hour`,
    );
    expect(res.body).toMatchObject({
      trace_count: 0,
      run_count: 0,
      error_rate: null,
      latency_p50: null,
      median_tokens: null,
      run_type_counts: {},
      status_counts: {},
    });
    expect(res.body.series).toHaveLength(1);
  });

  test('another workspace is 404; a field not of its form is a 422, a request refused for what it asks a 400', async () => {
    expect((await call(tenantB, 'GET', `/sessions/${projectA}/stats`)).status).toBe(404);
    expect((await call(tenantB, 'POST', '/runs/stats', { session: [projectA] })).status).toBe(404);
    expect((await call(tenantA, 'POST', '/runs/stats', { session: [projectA, projectB] })).status).toBe(404);
    for (const [method, url, body, status] of [
      ['POST', '/runs/stats', {}, 422],
      ['POST', '/runs/stats', { session: [] }, 422],
      ['POST', '/runs/stats', { session: ['x'] }, 422],
      ['POST', '/runs/stats', { session: [projectA], interval: 'fortnight' }, 422],
      ['GET', `/sessions/${projectA}/stats?bucket=fortnight`, undefined, 422],
      ['GET', `/sessions/${projectA}/stats?start_time=soon`, undefined, 422],
      ['GET', '/sessions/not-a-uuid/stats', undefined, 422],
      ['POST', '/runs/stats', { session: [projectA], run_type: 'llm' }, 400],
      ['POST', '/runs/stats', { session: [projectA], filter: 'eq(name, "x")' }, 400],
      ['POST', '/runs/stats', { session: [projectA], is_root: false }, 400],
      ['POST', '/runs/stats', { session: [projectA], stride: { minutes: 0 } }, 400],
      ['POST', '/runs/stats', { session: [projectA], start_time: iso(T0), end_time: iso(T0 - HOUR) }, 400],
      [
        'POST',
        '/runs/stats',
        { session: [projectA], start_time: iso(T0 - 400 * 24 * HOUR), end_time: iso(T0), interval: 'minute' },
        400,
      ],
    ] as const) {
      const res = await call(tenantA, method, url, body);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(status);
      expect(res.body.detail).toBeTruthy();
    }
  });
});

test('the threads view sums a thread over all its traces, per workspace and project', async () => {
  const rows = await db.ch.query<Record<string, string>>(
    sql`SELECT thread_id, trace_count, total_tokens, toString(latest_root_run_id) AS latest FROM threads WHERE tenant_id = toUUID(${tenantA}) AND session_id = toUUID(${projectA}) ORDER BY thread_id`,
  );
  const threadA = made.filter((m) => m.thread_id === 'thread-a');
  expect(rows.map((r) => r.thread_id)).toEqual(['thread-a', 'thread-b']);
  expect(Number(rows[0]!.trace_count)).toBe(threadA.length);
  expect(Number(rows[0]!.total_tokens)).toBe(threadA.reduce((s, m) => s + m.total_tokens, 0));
  const lastStart = Math.max(...threadA.map((m) => m.start_time));
  expect(threadA.filter((m) => m.start_time === lastStart).map((m) => m.trace_id)).toContain(rows[0]!.latest);
});
