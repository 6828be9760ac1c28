// The hour stats as readers use them: totals over any range equal those read from every trace
// row; a whole hour's slice, once written, is what later reads take (and only while its hour's
// write count is the one it was computed at); percentiles from the histograms stay within 1 %.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { ident, join, raw, sql, type Sql } from '../../../platform/clickhouse/sql.ts';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import { HOUR_MICROS } from '../../../projections/shared/hours.ts';
import {
  hourRow,
  hourWrites,
  sliceRow,
  emptyRollup,
  TRACES_BY_HOUR_COLUMNS,
  TRACE_HOUR_STATS_COLUMNS,
  TRACE_HOUR_WRITES_COLUMNS,
} from '../../../projections/traces/hourStats.ts';
import { cutHours, hourRollups } from '../../../projections/traces/hourStatsQueries.ts';
import { hourSpans } from '../../../projections/shared/hours.ts';
import { EXACT_QUANTILE_TRACES, traceSetStatsQuery } from '../../../projections/traces/statsQueries.ts';
import type { TraceRow } from '../../../projections/shared/traceRow.ts';
import {
  fillTraceCopies,
  scratchDatabase,
  traceRow,
  type ScratchDatabase,
} from '../../services/tracing/traces/readModelFixture.ts';
import { waitFor } from '../../support/serviceProcess.ts';

const T = LIVE_TABLES;
const tenantId = randomUUID();
const projectId = randomUUID();
const other = randomUUID();
const BASE = Math.floor((Date.UTC(2026, 10, 20) * 1000) / HOUR_MICROS) * HOUR_MICROS;
/** Traces over 30 hours, 7 minutes apart, a few minutes after each hour's start (so cut ranges split hours). */
const TRACES = (30 * 60) / 7;

let db: ScratchDatabase;

beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!, 'hour_stats');
  const rows = Array.from({ length: TRACES }, (_, i) =>
    traceRow({
      tenant_id: tenantId,
      trace_id: randomUUID(),
      session_id: i % 10 === 9 ? other : projectId,
      start_time: BASE + i * 7 * 60_000_000 + 1000,
      status: i % 13 === 0 ? 'error' : 'success',
      run_count: 1 + (i % 5),
      total_tokens: 100 + i,
      total_cost: i / 1000,
      run_type: i % 3 === 0 ? 'llm' : 'chain',
    }),
  ).map((r, i) => ({ ...r, end_time: (r.start_time as number) + 1_000_000 + i * 10_000 }));
  await db.ch.insert(T.traces, rows);
  await fillTraceCopies(db.ch);
});
afterAll(() => db?.drop());

/** Totals as read from every trace row (no slices). */
async function exact(min: number | undefined, max: number | undefined, projects = [projectId]) {
  const bounds = [
    raw('1'),
    ...(min !== undefined ? [sql`start_time >= ${min}`] : []),
    ...(max !== undefined ? [sql`start_time < ${max}`] : []),
  ];
  const [r] = await db.ch.query<Record<string, string>>(
    sql`SELECT count() AS traces, sum(run_count) AS runs, countIf(status = 'error') AS errors, sum(total_tokens) AS tokens
        FROM ${ident(T.traces)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND session_id IN (${join(projects.map((p) => sql`toUUID(${p})`))}) AND ${join(bounds, ' AND ')}`,
  );
  return { traces: Number(r!.traces), runs: Number(r!.runs), errors: Number(r!.errors), tokens: Number(r!.tokens) };
}

async function fromHours(min: number | undefined, max: number | undefined, projects = [projectId]) {
  const r =
    (
      await hourRollups(
        db.ch,
        T,
        { tenantId, projectIds: projects, minStartTime: min, maxStartTime: max },
        { by: 'none' },
      )
    ).get('') ?? emptyRollup();
  return {
    traces: r.totals.trace_count,
    runs: r.totals.run_count,
    errors: r.totals.trace_error_count,
    tokens: r.totals.total_tokens,
  };
}

/** (project, hour) pairs of the tenant with writes: each has two slices once read (errored and not). */
const hoursWritten = async () => {
  const [r] = await db.ch.query<{ n: string }>(
    sql`SELECT count() AS n FROM (SELECT DISTINCT session_id, hour FROM ${ident(T.traceHourWrites)} WHERE tenant_id = toUUID(${tenantId}))`,
  );
  return Number(r!.n);
};

