// Pages of a project's traces read from the copies of the trace rows (by start time, the window's
// hours from the page's end; by another order, the window's range of traces_by_hour; within a
// thread, its range of traces_by_thread) equal the pages read from every trace row: the same
// traces in the same order, page after page, either way, with traces that moved hour.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ident, join, raw, sql } from '../../../platform/clickhouse/sql.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import { HOUR_MICROS } from '../../../projections/shared/hours.ts';
import {
  tracePageQuery,
  type SortOrder,
  type TracePageKey,
  type TracePageQuery,
  type TraceSort,
} from '../../../projections/traces/traceQueries.ts';
import {
  fillTraceCopies,
  moveTraces,
  scratchDatabase,
  traceRow,
  type ScratchDatabase,
} from '../../services/tracing/traces/readModelFixture.ts';

const T = LIVE_TABLES;
const tenantId = randomUUID();
const projects = [randomUUID(), randomUUID()];
const H = HOUR_MICROS;
const BASE = Math.floor(Date.UTC(2026, 10, 21) / 3_600_000) * H;

let db: ScratchDatabase;

beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!, 'trace_pages');
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < 300; i++) {
    // 40 hours with gaps (no trace in hours 10–14); some start at the same microsecond.
    const hour = i % 40 >= 10 && i % 40 < 15 ? 20 : i % 40;
    const start = BASE + hour * H + (i % 7) * 60_000_000;
    rows.push(
      traceRow({
        tenant_id: tenantId,
        trace_id: randomUUID(),
        session_id: projects[i % 5 === 0 ? 1 : 0]!,
        thread_id: `thread-${i % 4}`,
        start_time: start,
        end_time: start + (i % 13) * 1_000_000,
        total_tokens: (i * 37) % 101,
        total_cost: ((i * 53) % 17) / 100,
        status: i % 6 === 0 ? 'error' : 'success',
      }),
    );
  }
  await db.ch.insert(T.traces, rows);
  await fillTraceCopies(db.ch);
  // Three traces move 30 hours earlier (a root posted after its child), as the projector writes it.
  await moveTraces(
    db.ch,
    rows
      .filter((r) => r.session_id === projects[0])
      .slice(-3)
      .map((row) => ({ row, change: { start_time: Number(row.start_time) - 30 * H } })),
  );
});
afterAll(() => db?.drop());

const SORT_SQL: Record<TraceSort, string> = {
  start_time: 'start_time',
  latency: 'ifNull(end_time - start_time, -1)',
  total_tokens: 'toInt64(total_tokens)',
  total_cost: 'toInt64(round(total_cost * 1000000000))',
};

/** Every trace of the query, from every trace row, in page order. */
async function everyTrace(q: Omit<TracePageQuery, 'limit' | 'after'>): Promise<string[]> {
  const dir = (q.order ?? 'desc') === 'desc' ? 'DESC' : 'ASC';
  const rows = await db.ch.query<{ id: string }>(
    sql`SELECT toString(trace_id) AS id FROM ${ident(T.traces)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND session_id IN (${join(q.projectIds.map((p) => sql`toUUID(${p})`))})
          AND start_time >= ${q.minStartTime} AND start_time < ${q.maxStartTime}
          ${q.threadId === undefined ? raw('') : sql`AND thread_id = ${q.threadId}`}
        ORDER BY ${raw(SORT_SQL[q.sortBy ?? 'start_time'])} ${raw(dir)}, trace_id ${raw(dir)}`,
  );
  return rows.map((r) => r.id);
}

async function everyPage(q: Omit<TracePageQuery, 'limit' | 'after'>, limit: number): Promise<string[]> {
  const out: string[] = [];
  let after: TracePageKey | undefined;
  for (;;) {
    const page = await tracePageQuery(db.ch, T, { ...q, after, limit });
    out.push(...page.map((t) => t.trace.trace_id));
    if (page.length < limit) return out;
    const last = page[page.length - 1]!;
    after = { value: last.key, traceId: last.trace.trace_id };
  }
}

test('page after page, in either order and by each key, over any window, one project or two, in a thread or not: the traces of every trace row', async () => {
  const windows: Array<[number, number]> = [
    [BASE - 40 * H, BASE + 50 * H],
    [BASE + 3 * H + 120_000_000, BASE + 27 * H + 1],
    [BASE + 12 * H, BASE + 13 * H],
  ];
  for (const [min, max] of windows)
    for (const order of ['desc', 'asc'] as SortOrder[])
      for (const sortBy of ['start_time', 'latency', 'total_cost'] as TraceSort[])
        for (const [projectIds, threadId] of [
          [[projects[0]!], undefined],
          [projects, undefined],
          [[projects[0]!], 'thread-1'],
        ] as const) {
          const q = { tenantId, projectIds, minStartTime: min, maxStartTime: max, order, sortBy, threadId };
          const want = await everyTrace(q);
          for (const limit of [7, 1000])
            expect(
              await everyPage(q, limit),
              JSON.stringify({ min, max, order, sortBy, projectIds: projectIds.length, threadId, limit }),
            ).toEqual(want);
        }
});
