// The /runs/query read path (request -> conditions -> two-phase page -> response) on rows
// inserted straight into a scratch database, checked against what ClickHouse's FINAL says:
// keyset pages cover every matching run exactly once, in order, also when unmerged older
// versions match the filter (stale candidates) and when runs arrive between pages.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { v4 as uuidv4 } from 'uuid';
import { sql, raw } from '../../../../platform/clickhouse/sql.ts';
import type { BlobStore } from '../../../../platform/blobStore.ts';
import { LIVE_TABLES } from '../../../../projections/readModelTables.ts';
import type { RunRow } from '../../../../projections/shared/runRow.ts';
import { queryRuns } from '../../../../services/tracing/query/queryRuns.ts';
import { runsQueryFromBody, runsQueryFromV2Body } from '../../../../services/tracing/query/runsQueryRequest.ts';
import { runItemV2 } from '../../../../services/tracing/read/runResponse.ts';
import { formatDottedTimestamp, formatIsoMicros } from '../../../../platform/time.ts';
import { insertFeedback, insertRuns, runRow, scratchDatabase, type ScratchDatabase } from './scratchDatabase.ts';

const T = 'aaaaaaaa-1111-4000-8000-000000000000';
const OTHER = 'bbbbbbbb-1111-4000-8000-000000000000';
const P1 = 'c1c1c1c1-0000-4000-8000-000000000001';
const P2 = 'c2c2c2c2-0000-4000-8000-000000000002';
const t0 = Date.UTC(2024, 5, 1) * 1000;

let db: ScratchDatabase;
const deps = () => ({ ch: db.ch, blobs: {} as BlobStore, tables: LIVE_TABLES });
const query = (body: Record<string, unknown>, tenant = T) => queryRuns(deps(), tenant, runsQueryFromBody(body));

/** Every page, following cursors.next, as queryRuns answers them. */
async function allPages(
  body: Record<string, unknown>,
  between?: (page: number) => Promise<void>,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await query({ ...body, cursor });
    pages++;
    expect(page.runs.length).toBeGreaterThan(0); // clients stop at an empty page
    ids.push(...page.runs.map((r) => r.id as string));
    cursor = page.next;
    if (between && cursor) await between(pages);
  } while (cursor);
  return { ids, pages };
}

/** The ids of every page of a workspace's query, following cursors.next (through `ch` when given). */
async function idsOfEveryPage(body: Record<string, unknown>, tenant: string, ch = db.ch): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await queryRuns({ ...deps(), ch }, tenant, runsQueryFromBody({ ...body, cursor, select: ['id'] }));
    ids.push(...page.runs.map((r) => r.id as string));
    cursor = page.next;
  } while (cursor);
  return ids;
}

/** The scratch database's client, counting the queries whose SQL contains `text`. */
function countingQueries(text: string): { ch: typeof db.ch; count: () => number } {
  let n = 0;
  const ch = new Proxy(db.ch, {
    get: (target, prop, receiver) =>
      prop !== 'query'
        ? Reflect.get(target, prop, receiver)
        : (statement: { text: string }) => {
            if (statement.text.includes(text)) n++;
            return target.query(statement as never);
          },
  });
  return { ch, count: () => n };
}

/** What FINAL says, in the same order (of workspace T unless another is given). */
async function oracle(where: string, order: 'asc' | 'desc' = 'desc', tenant = T): Promise<string[]> {
  const rows = await db.ch.query<{ id: string }>(
    sql`SELECT id FROM runs FINAL WHERE tenant_id = toUUID(${tenant}) AND has_post = 1 AND ${raw(where)} ORDER BY start_time ${raw(order)}, id ${raw(order)}`,
  );
  return rows.map((r) => r.id);
}

