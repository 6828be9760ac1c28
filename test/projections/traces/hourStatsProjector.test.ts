// How the runs projector keeps traces_by_hour and traces_by_thread: a trace whose row moves to
// another hour and thread (its root came after a child of a later hour, naming another thread)
// is in one place of each only, each hour's write count grows with every write there, and its
// hour's reach covers it; also when an insert fails half-way through a batch (as a crash would
// leave it) and the batch is projected again. A projector of its own over fresh tables, on
// a stack whose topic holds these tests' events only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTracingStack, type TracingStack } from '../../support/tracingStack.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { ident, sql } from '../../../platform/clickhouse/sql.ts';
import type { RowBinaryColumns } from '../../../platform/clickhouse/rowBinary.ts';
import { createLogger } from '../../../platform/logger.ts';
import { EventLog, event } from '../../../platform/kafka/eventLog.ts';
import { ensureTopics } from '../../../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS } from '../../../schemas/topics.ts';
import type { RunOp } from '../../../schemas/events.generated.ts';
import { RunsProjector } from '../../../projections/runsProjector.ts';
import { createReadModelTables } from '../../../projections/readModels.ts';
import { tablesWithSuffix, type ReadModelTables } from '../../../projections/readModelTables.ts';
import { HOUR_MICROS } from '../../../projections/shared/hours.ts';
import { hourRollups } from '../../../projections/traces/hourStatsQueries.ts';

let stack: TracingStack;
beforeAll(async () => {
  stack = await startTracingStack('hourstats', { PROJECTOR_FLUSH_MS: '20' });
});
afterAll(() => stack?.stop());

const T0 = Math.floor((Date.now() * 1000) / HOUR_MICROS) * HOUR_MICROS - 10 * HOUR_MICROS;

/**
 * Three traces whose child (3 hours later than its root, in thread `child-thread`) is posted
 * first, each op in an event of its own; the root names `root-thread`.
 */
async function appendMovingTraces(
  config: TracingStack['config'],
  tenantId: string,
  projectId: string,
): Promise<string[]> {
  const post = (traceId: string, runId: string, parent: string | null, start: number): RunOp =>
    ({
      op: 'post',
      run_id: runId,
      session_id: projectId,
      parent_run_id: parent,
      dotted_order: parent ? `${traceId}.${runId}` : traceId,
      name: 'r',
      run_type: 'chain',
      start_time: start,
      end_time: start + 1000,
      inputs: '{}',
      events: null,
      serialized: null,
      error: null,
      extra: JSON.stringify({ metadata: { thread_id: parent ? 'child-thread' : 'root-thread' } }),
      tags: [],
      reference_example_id: null,
      attachments: [],
      outputs: null,
    }) as unknown as RunOp;
  const traces = [randomUUID(), randomUUID(), randomUUID()];
  const eventOf = (traceId: string, ops: RunOp[]) =>
    event('RunOpsAppended', `${tenantId}/${traceId}`, {
      tenant_id: tenantId,
      trace_id: traceId,
      request_id: randomUUID(),
      received_at: T0,
      ops,
    });
  const log = new EventLog(config, 'test-hour-moves');
  await log.append([
    ...traces.map((t, i) => eventOf(t, [post(t, randomUUID(), t, T0 + 3 * HOUR_MICROS + i)])),
    ...traces.map((t, i) => eventOf(t, [post(t, t, null, T0 + i)])),
  ]);
  await log.close();
  return traces;
}