const slicesWritten = async () => {
  const [r] = await db.ch.query<{ n: string }>(
    sql`SELECT count() AS n FROM ${ident(T.traceHourStats)} FINAL WHERE tenant_id = toUUID(${tenantId})`,
  );
  return Number(r!.n);
};

test('the (at most two) hours a range cuts, and what of each is inside it', () => {
  const H = HOUR_MICROS;
  expect(cutHours(undefined, undefined)).toEqual([]);
  expect(cutHours(2 * H, 5 * H)).toEqual([]);
  expect(cutHours(2 * H + 10, 5 * H + 20)).toEqual([
    { hour: 2 * H, from: 2 * H + 10, to: 3 * H },
    { hour: 5 * H, from: 5 * H, to: 5 * H + 20 },
  ]);
  expect(cutHours(2 * H + 10, 2 * H + 20)).toEqual([{ hour: 2 * H, from: 2 * H + 10, to: 2 * H + 20 }]);
  expect(cutHours(2 * H, 2 * H + 20)).toEqual([{ hour: 2 * H, from: 2 * H, to: 2 * H + 20 }]);
  expect(cutHours(undefined, 3 * H + 5)).toEqual([{ hour: 3 * H, from: 3 * H, to: 3 * H + 5 }]);
  expect(cutHours(3 * H + 5, undefined)).toEqual([{ hour: 3 * H, from: 3 * H + 5, to: 4 * H }]);
});

test('totals over whole hours, cut hours, open ends and several projects equal those of every trace row, before and after the slices are written', async () => {
  const ranges: Array<[number | undefined, number | undefined]> = [
    [undefined, undefined],
    [BASE, BASE + 30 * HOUR_MICROS],
    [BASE + 3 * HOUR_MICROS + 123_456_789, BASE + 17 * HOUR_MICROS + 2_000_000_000],
    [BASE + 5 * HOUR_MICROS + 60_000_000, BASE + 5 * HOUR_MICROS + 1_800_000_000],
    [undefined, BASE + 9 * HOUR_MICROS + 1],
    [BASE + 20 * HOUR_MICROS - 1, undefined],
  ];
  for (const round of ['from rows', 'from slices']) {
    for (const [min, max] of ranges) {
      expect(await fromHours(min, max), `${round} ${min}..${max}`).toEqual(await exact(min, max));
      expect(await fromHours(min, max, [projectId, other]), `${round} ${min}..${max}, two projects`).toEqual(
        await exact(min, max, [projectId, other]),
      );
    }
    // Slices of both projects' 30 hours (errored and not) are written back by the first round.
    const hours = await hoursWritten();
    await waitFor('the slices', async () => (await slicesWritten()) === 2 * hours, 10_000, 50);
  }
});

test('a slice is read while its hour has had no write since it was computed, and not after', async () => {
  const hour = BASE + 11 * HOUR_MICROS;
  const range = [BASE, BASE + 30 * HOUR_MICROS] as const;
  const before = await fromHours(...range);
  await waitFor('the slices', async () => (await slicesWritten()) >= 2 * 30, 10_000, 50);
  // A slice at the hour's current count, claiming 1,000 more traces: reads take it as the hour's.
  const [count] = await db.ch.query<{ w: string }>(
    sql`SELECT sum(writes) AS w FROM ${ident(T.traceHourWrites)} WHERE session_id = toUUID(${projectId}) AND hour = ${hour}`,
  );
  const [seen] = await db.ch.query<Record<string, unknown>>(
    sql`SELECT count() AS n FROM ${ident(T.tracesByHour)} FINAL WHERE session_id = toUUID(${projectId}) AND hour = ${hour} AND status != 'error' AND deleted = 0`,
  );
  const planted = emptyRollup();
  planted.totals.trace_count = Number(seen!.n) + 1000;
  await db.ch.insertRowBinary(T.traceHourStats, TRACE_HOUR_STATS_COLUMNS, [
    sliceRow({ tenantId, projectId, hour, errored: 0 }, planted, Number(count!.w)),
  ]);
  // (the planted slice replaces the one written at the same count: a higher writes_seen would win too)
  await db.ch.exec(sql`OPTIMIZE TABLE ${ident(T.traceHourStats)} FINAL`);
  const planted1 = await fromHours(...range);
  expect(planted1.traces).toBe(before.traces + 1000);

  // A new trace in that hour, written as the projector writes it: row, then its count.
  const row = traceRow({
    tenant_id: tenantId,
    trace_id: randomUUID(),
    session_id: projectId,
    start_time: hour + 5,
    total_tokens: 7,
  }) as unknown as TraceRow;
  await db.ch.insert(T.traces, [row]);
  await db.ch.insertRowBinary(T.tracesByHour, TRACES_BY_HOUR_COLUMNS, [hourRow(row, 0)]);
  await db.ch.insertRowBinary(T.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites([hourRow(row, 0)]));
  const after = await fromHours(...range);
  expect(after).toEqual(await exact(...range));
  expect(after.traces).toBe(before.traces + 1);
});

