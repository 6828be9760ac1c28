// The thread page read from the newest hours of its window and its threads' own rows equals the
// page read from every trace of the window: the same threads, in the same order, with the same
// summaries, page after page; whatever the window, with a long trace whose run starts after
// newer traces' (its thread comes first though its trace is old), ties, threads whose ids sort
// differently by UTF-16 and by bytes, and traces that moved between threads and hours.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ident, raw, sql } from '../../../platform/clickhouse/sql.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import { HOUR_MICROS } from '../../../projections/shared/hours.ts';
import {
  threadPageQuery,
  threadTracesQuery,
  type ThreadPageKey,
  type ThreadSummary,
} from '../../../projections/threads/threadQueries.ts';
import { THREAD_SUMMARY_COLUMNS } from '../../../projections/threads/threadsView.ts';
import {
  fillTraceCopies,
  moveTraces,
  scratchDatabase,
  traceRow,
  type ScratchDatabase,
} from '../../services/tracing/traces/readModelFixture.ts';

const T = LIVE_TABLES;
const tenantId = randomUUID();
const projectId = randomUUID();
const H = HOUR_MICROS;
const BASE = Math.floor(Date.UTC(2026, 10, 20) / 3_600_000) * H;
const MINUTE = 60_000_000;
/** Thread ids that sort one way by UTF-16 code units and another by UTF-8 bytes (as ClickHouse does). */
const ODD_IDS = ['z-thread', '\u{1F600}-thread', '\uFF5E-thread', 'é-thread'];

let db: ScratchDatabase;
const threadIds: string[] = [];

beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!, 'thread_page');
  for (let i = 0; i < 60; i++)
    threadIds.push(i < ODD_IDS.length ? ODD_IDS[i]! : `thread-${String(i).padStart(2, '0')}`);
  const rows: Record<string, unknown>[] = [];
  // 400 traces over 30 hours, each thread's spread over them; runs start within a minute of the root.
  for (let i = 0; i < 400; i++) {
    const start = BASE + Math.floor((i * 30 * H) / 400) + 17;
    rows.push(
      traceRow({
        tenant_id: tenantId,
        trace_id: randomUUID(),
        session_id: projectId,
        thread_id: threadIds[(i * 7) % threadIds.length]!,
        start_time: start,
        last_run_start_time: start + (i % 5) * MINUTE,
        end_time: start + MINUTE + (i % 11) * 1_000_000,
        run_count: 1 + (i % 4),
        total_tokens: i,
        status: i % 9 === 0 ? 'error' : 'success',
      }),
    );
  }
  // An old trace whose last run starts after every other trace's: its thread's activity is the latest.
  rows.push(
    traceRow({
      tenant_id: tenantId,
      trace_id: randomUUID(),
      session_id: projectId,
      thread_id: 'long-running',
      start_time: BASE + 2 * H,
      last_run_start_time: BASE + 30 * H - 1,
    }),
  );
  // Two threads tied on activity, in the newest hour; traces outside any thread.
  for (const thread of ['tie-a', 'tie-b'])
    rows.push(
      traceRow({
        tenant_id: tenantId,
        trace_id: randomUUID(),
        session_id: projectId,
        thread_id: thread,
        start_time: BASE + 29 * H + 5,
        last_run_start_time: BASE + 30 * H - 2,
      }),
    );
  // The odd ids tied too: their order (and the page key past them) is by bytes.
  for (const [k, thread] of ODD_IDS.entries())
    rows.push(
      traceRow({
        tenant_id: tenantId,
        trace_id: randomUUID(),
        session_id: projectId,
        thread_id: thread,
        start_time: BASE + 28 * H + k,
        last_run_start_time: BASE + 30 * H - 3,
      }),
    );
  for (let i = 0; i < 20; i++)
    rows.push(
      traceRow({ tenant_id: tenantId, trace_id: randomUUID(), session_id: projectId, start_time: BASE + i * H + 3 }),
    );
  // Another project's threads, newer than all.
  rows.push(
    traceRow({
      tenant_id: tenantId,
      trace_id: randomUUID(),
      session_id: randomUUID(),
      thread_id: 'thread-01',
      start_time: BASE + 29 * H + 7,
      last_run_start_time: BASE + 31 * H,
    }),
  );
  await db.ch.insert(T.traces, rows);
  await fillTraceCopies(db.ch);

  // Moves, written as the projector writes them: tombstones where the trace was, then its new rows.
  const [a, b] = rows
    .filter((r) => r.thread_id === 'thread-05')
    .sort((x, y) => Number(y.start_time) - Number(x.start_time));
  // One leaves thread-05 for thread-06 (a root naming another thread); one moves 20 hours back, into another thread too.
  await moveTraces(db.ch, [
    { row: a!, change: { thread_id: 'thread-06' } },
    {
      row: b!,
      change: { thread_id: 'thread-07', start_time: BASE + 4 * H + 9, last_run_start_time: BASE + 4 * H + 9 },
    },
  ]);
});
afterAll(() => db?.drop());