// 60 traces of 5 runs in two projects; many runs share a start time (ties go by id).
const traces: RunRow[][] = [];
beforeAll(async () => {
  db = await scratchDatabase('query_runs');
  for (let t = 0; t < 60; t++) {
    const rootId = uuidv4();
    const start = t0 + Math.floor(t / 3) * 1_000_000; // three traces start at the same microsecond
    const rootOrder = formatDottedTimestamp(start) + rootId;
    const trace: RunRow[] = [];
    for (let k = 0; k < 5; k++) {
      const id = k === 0 ? rootId : uuidv4();
      const at = start + (k > 0 ? 1000 : 0); // the children of a trace tie too
      trace.push(
        runRow(T, {
          id,
          trace_id: rootId,
          parent_run_id: k === 0 ? null : rootId,
          session_id: t % 2 ? P2 : P1,
          dotted_order: k === 0 ? rootOrder : `${rootOrder}.${formatDottedTimestamp(at)}${id}`,
          name: k === 0 ? 'agent' : `step-${k}`,
          run_type: k === 0 ? 'chain' : 'llm',
          start_time: at,
          end_time: at + (k + 1) * 1_000_000,
          error: (t * 5 + k) % 7 === 0 ? 'boom' : null,
          inputs: JSON.stringify({ t, k }),
          outputs: '{"ok":true}',
          tags: k === 2 ? ['two'] : [],
          thread_id: k === 0 ? `thread-${t % 4}` : '',
          metadata_keys: ['t'],
          metadata_values: [String(t)],
        }),
      );
    }
    traces.push(trace);
  }
  await insertRuns(db.ch, traces.flat());
  // Newer versions in their own part: every 3rd run flips its error (stale rows then match
  // eq(status, …) the other way round until ClickHouse merges).
  const flipped = traces
    .flat()
    .filter((_, i) => i % 3 === 0)
    .map((r) => runRow(T, { ...r, error: r.error ? null : 'late failure', version: 2 }));
  await insertRuns(db.ch, flipped);
  // Another workspace with the very same run ids.
  await insertRuns(
    db.ch,
    traces
      .flat()
      .slice(0, 20)
      .map((r) => ({ ...r, tenant_id: OTHER })),
  );
  const root = traces[0]![0]!;
  await insertFeedback(db.ch, [
    { tenant_id: T, run_id: root.id, id: uuidv4(), key: 'correctness', score: 1 },
    { tenant_id: T, run_id: root.id, id: uuidv4(), key: 'correctness', score: 0 },
    { tenant_id: T, run_id: root.id, id: uuidv4(), key: 'vibe', score: null, value: '"good"' },
    { tenant_id: OTHER, run_id: root.id, id: uuidv4(), key: 'correctness', score: 1 },
  ]);
});
afterAll(() => db?.drop());

describe('keyset pages', () => {
  test.each([
    ['desc, project 1', { session: [P1] }, `session_id = toUUID('${P1}')`, 'desc'],
    ['asc, all projects', { order: 'asc' }, '1', 'asc'],
    [
      'errored runs (stale versions match the other way)',
      { filter: 'eq(status, "error")' },
      "status = 'error'",
      'desc',
    ],
    ['successful runs, ascending', { filter: 'eq(status, "success")', order: 'asc' }, "status = 'success'", 'asc'],
    ['roots of project 2', { session: [P2], is_root: true }, `session_id = toUUID('${P2}') AND is_root = 1`, 'desc'],
  ] as const)(
    '%s: every run exactly once, in order',
    async (_name, body, where, order) => {
      for (const limit of [1, 7, 100]) {
        const { ids } = await allPages({ ...body, limit, select: ['id'] });
        expect(ids).toEqual(await oracle(where, order));
      }
      // A page a query, one run a page at limit 1: 6-8 s on a quiet machine, over 60 s with both
      // cores busy besides the suite's two workers.
    },
    240_000,
  );

  test('a page full of stale candidates still fills (exact fallback)', async () => {
    // All of the newest 20 runs got a second version "late failure"; older ones are genuinely errored.
    const { ids } = await allPages({ filter: 'neq(error, "late failure")', limit: 5, select: ['id'] });
    expect(ids).toEqual(await oracle("(isNull(error) OR error != 'late failure')"));
  });

  test('runs arriving between pages are neither lost nor repeated', async () => {
    const before = await oracle(`session_id = toUUID('${P1}')`, 'asc');
    const arrived: string[] = [];
    const arrive = async () => {
      const id = uuidv4();
      arrived.push(id);
      // Newer than everything so far (ascending pages reach it; descending pages already passed it).
      await insertRuns(db.ch, [
        runRow(T, {
          id,
          session_id: P1,
          name: 'late',
          run_type: 'chain',
          start_time: t0 + 3_600_000_000 + arrived.length,
          end_time: null,
        }),
      ]);
    };
    const asc = await allPages({ session: [P1], order: 'asc', limit: 9, select: ['id'] }, arrive);
    expect(asc.ids).toEqual([...before, ...arrived]);
    expect(new Set(asc.ids).size).toBe(asc.ids.length);

    const snapshot = await oracle(`session_id = toUUID('${P1}')`, 'desc');
    const desc = await allPages({ session: [P1], limit: 9, select: ['id'] }, arrive);
    expect(desc.ids).toEqual(snapshot);
  });

  test('a cursor is bound to its order, and must be one we issued', async () => {
    const page = await query({ limit: 2 });
    expect(() => runsQueryFromBody({ cursor: page.next, order: 'asc' })).toThrow(/issued for order "desc"/);
    expect(() => runsQueryFromBody({ cursor: 'bm9wZQ' })).toThrow(/not a cursor this service issued/);
  });
});

