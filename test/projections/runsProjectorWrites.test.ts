// How the runs projector writes a batch: merged and written in small parts (each part's rows
// sent while the next merges) it gives the rows one merge gives; no trace row reaches ClickHouse
// before the runs and locations it counts (a reader of a trace row goes on to its runs); and a
// batch whose writes failed half-way (as a crash between them would leave it) is projected again
// with nothing lost. Each test runs a projector of its own over fresh tables beside the stack's
// live one, on a stack of its own whose topic holds these tests' events only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { stackClickHouse, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { makeTrace, runOp } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql } from '../../platform/clickhouse/sql.ts';
import type { RowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import { createLogger } from '../../platform/logger.ts';
import { EventLog, event } from '../../platform/kafka/eventLog.ts';
import type { RunOp } from '../../schemas/events.generated.ts';
import { RunsProjector, type RunsProjectorOptions } from '../../projections/runsProjector.ts';
import type { TraceRow } from '../../projections/shared/traceRow.ts';
import { hourOf } from '../../projections/shared/hours.ts';
import { hourWrites } from '../../projections/traces/hourStats.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { LIVE_TABLES, tablesWithSuffix, type ReadModelTables } from '../../projections/readModelTables.ts';

let stack: TracingStack;
beforeAll(async () => {
  stack = await startTracingStack('writes', { PROJECTOR_FLUSH_MS: '20' });
});
afterAll(() => stack?.stop());

/**
 * Appends, for a new tenant, six traces of four runs, each trace's ops in three events interleaved
 * with the other traces' (posts, more posts, patches with usage): a trace's runs and patches land
 * in different parts of a batch. Returns the tenant.
 */
async function appendInterleavedTraces(): Promise<string> {
  const tenantId = randomUUID();
  const sessionId = randomUUID();
  const t0 = Date.now() * 1000;
  const post = (r: ReturnType<typeof makeTrace>[number], i: number): RunOp =>
    runOp({
      run_id: r.id,
      session_id: sessionId,
      parent_run_id: r.parent_run_id ?? null,
      dotted_order: r.dotted_order!,
      name: r.name!,
      run_type: r.run_type!,
      start_time: t0 + i,
      inputs: JSON.stringify({ i }),
      extra: JSON.stringify({ metadata: { thread_id: `thread-${r.trace_id.slice(0, 8)}` } }),
      tags: ['parts'],
    });
  const patch = (r: ReturnType<typeof makeTrace>[number], i: number): RunOp =>
    runOp({
      op: 'patch',
      run_id: r.id,
      extra: post(r, i).extra,
      end_time: t0 + 1000 + i,
      outputs: JSON.stringify({
        done: r.id,
        ...(r.parent_run_id ? { usage_metadata: { input_tokens: i, output_tokens: 2, total_tokens: i + 2 } } : {}),
      }),
    });
  const traces = Array.from({ length: 6 }, () => makeTrace(3));
  const eventOf = (traceId: string, ops: RunOp[]) =>
    event('RunOpsAppended', `${tenantId}/${traceId}`, {
      tenant_id: tenantId,
      trace_id: traceId,
      request_id: randomUUID(),
      received_at: t0,
      ops,
    });
  const log = new EventLog(stack.config, 'test-parts');
  await log.append([
    ...traces.map((t) => eventOf(t[0]!.trace_id, t.slice(0, 2).map(post))),
    ...traces.map((t) =>
      eventOf(
        t[0]!.trace_id,
        t.slice(2).map((r, i) => post(r, i + 2)),
      ),
    ),
    ...traces.map((t) => eventOf(t[0]!.trace_id, t.map(patch))),
  ]);
  await log.close();
  return tenantId;
}

/**
 * Runs a projector of its own over fresh tables, from the topic's start (the stack's live
 * projector projects the same events into the live tables), until the tenant's 24 runs are
 * merged; then expects its runs, traces and locations of the tenant to equal the live ones.
 */
async function expectFreshProjectionEqualsLive(
  tenantId: string,
  ch: ClickHouseClient,
  fresh: ReadModelTables,
  options: RunsProjectorOptions,
): Promise<void> {
  await createReadModelTables(ch, fresh);
  const projector = new RunsProjector(stack.config, ch, createLogger('fresh', 'silent'), {
    groupId: `fresh-${randomUUID()}`,
    tables: fresh,
    ...options,
  });
  await projector.start();
  try {
    const runsOf = (tables: ReadModelTables) =>
      ch.query(sql`
      SELECT toString(id) AS id, name, status, end_time, inputs, outputs, total_tokens, prompt_tokens, total_cost, tags
      FROM ${ident(tables.runs)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY id`);
    const tracesOf = (tables: ReadModelTables) =>
      ch.query(sql`
      SELECT toString(trace_id) AS trace_id, name, status, run_count, total_tokens, end_time, run_types, run_type_counts
      FROM ${ident(tables.traces)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY trace_id`);
    const locationsOf = (tables: ReadModelTables) =>
      ch.query(sql`
      SELECT toString(id) AS id, toString(trace_id) AS trace_id FROM ${ident(tables.runLocations)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY id`);
    const done = (tables: ReadModelTables) => async () => {
      const rows = await runsOf(tables);
      return rows.length === 24 && rows.every((r) => r.status === 'success') ? rows : null;
    };
    const live = await waitFor('the live projector', done(LIVE_TABLES), 30_000, 200);
    const projected = await waitFor('the projector of its own', done(fresh), 30_000, 200);
    expect(projected).toEqual(live);
    expect(projected.filter((r) => r.total_tokens !== '0')).toHaveLength(24); // roots sum their children's usage
    // Trace rows follow the runs: the six of each projector, each summing its four runs, alike.
    const tracesDone = (rows: Array<Record<string, unknown>>) =>
      rows.length === 6 && rows.every((r) => r.run_count === 4 && r.status === 'success');
    await waitFor(
      'the trace rows',
      async () => {
        const [mine, theirs] = [await tracesOf(fresh), await tracesOf(LIVE_TABLES)];
        return tracesDone(mine) && tracesDone(theirs) && JSON.stringify(mine) === JSON.stringify(theirs);
      },
      10_000,
      200,
    ).catch(async () => expect(await tracesOf(fresh)).toEqual(await tracesOf(LIVE_TABLES)));
    await waitFor(
      'the locations',
      async () => {
        const [mine, theirs] = [await locationsOf(fresh), await locationsOf(LIVE_TABLES)];
        return mine.length === 24 && JSON.stringify(mine) === JSON.stringify(theirs);
      },
      10_000,
      200,
    ).catch(async () => expect(await locationsOf(fresh)).toEqual(await locationsOf(LIVE_TABLES)));
  } finally {
    await projector.stop();
    await Promise.all(Object.values(fresh).map((table) => ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`)));
  }
}

test('a batch merged and written a few ops at a time, each part written while the next merges, gives the rows one merge gives', async () => {
  const tenantId = await appendInterleavedTraces();
  const ch = stackClickHouse(stack);
  try {
    await expectFreshProjectionEqualsLive(tenantId, ch, tablesWithSuffix(`_parts_${randomUUID().slice(0, 8)}`), {
      writePartOps: 3,
    });
  } finally {
    await ch.close();
  }
});

/**
 * Before each insert into `traces`, reads what ClickHouse holds of the traces it names: a reader
 * that finds a trace row goes on to its runs (the trace tree, a thread's turns with their inputs,
 * GET /runs/{id} through run_locations), so every run the row counts must be readable already;
 * and a project's stats count it (hourStats.ts), so its row must be in traces_by_hour at its hour,
 * with every write there counted. Before each insert into `traces_by_hour`: a thread page that
 * finds a trace there reads its thread from traces_by_thread and trusts the reach of its hour
 * (threadTables.ts), so its row must be in its thread and its hour must reach its last run.
 */
class TraceRowsProbe extends ClickHouseClient {
  readonly violations: string[] = [];
  traceRowsChecked = 0;
  readonly #tables: ReadModelTables;
  constructor(config: TracingStack['config'], tables: ReadModelTables) {
    super({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
    this.#tables = tables;
  }

  /**
   * Each insert into traces_by_hour, until the insert of its counts (hourWrites of its rows) is
   * done; by the trace and version of each live row in it. Other parts' rows at the same hour may
   * be written and not counted yet when a trace row goes in (a later part's tombstones are written
   * beside an earlier part's trace rows): harmless, a count only ever follows its rows, so what
   * matters is that the trace's own row by hour is counted. A count is matched to the insert it
   * counts by its rows; when inserts of two parts (written side by side) would be counted by the
   * same rows, which one a count was for cannot be told, and neither is held against a trace.
   */
  readonly #byHourInserts: Array<{ counts: string; counted: boolean; ambiguous: boolean }> = [];
  readonly #byHourOf = new Map<string, { counts: string; counted: boolean; ambiguous: boolean }>();

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    // a failed check must not fail the insert: the projector would set the batch aside
    if (table === this.#tables.traces && rows.length > 0)
      await this.#check(rows as TraceRow[]).catch((err) => this.violations.push(`check failed: ${err}`));
    const live = (rows as Array<TraceRow & { deleted?: number }>).filter((r) => r.deleted === 0);
    if (table === this.#tables.tracesByHour && live.length > 0)
      await this.#checkThreads(live).catch((err) => this.violations.push(`check failed: ${err}`));
    await super.insertRowBinary(table, columns, rows);
    if (table === this.#tables.tracesByHour) {
      const written = {
        counts: JSON.stringify(hourWrites(rows as Array<{ tenant_id: string; session_id: string; hour: number }>)),
        counted: false,
        ambiguous: false,
      };
      this.#byHourInserts.push(written);
      for (const r of live) this.#byHourOf.set(`${r.trace_id}|${r.version}`, written);
    }
    if (table === this.#tables.traceHourWrites) {
      const candidates = this.#byHourInserts.filter((w) => !w.counted && w.counts === JSON.stringify(rows));
      if (candidates.length > 1) for (const w of candidates) w.ambiguous = true;
      if (candidates[0]) candidates[0].counted = true;
    }
  }

  threadRowsChecked = 0;

  async #checkThreads(rows: TraceRow[]): Promise<void> {
    const keys = join(
      rows.map((r) => sql`(toUUID(${r.tenant_id}), toUUID(${r.session_id}), ${r.thread_id}, toUUID(${r.trace_id}))`),
    );
    const inThread = await this.query<{ trace: string; version: string }>(sql`
      SELECT toString(trace_id) AS trace, max(version) AS version FROM ${ident(this.#tables.tracesByThread)}
      WHERE (tenant_id, session_id, thread_id, trace_id) IN (${keys}) AND deleted = 0 GROUP BY trace_id`);
    const places = join(
      rows.map((r) => sql`(toUUID(${r.tenant_id}), toUUID(${r.session_id}), ${hourOf(r.start_time)})`),
    );
    const reached = await this.query<{ place: string; latest: string }>(sql`
      SELECT concat(toString(session_id), '|', toString(hour)) AS place, max(reach) AS latest
      FROM ${ident(this.#tables.traceHourReach)} WHERE (tenant_id, session_id, hour) IN (${places}) GROUP BY session_id, hour`);
    const versionOf = new Map(inThread.map((r) => [r.trace, Number(r.version)]));
    const reachOf = new Map(reached.map((r) => [r.place, Number(r.latest)]));
    for (const row of rows) {
      if (row.thread_id === '') continue;
      this.threadRowsChecked++;
      if ((versionOf.get(row.trace_id) ?? 0) < row.version)
        this.violations.push(
          `trace ${row.trace_id} (version ${row.version}) by hour before its row in traces_by_thread`,
        );
      const place = `${row.session_id}|${hourOf(row.start_time)}`;
      if ((reachOf.get(place) ?? -Infinity) < row.last_run_start_time)
        this.violations.push(`trace ${row.trace_id} by hour before its hour's reach covered it`);
    }
  }

  async #check(rows: TraceRow[]): Promise<void> {
    const keys = join(rows.map((r) => sql`(toUUID(${r.tenant_id}), toUUID(${r.trace_id}))`));
    const runs = await this.query<{ trace: string; runs: string; version: string }>(sql`
      SELECT toString(trace_id) AS trace, countIf(has_post = 1) AS runs, maxIf(version, has_post = 1) AS version
      FROM ${ident(this.#tables.runs)} FINAL WHERE (tenant_id, trace_id) IN (${keys}) GROUP BY trace_id`);
    const located = await this.query<{ trace: string; runs: string }>(sql`
      SELECT toString(trace_id) AS trace, count() AS runs
      FROM ${ident(this.#tables.runLocations)} FINAL WHERE (tenant_id, trace_id) IN (${keys}) GROUP BY trace_id`);
    const byHour = await this.query<{ trace: string; hour: string; version: string }>(sql`
      SELECT toString(trace_id) AS trace, hour, max(version) AS version
      FROM ${ident(this.#tables.tracesByHour)} WHERE (tenant_id, trace_id) IN (${keys}) AND deleted = 0 GROUP BY trace_id, hour`);
    const byHourOf = new Map(byHour.map((r) => [`${r.trace}|${r.hour}`, Number(r.version)]));
    for (const row of rows) {
      if ((byHourOf.get(`${row.trace_id}|${hourOf(row.start_time)}`) ?? 0) < row.version)
        this.violations.push(`trace ${row.trace_id} (version ${row.version}) before its row in traces_by_hour`);
      const byHourInsert = this.#byHourOf.get(`${row.trace_id}|${row.version}`);
      if (!byHourInsert?.counted && !byHourInsert?.ambiguous)
        this.violations.push(`trace ${row.trace_id} (version ${row.version}) before its row by hour was counted`);
    }
    const runsOf = new Map(runs.map((r) => [r.trace, r]));
    const locatedOf = new Map(located.map((r) => [r.trace, Number(r.runs)]));
    for (const row of rows) {
      this.traceRowsChecked++;
      const durable = runsOf.get(row.trace_id);
      // at least: runs of a later part of the batch may already be written too
      if (Number(durable?.runs ?? 0) < row.run_count || Number(durable?.version ?? 0) < row.version)
        this.violations.push(
          `trace ${row.trace_id} (${row.run_count} runs, version ${row.version}) before its runs: ${JSON.stringify(durable ?? null)}`,
        );
      if ((locatedOf.get(row.trace_id) ?? 0) < row.run_count)
        this.violations.push(
          `trace ${row.trace_id} (${row.run_count} runs) before its runs' locations: ${locatedOf.get(row.trace_id) ?? 0}`,
        );
    }
  }
}

test("no trace row reaches ClickHouse before the runs and locations it counts and its counted row by hour, nor a row by hour before its row by thread and its hour's reach, each part of a batch included", async () => {
  const tenantId = await appendInterleavedTraces();
  const fresh = tablesWithSuffix(`_ryw_${randomUUID().slice(0, 8)}`);
  const probe = new TraceRowsProbe(stack.config, fresh);
  try {
    await expectFreshProjectionEqualsLive(tenantId, probe, fresh, { writePartOps: 3 });
  } finally {
    await probe.close();
  }
  expect(probe.traceRowsChecked).toBeGreaterThanOrEqual(6);
  expect(probe.threadRowsChecked).toBeGreaterThanOrEqual(6);
  expect(probe.violations).toEqual([]);
});

/**
 * Refuses the first insert into one table that holds a row of the tenant, as a crash between
 * the writes of a batch would leave it: the writes before it done, the batch not committed. The
 * runtime forgets its state and projects the batch again (in halves), as a restarted projector would.
 */
class FailOnceProbe extends ClickHouseClient {
  failed = false;
  readonly #table: string;
  readonly #tenantId: string;
  constructor(config: TracingStack['config'], table: string, tenantId: string) {
    super({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
    this.#table = table;
    this.#tenantId = tenantId;
  }

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    if (
      !this.failed &&
      table === this.#table &&
      rows.some((r) => (r as { tenant_id: string }).tenant_id === this.#tenantId)
    ) {
      this.failed = true;
      throw Object.assign(new Error(`the test refuses this insert into ${table}`), { retryable: false });
    }
    await super.insertRowBinary(table, columns, rows);
  }
}

test.each(['runLocations', 'traces'] as const)(
  'a batch whose %s insert failed after its runs were written is projected again: nothing lost',
  async (failing) => {
    const tenantId = await appendInterleavedTraces();
    const fresh = tablesWithSuffix(`_fail_${randomUUID().slice(0, 8)}`);
    const probe = new FailOnceProbe(stack.config, fresh[failing], tenantId);
    try {
      await expectFreshProjectionEqualsLive(tenantId, probe, fresh, {});
    } finally {
      await probe.close();
    }
    expect(probe.failed).toBe(true);
  },
);

/** Drops (as if they went to a table swapped out meanwhile) the tenant's rows inserted into some tables. */
class SwallowProbe extends ClickHouseClient {
  swallowed = 0;
  readonly #tables: ReadonlySet<string>;
  readonly #tenantId: string;
  constructor(config: TracingStack['config'], tables: string[], tenantId: string) {
    super({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
    this.#tables = new Set(tables);
    this.#tenantId = tenantId;
  }

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    if (!this.#tables.has(table)) return super.insertRowBinary(table, columns, rows);
    const kept = rows.filter((r) => (r as { tenant_id: string }).tenant_id !== this.#tenantId);
    this.swallowed += rows.length - kept.length;
    if (kept.length) await super.insertRowBinary(table, columns, kept);
  }
}

// A replay's swaps can fall inside a live batch: its run_keys row goes to the new table, its
// run_threads row to the old one not yet swapped, its runs rows to the new `runs` a moment later.
// The replay's catch-up then reads those events again and finds their ops applied in `runs`: it
// writes their threads (and places) again.
test('events read again whose runs and places are written but whose run_threads rows are not: the projector writes those again', async () => {
  const tenantId = await appendInterleavedTraces();
  const fresh = tablesWithSuffix(`_straddle_${randomUUID().slice(0, 8)}`);
  const ch = stackClickHouse(stack);
  const probe = new SwallowProbe(stack.config, [fresh.runThreads], tenantId);
  const rowsOf = (table: string, columns: string) =>
    ch.query(
      sql`SELECT ${raw(columns)} FROM ${ident(table)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY ${raw(columns)}`,
    );
  const threadColumns = 'thread_id, toString(session_id) AS s, is_root, start_time, toString(id) AS id';
  const keyColumns = 'toString(trace_id) AS t, toString(id) AS id, toString(session_id) AS s, is_root, start_time';
  const project = async (client: ClickHouseClient, until: () => Promise<boolean>) => {
    const projector = new RunsProjector(stack.config, client, createLogger('straddle', 'silent'), {
      groupId: `straddle-${randomUUID()}`,
      tables: fresh,
    });
    await projector.start();
    try {
      await waitFor('the projector of its own', until, 30_000, 200);
    } finally {
      await projector.stop();
    }
  };
  try {
    await createReadModelTables(ch, fresh);
    const runsDone = async () =>
      (
        await ch.query(
          sql`SELECT id FROM ${ident(fresh.runs)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND status = 'success'`,
        )
      ).length === 24;
    await project(probe, runsDone);
    expect(probe.swallowed).toBeGreaterThanOrEqual(24);
    expect(await rowsOf(fresh.runThreads, threadColumns)).toEqual([]);

    await project(ch, async () => (await rowsOf(fresh.runThreads, threadColumns)).length === 24);
    await waitFor(
      'the live projector',
      async () => (await rowsOf(LIVE_TABLES.runThreads, threadColumns)).length === 24,
      30_000,
      200,
    );
    expect(await rowsOf(fresh.runThreads, threadColumns)).toEqual(await rowsOf(LIVE_TABLES.runThreads, threadColumns));
    expect(await rowsOf(fresh.runKeys, keyColumns)).toEqual(await rowsOf(LIVE_TABLES.runKeys, keyColumns));
  } finally {
    await probe.close();
    await Promise.all(Object.values(fresh).map((table) => ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`)));
    await ch.close();
  }
});