test('a trace moved to another hour is counted once, where it is: its tombstone hides it where it was', async () => {
  const [moved] = await db.ch.query<{ id: string; start: string }>(
    sql`SELECT toString(trace_id) AS id, start_time AS start FROM ${ident(T.traces)} FINAL WHERE session_id = toUUID(${projectId}) AND start_time < ${BASE + HOUR_MICROS} ORDER BY start_time LIMIT 1`,
  );
  const old = traceRow({
    tenant_id: tenantId,
    trace_id: moved!.id,
    session_id: projectId,
    start_time: Number(moved!.start),
    version: 1,
  }) as unknown as TraceRow;
  const now: TraceRow = { ...old, start_time: old.start_time + 20 * HOUR_MICROS, version: old.version + 1 };
  const tombstone = hourRow({ ...now, start_time: old.start_time }, 1);
  await db.ch.insertRowBinary(T.tracesByHour, TRACES_BY_HOUR_COLUMNS, [tombstone]);
  await db.ch.insertRowBinary(T.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites([tombstone]));
  await db.ch.insert(T.traces, [now]);
  await db.ch.insertRowBinary(T.tracesByHour, TRACES_BY_HOUR_COLUMNS, [hourRow(now, 0)]);
  await db.ch.insertRowBinary(T.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites([hourRow(now, 0)]));
  for (const [min, max] of [
    [BASE, BASE + HOUR_MICROS],
    [BASE + 20 * HOUR_MICROS, BASE + 21 * HOUR_MICROS],
    [undefined, undefined],
  ] as const)
    expect(await fromHours(min, max), `${min}..${max}`).toEqual(await exact(min, max));
});

test('a slice another reader writes back between the statements of a read counts its hour once', async () => {
  // A client that sends one statement at a time and, once the first statement reading slices has
  // answered, lets every slice be written back (as a reader beside it would) before the next: a
  // read that decided an hour's freshness in two statements would see it stale, then fresh, and
  // count it in neither (or, the other way round, in both).
  const projectHours = async () => {
    const counts = await db.ch.query<{ hour: string; w: string }>(
      sql`SELECT hour, sum(writes) AS w FROM ${ident(T.traceHourWrites)} WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId}) GROUP BY hour`,
    );
    const seen = await db.ch.query<{ hour: string; seen: string }>(
      sql`SELECT hour, writes_seen AS seen FROM ${ident(T.traceHourStats)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId})`,
    );
    const fresh = seen.filter((s) => counts.some((c) => c.hour === s.hour && c.w === s.seen)).length;
    return { hours: counts.length, fresh };
  };
  const fillSlices = async () => {
    await hourRollups(db.ch, T, { tenantId, projectIds: [projectId] }, { by: 'none' });
    await waitFor(
      'every slice written back',
      async () => {
        const { hours, fresh } = await projectHours();
        return fresh === 2 * hours;
      },
      10_000,
      50,
    );
  };
  class Interleaving extends ClickHouseClient {
    filled = false;
    #last: Promise<unknown> = Promise.resolve();
    override query<Row = Record<string, unknown>>(statement: Sql): Promise<Row[]> {
      const run = this.#last.then(async () => {
        const rows = await super.query<Row>(statement);
        if (!this.filled && statement.text.includes(T.traceHourStats)) {
          this.filled = true;
          await fillSlices();
        }
        return rows;
      });
      this.#last = run.catch(() => {});
      return run;
    }
  }
  // Some hours written since their slices were computed.
  const rows = [3, 11, 20].map(
    (h) =>
      traceRow({
        tenant_id: tenantId,
        trace_id: randomUUID(),
        session_id: projectId,
        start_time: BASE + h * HOUR_MICROS + 90_000_000,
        total_tokens: 5,
      }) as unknown as TraceRow,
  );
  await db.ch.insert(T.traces, rows);
  const byHour = rows.map((r) => hourRow(r, 0));
  await db.ch.insertRowBinary(T.tracesByHour, TRACES_BY_HOUR_COLUMNS, byHour);
  await db.ch.insertRowBinary(T.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites(byHour));
  const { hours, fresh } = await projectHours();
  expect(fresh).toBeLessThan(2 * hours);
  const client = new Interleaving({ url: inject('tracingEnv').CLICKHOUSE_URL!, database: db.database });
  try {
    const r =
      (await hourRollups(client, T, { tenantId, projectIds: [projectId] }, { by: 'none' })).get('') ?? emptyRollup();
    expect(client.filled).toBe(true);
    expect({
      traces: r.totals.trace_count,
      runs: r.totals.run_count,
      errors: r.totals.trace_error_count,
      tokens: r.totals.total_tokens,
    }).toEqual(await exact(undefined, undefined));
  } finally {
    await client.close();
  }
});