describe('recent runs (phase 1 looks at the last minutes first)', () => {
  // Another workspace, runs started from now back over 40 minutes (past the first look's
  // window), ties included; newer versions flip errors, and some move their start 20 minutes
  // earlier, across the window's edge.
  const R = 'dddddddd-1111-4000-8000-000000000000';
  const now = Date.now() * 1000;
  beforeAll(async () => {
    const rows: RunRow[] = [];
    for (let t = 0; t < 16; t++) {
      const rootId = uuidv4();
      for (let k = 0; k < 5; k++) {
        const at = now - (t * 5 + Math.floor(k / 2)) * 30_000_000; // 30 s apart, pairs tie
        rows.push(
          runRow(R, {
            id: k === 0 ? rootId : uuidv4(),
            trace_id: rootId,
            session_id: P1,
            name: `r${t}.${k}`,
            run_type: 'llm',
            start_time: at,
            end_time: at + 1000,
            error: (t + k) % 4 === 0 ? 'boom' : null,
          }),
        );
      }
    }
    await insertRuns(db.ch, rows);
    const newer = rows
      .filter((_, i) => i % 3 === 0)
      .map((r, i) =>
        runRow(R, {
          ...r,
          error: r.error ? null : 'late',
          start_time: i % 2 ? r.start_time - 1_200_000_000 : r.start_time,
          version: 2,
        }),
      );
    await insertRuns(db.ch, newer);
  });

  test.each([
    ['all', {}, '1'],
    ['errored (stale versions match the other way)', { filter: 'eq(status, "error")' }, "status = 'error'"],
    ['not errored', { error: false }, 'isNull(error)'],
  ] as const)('%s: every run exactly once, in order', async (_name, body, where) => {
    const expected = await oracle(where, 'desc', R);
    expect(expected.length).toBeGreaterThan(10);
    for (const limit of [1, 3, 7, 100]) expect(await idsOfEveryPage({ ...body, limit }, R)).toEqual(expected);
  });
});