/** Every thread of the window, from every trace of `traces`, in page order. */
async function everyThread(min: number, max: number): Promise<Array<Record<string, unknown>>> {
  return db.ch.query(
    sql`SELECT thread_id, ${raw(THREAD_SUMMARY_COLUMNS.join(', '))}, quantiles(0.5, 0.99)((end_time - start_time) / 1000000) AS latency
        FROM ${ident(T.traces)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId}) AND thread_id != '' AND start_time >= ${min} AND start_time < ${max}
        GROUP BY thread_id ORDER BY last_activity DESC, thread_id DESC`,
  );
}

async function everyPage(min: number, max: number, limit: number): Promise<ThreadSummary[]> {
  const out: ThreadSummary[] = [];
  let after: ThreadPageKey | undefined;
  for (;;) {
    const page = await threadPageQuery(db.ch, T, {
      tenantId,
      projectId,
      minStartTime: min,
      maxStartTime: max,
      after,
      limit,
    });
    out.push(...page);
    if (page.length < limit) return out;
    const last = page[page.length - 1]!;
    after = { lastActivity: last.last_activity, threadId: last.thread_id };
  }
}

test('page after page, the threads of any window are those every trace of it names, in order, with the same summaries', async () => {
  const windows: Array<[number, number]> = [
    [BASE, BASE + 30 * H],
    [BASE - 5 * H, BASE + 40 * H],
    [BASE + 3 * H + 7 * MINUTE, BASE + 17 * H + 31 * MINUTE],
    [BASE + 29 * H, BASE + 30 * H],
    [BASE + 2 * H, BASE + 2 * H + 1],
    [BASE + 40 * H, BASE + 41 * H],
  ];
  for (const [min, max] of windows) {
    const want = await everyThread(min, max);
    for (const limit of [1, 7, 500]) {
      const got = await everyPage(min, max, limit);
      expect(
        got.map((t) => t.thread_id),
        `${min}..${max} by ${limit}`,
      ).toEqual(want.map((t) => t.thread_id));
      got.forEach((t, i) => {
        const w = want[i]!;
        expect(
          {
            last: t.last_activity,
            traces: t.trace_count,
            runs: t.run_count,
            errored: t.errored_traces,
            tokens: t.total_tokens,
            p50: t.latency_p50,
          },
          t.thread_id,
        ).toEqual({
          last: Number(w.last_activity),
          traces: Number(w.trace_count),
          runs: Number(w.run_count),
          errored: Number(w.errored_traces),
          tokens: Number(w.total_tokens),
          p50: (w.latency as number[])[0],
        });
      });
    }
  }
  // The old trace's thread is first; the moved traces count where they are now.
  const first = await threadPageQuery(db.ch, T, {
    tenantId,
    projectId,
    minStartTime: BASE,
    maxStartTime: BASE + 30 * H,
    limit: 3,
  });
  expect(first.map((t) => t.thread_id)).toEqual(['long-running', 'tie-b', 'tie-a']);
  const odd = await threadPageQuery(db.ch, T, {
    tenantId,
    projectId,
    minStartTime: BASE,
    maxStartTime: BASE + 30 * H,
    after: { lastActivity: BASE + 30 * H - 2, threadId: 'tie-a' },
    limit: 4,
  });
  expect(odd.map((t) => t.thread_id)).toEqual(
    ['\u{1F600}-thread', '\uFF5E-thread', 'z-thread', 'é-thread'].sort((a, b) =>
      Buffer.compare(Buffer.from(b), Buffer.from(a)),
    ),
  );
});

test("a thread's traces are its own, oldest first, page after page, moved ones where they are now", async () => {
  for (const threadId of ['thread-05', 'thread-06', 'thread-07', '\u{1F600}-thread']) {
    const want = await db.ch.query<{ id: string }>(
      sql`SELECT toString(trace_id) AS id FROM ${ident(T.traces)} FINAL
          WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId}) AND thread_id = ${threadId} ORDER BY start_time, trace_id`,
    );
    const got: string[] = [];
    let after: { startTime: number; traceId: string } | undefined;
    for (;;) {
      const page = await threadTracesQuery(db.ch, T, { tenantId, projectId, threadId, after, limit: 3 });
      got.push(...page.map((t) => t.trace_id));
      if (page.length < 3) break;
      after = { startTime: page[2]!.start_time, traceId: page[2]!.trace_id };
    }
    expect(got, threadId).toEqual(want.map((r) => r.id));
    expect(got.length).toBeGreaterThan(0);
  }
});