test('the hours of a window walked from either end in spans of 1, 2, 4, … hours', () => {
  const H = HOUR_MICROS;
  const hours = [1, 2, 4, 5, 6, 9, 10].map((h) => h * H);
  expect([...hourSpans(hours, true)]).toEqual([
    { from: 10 * H, to: 11 * H, left: 6 },
    { from: 6 * H, to: 10 * H, left: 4 },
    { from: 1 * H, to: 6 * H, left: 0 },
  ]);
  expect([...hourSpans(hours, false)]).toEqual([
    { from: 1 * H, to: 2 * H, left: 6 },
    { from: 2 * H, to: 5 * H, left: 4 },
    { from: 5 * H, to: 11 * H, left: 0 },
  ]);
  expect([...hourSpans([], true)]).toEqual([]);
});

test('above the exact-quantile size, percentiles come from the histograms, within 1 % of the exact ones', async () => {
  const many = randomUUID();
  await db.ch.exec(sql`INSERT INTO ${ident(T.tracesByHour)} (tenant_id, trace_id, session_id, status, start_time, end_time, run_count, total_tokens, total_cost, hour, deleted, version)
    SELECT toUUID(${tenantId}), generateUUIDv4(), toUUID(${many}), 'success', ${BASE} + number * 1000000, ${BASE} + number * 1000000 + 1000 + (number * 7919) % 5000000,
      1, 10 + (number * 104729) % 100000, ((number * 15485863) % 1000) / 1000, intDiv(${BASE} + number * 1000000, ${HOUR_MICROS}) * ${HOUR_MICROS}, 0, 1
    FROM numbers(${EXACT_QUANTILE_TRACES * 3})`);
  await db.ch.exec(
    sql`INSERT INTO ${ident(T.traceHourWrites)} SELECT tenant_id, session_id, hour, count() FROM ${ident(T.tracesByHour)} WHERE session_id = toUUID(${many}) GROUP BY tenant_id, session_id, hour`,
  );
  const set = { tenantId, projectIds: [many] };
  const stats = await traceSetStatsQuery(db.ch, T, set);
  const [q] = await db.ch.query<{ latency: number[]; tokens: number[] }>(
    sql`SELECT quantilesExact(0.5, 0.99)((end_time - start_time) / 1000000) AS latency, quantilesExact(0.5, 0.99)(total_tokens) AS tokens
        FROM ${ident(T.tracesByHour)} WHERE session_id = toUUID(${many})`,
  );
  expect(stats.trace_count).toBe(EXACT_QUANTILE_TRACES * 3);
  for (const [got, want] of [
    [stats.latency_p50, q!.latency[0]],
    [stats.latency_p99, q!.latency[1]],
    [stats.tokens_p50, q!.tokens[0]],
    [stats.tokens_p99, q!.tokens[1]],
  ] as const)
    expect(Math.abs(got! - Number(want)) / Number(want)).toBeLessThan(0.011);
});