describe('trace conditions (the first look bounds them by the time span of its traces)', () => {
  // 12 traces of 6 runs from the last 20 seconds, their runs interleaved in time; traces
  // t % 3 == 0 have a "marker" run among them, traces t % 3 == 1 one that started 2 hours
  // earlier (outside every early look).
  const M = 'eeeeeeee-1111-4000-8000-000000000000';
  const now = Date.now() * 1000;
  beforeAll(async () => {
    const rows: RunRow[] = [];
    for (let t = 0; t < 12; t++) {
      const rootId = uuidv4();
      const start = now - t * 1_000_000;
      for (let k = 0; k < 6; k++)
        rows.push(
          runRow(M, {
            id: k === 0 ? rootId : uuidv4(),
            trace_id: rootId,
            parent_run_id: k === 0 ? null : rootId,
            session_id: P1,
            name: k === 0 ? 'root' : `step-${k}`,
            run_type: 'llm',
            start_time: start + k * 1_500_000,
            end_time: null,
          }),
        );
      if (t % 3 !== 2)
        rows.push(
          runRow(M, {
            id: uuidv4(),
            trace_id: rootId,
            parent_run_id: rootId,
            session_id: P1,
            name: 'marker',
            run_type: 'tool',
            start_time: t % 3 === 0 ? start + 700_000 : start - 7_200_000_000 - t * 600_000_000,
            end_time: null,
          }),
        );
    }
    await insertRuns(db.ch, rows);
  });

  test.each([
    [
      'tree_filter',
      { tree_filter: 'eq(name, "marker")' },
      "trace_id IN (SELECT trace_id FROM runs FINAL WHERE tenant_id = toUUID('M') AND has_post = 1 AND name = 'marker')",
    ],
    [
      'filter, trace_filter and tree_filter',
      { filter: 'eq(run_type, "llm")', trace_filter: 'eq(name, "root")', tree_filter: 'eq(name, "marker")' },
      "run_type = 'llm' AND trace_id IN (SELECT trace_id FROM runs FINAL WHERE tenant_id = toUUID('M') AND has_post = 1 AND is_root = 1 AND name = 'root') " +
        "AND trace_id IN (SELECT trace_id FROM runs FINAL WHERE tenant_id = toUUID('M') AND has_post = 1 AND name = 'marker')",
    ],
  ] as const)('%s: every run exactly once, in order', async (_name, body, where) => {
    const expected = await oracle(where.replaceAll("'M'", `'${M}'`), 'desc', M);
    expect(expected.length).toBeGreaterThan(40);
    const bounded = countingQueries('AS first_start');
    for (const limit of [1, 3, 7, 100])
      expect(await idsOfEveryPage({ ...body, limit }, M, bounded.ch)).toEqual(expected);
    expect(bounded.count()).toBeGreaterThan(0);
  });

  test('candidates stop at the last of the newest runs: a trace past them is not judged by their span', async () => {
    // The newest runs: trace A's root and marker, then trace C's (no marker). Then trace B,
    // whose marker started 2 hours earlier, and only then more of A. Bounded by A's and C's
    // span, B would not match; its runs must still come before A's older ones.
    const N = 'ffffffff-1111-4000-8000-000000000000';
    const [a, b, c] = [uuidv4(), uuidv4(), uuidv4()];
    const run = (trace: string, id: string, name: string, ago: number) =>
      runRow(N, {
        id,
        trace_id: trace,
        parent_run_id: id === trace ? null : trace,
        session_id: P1,
        name,
        run_type: 'llm',
        start_time: now - ago,
        end_time: null,
      });
    await insertRuns(db.ch, [
      run(a, a, 'root', 100_000),
      run(a, uuidv4(), 'marker', 200_000),
      ...Array.from({ length: 10 }, (_, i) => run(a, uuidv4(), 'step', 30_000_000 + i * 100_000)),
      ...Array.from({ length: 10 }, (_, i) => run(c, i === 0 ? c : uuidv4(), 'step', 1_000_000 + i * 100_000)),
      run(b, b, 'root', 20_000_000),
      run(b, uuidv4(), 'marker', 7_200_000_000),
      ...Array.from({ length: 5 }, (_, i) => run(b, uuidv4(), 'step', 20_100_000 + i * 100_000)),
    ]);
    const expected = await oracle(
      `trace_id IN (SELECT trace_id FROM runs FINAL WHERE tenant_id = toUUID('${N}') AND has_post = 1 AND name = 'marker')`,
      'desc',
      N,
    );
    expect(expected.length).toBe(19);
    for (const limit of [1, 3, 7, 100])
      expect(await idsOfEveryPage({ tree_filter: 'eq(name, "marker")', limit }, N)).toEqual(expected);
  });
});