/** Refuses the n-th insert into one table that holds a row of the tenant, as a crash between a batch's writes would leave it. */
class FailNthProbe extends ClickHouseClient {
  failed = false;
  #seen = 0;
  readonly table: string;
  readonly nth: number;
  readonly tenantId: string;
  constructor(config: TracingStack['config'], table: string, nth: number, tenantId: string) {
    super({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
    this.table = table;
    this.nth = nth;
    this.tenantId = tenantId;
  }

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    if (
      !this.failed &&
      table === this.table &&
      rows.some((r) => (r as { tenant_id: string }).tenant_id === this.tenantId) &&
      ++this.#seen === this.nth
    ) {
      this.failed = true;
      throw Object.assign(new Error(`the test refuses this insert into ${table}`), { retryable: false });
    }
    await super.insertRowBinary(table, columns, rows);
  }
}

const cases: Array<[keyof ReadModelTables | null, number]> = [
  [null, 0],
  ['runs', 2], // the second part's runs, after its tombstones
  ['tracesByHour', 2], // a tombstone (or the part's rows)
  ['traceHourWrites', 2], // the count of a tombstone (or of rows)
  ['traceHourWrites', 3],
  ['traces', 2],
  ['tracesByThread', 1], // a thread tombstone (or the part's rows)
  ['tracesByThread', 2],
  ['traceHourReach', 2],
];

test.each(cases)(
  'a trace moved to an earlier hour and another thread is in traces_by_hour and traces_by_thread once, where its row is, counted and reached there (insert into %s number %i refused)',
  async (failing, nth) => {
    const tenantId = randomUUID();
    const projectId = randomUUID();
    const fresh = tablesWithSuffix(`_hmove_${randomUUID().slice(0, 8)}`);
    const ch = failing
      ? new FailNthProbe(stack.config, fresh[failing], nth, tenantId)
      : ClickHouseClient.fromConfig(stack.config);
    await createReadModelTables(ch, fresh);
    // Topics of its own: the projector reads this case's events only, not every earlier case's again.
    const config = {
      ...stack.config,
      KAFKA_TOPIC_PREFIX: `${stack.config.KAFKA_TOPIC_PREFIX}hmove${randomUUID().slice(0, 8)}.`,
    };
    await ensureTopics(config, TOPIC_DECLARATIONS);
    const traces = await appendMovingTraces(config, tenantId, projectId);
    const projector = new RunsProjector(config, ch, createLogger('hour-moves', 'silent'), {
      groupId: `hmove-${randomUUID()}`,
      tables: fresh,
      writePartOps: 1,
    });
    await projector.start();
    try {
      const placed = () =>
        ch.query<{ id: string; hour: string }>(
          sql`SELECT toString(trace_id) AS id, hour FROM ${ident(fresh.tracesByHour)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND deleted = 0 ORDER BY start_time`,
        );
      const rows = await waitFor(
        'each trace at its root hour',
        async () => {
          const r = await placed();
          return r.length === 3 && r.every((p) => Number(p.hour) === T0) ? r : null;
        },
        30_000,
        100,
      ).catch(async () => {
        expect(await placed()).toEqual('three traces at their root hour');
        return [];
      });
      expect(rows.map((r) => r.id)).toEqual(traces);
      // Every hour that had a write is counted: the readers' slices of the child's hour are stale.
      const counted = await ch.query<{ hour: string; writes: string }>(
        sql`SELECT hour, sum(writes) AS writes FROM ${ident(fresh.traceHourWrites)} WHERE tenant_id = toUUID(${tenantId}) GROUP BY hour ORDER BY hour`,
      );
      expect(counted.map((c) => Number(c.hour))).toEqual([T0, T0 + 3 * HOUR_MICROS]);
      const rollups = await hourRollups(
        ch,
        fresh,
        { tenantId, projectIds: [projectId] },
        { by: 'bucket', size: HOUR_MICROS },
      );
      expect(
        [...rollups]
          .map(([hour, r]) => [Number(hour), r.totals.trace_count, r.totals.run_count])
          .filter(([, n]) => n !== 0),
      ).toEqual([[T0, 3, 6]]);
      // In its root's thread only, and its hour's reach covers its last run (3 hours on).
      const threads = await ch.query<{ thread: string; id: string }>(
        sql`SELECT thread_id AS thread, toString(trace_id) AS id FROM ${ident(fresh.tracesByThread)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND deleted = 0 ORDER BY start_time`,
      );
      expect(threads).toEqual(traces.map((id) => ({ thread: 'root-thread', id })));
      const [reach] = await ch.query<{ latest: string }>(
        sql`SELECT max(reach) AS latest FROM ${ident(fresh.traceHourReach)} WHERE tenant_id = toUUID(${tenantId}) AND hour = ${T0}`,
      );
      expect(Number(reach!.latest)).toBe(T0 + 3 * HOUR_MICROS + 2);
      if (failing) expect((ch as FailNthProbe).failed).toBe(true);
    } finally {
      await projector.stop();
      await Promise.all(Object.values(fresh).map((table) => ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`)));
      await ch.close();
    }
  },
);