describe("thread filters (phase 1 takes the threads' runs from run_threads)", () => {
  // 4 threads of 30 runs each, spread at random over 30 days, among 120 runs of no thread.
  // Later versions: some runs change thread at their place, some move (a tombstone where they
  // were, as the projector writes it), some lose their thread; run_threads keeps every place
  // and thread each had.
  const H = '99999999-1111-4000-8000-000000000000';
  const now = Date.now() * 1000;
  const DAY = 86_400_000_000;
  beforeAll(async () => {
    const rows: RunRow[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 240; i++) {
      const id = uuidv4();
      const thread = i % 2 ? '' : `thread-${(i / 2) % 4}`;
      rows.push(
        runRow(H, {
          id,
          trace_id: i % 3 === 0 ? id : rows[rows.length - 1]!.trace_id,
          session_id: i % 5 === 0 ? P2 : P1,
          name: `run-${i}`,
          run_type: 'llm',
          start_time: now - Math.floor(random() * 30 * DAY),
          end_time: null,
          thread_id: thread,
        }),
      );
    }
    for (const r of rows) r.is_root = r.trace_id === r.id ? 1 : 0;
    await insertRuns(db.ch, rows);
    const later: RunRow[] = [];
    rows.forEach((r, i) => {
      if (i % 7 === 0)
        later.push({ ...r, thread_id: r.thread_id === 'thread-1' ? 'thread-2' : 'thread-1', version: 3 }); // another thread, same place
      else if (i % 11 === 0) {
        later.push({ ...r, has_post: 0, version: 2 }); // the tombstone where it was
        later.push({ ...r, start_time: r.start_time - 3 * DAY, version: 3 });
      } else if (i % 13 === 0) later.push({ ...r, thread_id: '', version: 3 });
    });
    await insertRuns(db.ch, later);
  });

  test.each([
    ['eq', { filter: 'eq(thread_id, "thread-1")' }, "thread_id = 'thread-1'"],
    [
      'in, one project',
      { session: [P1], filter: 'in(thread_id, ["thread-1", "thread-2"])' },
      `thread_id IN ('thread-1', 'thread-2') AND session_id = toUUID('${P1}')`,
    ],
    [
      'or, with roots',
      { is_root: true, filter: 'or(eq(thread_id, "thread-0"), eq(thread_id, "thread-3"))' },
      "thread_id IN ('thread-0', 'thread-3') AND is_root = 1",
    ],
    [
      'and with other conditions',
      { filter: 'and(eq(run_type, "llm"), eq(thread_id, "thread-2"), gt(start_time, "2020-01-01T00:00:00Z"))' },
      "thread_id = 'thread-2'",
    ],
  ] as const)('%s: every run exactly once, in order', async (_name, body, where) => {
    const expected = await oracle(where, 'desc', H);
    expect(expected.length).toBeGreaterThan(10);
    const byThread = countingQueries('FROM `run_threads`');
    for (const limit of [1, 3, 7, 100])
      expect(await idsOfEveryPage({ ...body, limit }, H, byThread.ch)).toEqual(expected);
    expect(byThread.count()).toBeGreaterThan(0);
  });

  test('ascending pages, and a thread no run names', async () => {
    const expected = await oracle("thread_id = 'thread-0'", 'asc', H);
    for (const limit of [1, 5, 100])
      expect(await idsOfEveryPage({ filter: 'eq(thread_id, "thread-0")', order: 'asc', limit }, H)).toEqual(expected);
    expect(await idsOfEveryPage({ filter: 'eq(thread_id, "no-such-thread")' }, H)).toEqual([]);
  });
});

describe('request fields', () => {
  const trace = () => traces[4]!;
  const idsOf = async (body: Record<string, unknown>) =>
    (await query({ ...body, select: ['id'] })).runs.map((r) => r.id).sort();

  test('id, trace, parent_run, run_type, is_root, error, start_time/end_time, reference_example', async () => {
    const [root, a, b] = trace() as [RunRow, RunRow, RunRow];
    expect(await idsOf({ id: [a.id, b.id] })).toEqual([a.id, b.id].sort());
    expect(await idsOf({ trace: root.id })).toEqual(
      trace()
        .map((r) => r.id)
        .sort(),
    );
    expect(await idsOf({ parent_run: root.id })).toEqual(
      trace()
        .slice(1)
        .map((r) => r.id)
        .sort(),
    );
    expect(await idsOf({ trace: root.id, is_root: true })).toEqual([root.id]);
    expect(await idsOf({ trace: root.id, is_root: 0 })).toEqual(
      trace()
        .slice(1)
        .map((r) => r.id)
        .sort(),
    );
    expect(await idsOf({ trace: root.id, run_type: 'chain' })).toEqual([root.id]);
    expect(await idsOf({ trace: root.id, error: true })).toEqual(
      (await oracle(`trace_id = toUUID('${root.id}') AND isNotNull(error)`)).sort(),
    );
    expect(await idsOf({ trace: root.id, error: false })).toEqual(
      (await oracle(`trace_id = toUUID('${root.id}') AND isNull(error)`)).sort(),
    );
    const iso = formatIsoMicros;
    expect(await idsOf({ trace: root.id, start_time: iso(root.start_time + 1) })).toEqual(
      trace()
        .slice(1)
        .map((r) => r.id)
        .sort(),
    );
    expect(await idsOf({ trace: root.id, end_time: iso(root.start_time) })).toEqual([root.id]);
    expect(await idsOf({ trace: root.id, reference_example: uuidv4() })).toEqual([]);
    expect(await idsOf({ trace: root.id, reference_example: [] })).toEqual([]);
    expect(await idsOf({ id: [] })).toEqual([]);
    expect(await idsOf({ trace: root.id, filter: `in(parent_run_id, ["${root.id}"])` })).toEqual(
      trace()
        .slice(1)
        .map((r) => r.id)
        .sort(),
    );
  });

  test('another workspace sees none of these runs', async () => {
    const [root] = trace() as [RunRow];
    expect((await query({ trace: root.id }, 'cccccccc-0000-4000-8000-000000000000')).runs).toEqual([]);
  });

  test('select returns the fields asked for (and what the Python Run model requires)', async () => {
    const [root] = trace() as [RunRow];
    const { runs } = await query({ trace: root.id, is_root: true, select: ['thread_id', 'inputs'] });
    expect(runs).toEqual([
      {
        id: root.id,
        trace_id: root.id,
        name: 'agent',
        run_type: 'chain',
        start_time: expect.stringMatching(/^2024-06-01T/),
        thread_id: 'thread-0',
        inputs: { t: 4, k: 0 },
      },
    ]);
  });

  test('the default fields: feedback_stats of this workspace only, parent_run_ids, app_path', async () => {
    const [root] = traces[0] as [RunRow];
    const { runs } = await query({ trace: root.id, order: 'asc' });
    const [r, c] = runs as [Record<string, any>, Record<string, any>];
    expect(r).toMatchObject({
      id: root.id,
      is_root: true,
      parent_run_ids: [],
      app_path: `/o/${T}/projects/p/${root.session_id}/r/${root.id}?poll=true`,
      thread_id: 'thread-0',
      outputs: { ok: true },
    });
    expect(r.feedback_stats).toEqual({
      correctness: { n: 2, avg: 0.5, stdev: 0.5, errors: 0, values: {} },
      vibe: { n: 1, avg: null, stdev: null, errors: 0, values: { good: 1 } },
    });
    expect(c).toMatchObject({
      parent_run_id: root.id,
      parent_run_ids: [root.id],
      feedback_stats: null,
      is_root: false,
    });
  });

  test('v2: project_ids, selects, items', async () => {
    const [root] = traces[0] as [RunRow];
    const v2 = runsQueryFromV2Body({
      project_ids: [P1],
      trace_id: root.id,
      is_root: true,
      selects: ['ID', 'PROJECT_ID', 'LATENCY_SECONDS', 'METADATA', 'FEEDBACK_STATS'],
      min_start_time: '2024-01-01T00:00:00Z',
    });
    const page = await queryRuns(deps(), T, v2.query);
    expect(page.runs.map((r) => runItemV2(r, v2.selects))).toEqual([
      {
        id: root.id,
        project_id: P1,
        latency_seconds: 1,
        metadata: null,
        feedback_stats: expect.objectContaining({ correctness: expect.objectContaining({ n: 2 }) }),
      },
    ]);
    // min_start_time defaults to a day ago: these 2024 runs are older.
    expect((await queryRuns(deps(), T, runsQueryFromV2Body({ project_ids: [P1] }).query)).runs).toEqual([]);
  });

  test('a filter naming an unknown field is refused before any query runs', async () => {
    await expect(query({ filter: 'and(eq(name, "x"), eq(nope, 1))' })).rejects.toThrow(
      /filter: unknown field "nope" at position 23/,
    );
    await expect(query({ tree_filter: 'gt(name, "x")' })).rejects.toThrow(/tree_filter: gt\(\) does not apply to name/);
  });

  test('filters whose SQL would not fit a ClickHouse query are refused', async () => {
    const big = `search("${'x'.repeat(30_000)}")`;
    await expect(query({ filter: big, trace_filter: big, tree_filter: big })).rejects.toThrow(
      /the filters and ids are too large together/,
    );
  });

  test('bad requests: an error naming the field (422 for a field of the wrong form, 400 for a filter)', () => {
    expect(() => runsQueryFromBody({ session: ['nope'] })).toThrow(/session\[0\] is not a UUID: "nope"/);
    expect(() => runsQueryFromBody({ start_time: 'yesterday' })).toThrow(/start_time is not an ISO 8601 timestamp/);
    expect(() => runsQueryFromBody({ select: ['id', 'bogus'] })).toThrow(/select: unknown field "bogus"/);
    expect(() => runsQueryFromBody({ trace_filter: 'eq(name' })).toThrow(/^trace_filter: /);
    expect(runsQueryFromBody({ limit: 5000 }).limit).toBe(100);
    expect(runsQueryFromBody({ filter: '  ' }).filter).toBeNull();
    // (An is_root other than true, false, 1 or 0, and a v2 query without project_ids, are refused
    // by the routes' schemas: runsQueryRoute.test.ts.)
  });
});
