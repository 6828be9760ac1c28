// The runs projector under cache pressure (with room for only a few runs it keeps evicting traces
// and reading them back from ClickHouse, and every post and later patch still merges), with
// events it cannot read (kept in tracing.runs.dead-letter, test/support/deadLetters.ts), and with
// an event whose rows ClickHouse refuses (kept there too, not retried forever); merging and
// writing a batch in small parts, no trace row written before the runs it counts (read your
// writes), and a batch read again after a failure between its writes (nothing lost).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { stackClickHouse, startTracingStack, type TracingStack } from '../../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts } from '../../support/runFactory.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { ident, join, sql } from '../../../platform/clickhouse/sql.ts';
import type { RowBinaryColumns } from '../../../platform/clickhouse/rowBinary.ts';
import { createLogger } from '../../../platform/logger.ts';
import { EventLog, event } from '../../../platform/kafka/eventLog.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { encodeEvent } from '../../../schemas/registry.ts';
import type { RunOp } from '../../../schemas/events.generated.ts';
import { RunsProjector, runsProjectorGroupId, type RunsProjectorOptions } from '../../../projections/runs/runsProjector.ts';
import type { TraceRow } from '../../../projections/traces/traceRow.ts';
import { createReadModelTables } from '../../../projections/readModels.ts';
import { LIVE_TABLES, tablesWithSuffix, type ReadModelTables } from '../../../projections/readModelTables.ts';
import { appendPoison, committedOffset, deadLetterHeader, expectDeadLettered, findDeadLetter, poisonMessages } from '../../support/deadLetters.ts';

let stack: TracingStack;
beforeAll(async () => {
  stack = await startTracingStack('cache', { PROJECTOR_CACHE_RUNS: '3', PROJECTOR_FLUSH_MS: '20' });
});
afterAll(() => stack?.stop());

test('posts and later patches merge even when their traces were evicted from the cache', async () => {
  const traces = Array.from({ length: 30 }, () => makeTrace(3));
  const send = async (parts: ReturnType<typeof postParts>) => {
    const { body, contentType } = multipartBody(parts);
    const res = await fetch(`${stack.url}/runs/multipart`, { method: 'POST', headers: { 'x-api-key': stack.apiKey, 'content-type': contentType }, body });
    expect(res.status).toBe(202);
  };
  for (const t of traces) await send(postParts(t));
  await new Promise((r) => setTimeout(r, 500)); // let the posts be projected and evicted
  const end = new Date().toISOString();
  for (const t of traces) await send(postParts(t.map((r) => ({ ...r, inputs: undefined, outputs: { done: r.id }, end_time: end })), 'patch'));

  const ch = ClickHouseClient.fromConfig(stack.config);
  const rows = await waitFor('all runs merged', async () => {
    const r = await ch.query<{ id: string; inputs: string; outputs: string; status: string }>(sql`SELECT toString(id) AS id, inputs, outputs, status FROM runs FINAL`);
    return r.length === 120 && r.every((x) => x.status === 'success') ? r : null;
  }, 60_000, 200);
  for (const row of rows) {
    expect(JSON.parse(row.outputs)).toEqual({ done: row.id });
    expect(row.inputs).not.toBe(''); // the post's inputs survived the reload
  }
  await ch.close();
});

test('events the projector cannot read go to the dead-letter topic byte for byte, and the good event after them is projected', async () => {
  const tenantId = randomUUID();
  const [root] = makeTrace(0);
  const key = `${tenantId}/${root!.trace_id}`;
  const op: RunOp = {
    op: 'post', run_id: root!.id, session_id: randomUUID(), parent_run_id: null, dotted_order: root!.dotted_order, name: 'after-poison', run_type: 'chain',
    start_time: Date.now() * 1000, end_time: null, inputs: '{"x":1}', outputs: null, events: null, extra: null, serialized: null, error: null, tags: null,
    reference_example_id: null, attachments: [],
  };
  const good = { tenant_id: tenantId, trace_id: root!.trace_id, request_id: randomUUID(), received_at: Date.now() * 1000, ops: [op] };
  const poisons = poisonMessages(key, encodeEvent('RunOpsAppended', good));
  await appendPoison(stack.config, TOPICS.runs, poisons);
  const log = new EventLog(stack.config, 'test-good');
  await log.append([event('RunOpsAppended', key, good)]);
  await log.close();

  const ch = stackClickHouse(stack);
  await waitFor('the run after the unreadable events', async () =>
    (await ch.query(sql`SELECT 1 FROM runs FINAL WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${root!.id}) AND name = 'after-poison'`)).length === 1, 30_000, 200);
  await ch.close();
  await expectDeadLettered(stack.config, TOPICS.runs, runsProjectorGroupId(stack.config), poisons);
});

test('an event whose rows ClickHouse will always refuse goes to the dead-letter topic with the reason; the events beside it are projected', async () => {
  const tenantId = randomUUID();
  const runOp = (runId: string, traceId: string, dottedOrder: string, name: string): RunOp => ({
    op: 'post', run_id: runId, session_id: randomUUID(), parent_run_id: null, dotted_order: dottedOrder, name, run_type: 'chain',
    start_time: Date.now() * 1000, end_time: null, inputs: '{"x":1}', outputs: null, events: null, extra: null, serialized: null, error: null, tags: null,
    reference_example_id: null, attachments: [],
  });
  const eventOf = (op: RunOp, traceId: string) => ({ tenant_id: tenantId, trace_id: traceId, request_id: randomUUID(), received_at: Date.now() * 1000, ops: [op] });
  const [before, sibling] = makeTrace(1);
  const [after] = makeTrace(0);
  // A run id that is not a UUID, as a writer that did not check it would append: the schema takes
  // any string, the runs table's UUID column never will. In the trace of the run before it, so
  // the projector's cache of that trace holds the refused run too until it forgets it.
  const refusedEvent = eventOf(runOp('run-42', before!.trace_id, sibling!.dotted_order, 'refused'), before!.trace_id);
  const keyOf = (traceId: string) => `${tenantId}/${traceId}`;
  const log = new EventLog(stack.config, 'test-refused');
  await log.append([
    event('RunOpsAppended', keyOf(before!.trace_id), eventOf(runOp(before!.id, before!.trace_id, before!.dotted_order, 'before-refused'), before!.trace_id)),
    event('RunOpsAppended', keyOf(before!.trace_id), refusedEvent),
    event('RunOpsAppended', keyOf(after!.trace_id), eventOf(runOp(after!.id, after!.trace_id, after!.dotted_order, 'after-refused'), after!.trace_id)),
  ]);
  await log.close();

  const ch = stackClickHouse(stack);
  await waitFor('the runs appended beside the refused one', async () => {
    const rows = await ch.query<{ name: string }>(sql`SELECT name FROM runs FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY name`);
    return rows.length === 2 ? rows : null;
  }, 30_000, 200).then((rows) => expect(rows.map((r) => r.name)).toEqual(['after-refused', 'before-refused']));
  await ch.close();

  const dead = await findDeadLetter(stack.config, TOPICS.runs, keyOf(before!.trace_id));
  expect(dead.value.equals(encodeEvent('RunOpsAppended', refusedEvent).value), 'kept byte for byte').toBe(true);
  // refused before it is sent: the insert's encoder (RowBinary) names the column and the value
  expect(deadLetterHeader(dead, 'dead-letter-reason')).toMatch(/refused it: column id: not a UUID: "run-42"/);
  const [, partition, offset] = deadLetterHeader(dead, 'dead-letter-source')!.match(/\/(\d+)\/(\d+)$/)!;
  await waitFor('the committed offset past the refused event', async () =>
    (await committedOffset(stack.config, runsProjectorGroupId(stack.config), TOPICS.runs, Number(partition))) > BigInt(offset!), 30_000, 100);
});

/**
 * Appends, for a new tenant, six traces of four runs, each trace's ops in three events interleaved
 * with the other traces' (posts, more posts, patches with usage): a trace's runs and patches land
 * in different parts of a batch. Returns the tenant.
 */
async function appendInterleavedTraces(): Promise<string> {
  const tenantId = randomUUID();
  const sessionId = randomUUID();
  const t0 = Date.now() * 1000;
  const post = (r: ReturnType<typeof makeTrace>[number], i: number): RunOp => ({
    op: 'post', run_id: r.id, session_id: sessionId, parent_run_id: r.parent_run_id ?? null, dotted_order: r.dotted_order!, name: r.name!,
    run_type: r.run_type!, start_time: t0 + i, end_time: null, inputs: JSON.stringify({ i }), events: null, extra: null, serialized: null, error: null,
    tags: ['parts'], reference_example_id: null, attachments: [], outputs: null,
  });
  const patch = (r: ReturnType<typeof makeTrace>[number], i: number): RunOp => ({
    ...post(r, i), op: 'patch', session_id: null, parent_run_id: null, dotted_order: null, name: null, run_type: null, start_time: null,
    inputs: null, tags: null, end_time: t0 + 1000 + i,
    outputs: JSON.stringify({ done: r.id, ...(r.parent_run_id ? { usage_metadata: { input_tokens: i, output_tokens: 2, total_tokens: i + 2 } } : {}) }),
  } as unknown as RunOp);
  const traces = Array.from({ length: 6 }, () => makeTrace(3));
  const eventOf = (traceId: string, ops: RunOp[]) =>
    event('RunOpsAppended', `${tenantId}/${traceId}`, { tenant_id: tenantId, trace_id: traceId, request_id: randomUUID(), received_at: t0, ops });
  const log = new EventLog(stack.config, 'test-parts');
  await log.append([
    ...traces.map((t) => eventOf(t[0]!.trace_id, t.slice(0, 2).map(post))),
    ...traces.map((t) => eventOf(t[0]!.trace_id, t.slice(2).map((r, i) => post(r, i + 2)))),
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
async function expectFreshProjectionEqualsLive(tenantId: string, ch: ClickHouseClient, fresh: ReadModelTables, options: RunsProjectorOptions): Promise<void> {
  await createReadModelTables(ch, fresh);
  const projector = new RunsProjector(stack.config, ch, createLogger('fresh', 'silent'), { groupId: `fresh-${randomUUID()}`, tables: fresh, ...options });
  await projector.start();
  try {
    const runsOf = (tables: ReadModelTables) => ch.query(sql`
      SELECT toString(id) AS id, name, status, end_time, inputs, outputs, total_tokens, prompt_tokens, total_cost, tags
      FROM ${ident(tables.runs)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY id`);
    const tracesOf = (tables: ReadModelTables) => ch.query(sql`
      SELECT toString(trace_id) AS trace_id, name, status, run_count, total_tokens, end_time, run_types, run_type_counts
      FROM ${ident(tables.traces)} FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY trace_id`);
    const locationsOf = (tables: ReadModelTables) => ch.query(sql`
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
    const tracesDone = (rows: Array<Record<string, unknown>>) => rows.length === 6 && rows.every((r) => r.run_count === 4 && r.status === 'success');
    await waitFor('the trace rows', async () => {
      const [mine, theirs] = [await tracesOf(fresh), await tracesOf(LIVE_TABLES)];
      return tracesDone(mine) && tracesDone(theirs) && JSON.stringify(mine) === JSON.stringify(theirs);
    }, 10_000, 200).catch(async () => expect(await tracesOf(fresh)).toEqual(await tracesOf(LIVE_TABLES)));
    await waitFor('the locations', async () => {
      const [mine, theirs] = [await locationsOf(fresh), await locationsOf(LIVE_TABLES)];
      return mine.length === 24 && JSON.stringify(mine) === JSON.stringify(theirs);
    }, 10_000, 200).catch(async () => expect(await locationsOf(fresh)).toEqual(await locationsOf(LIVE_TABLES)));
  } finally {
    await projector.stop();
    for (const table of Object.values(fresh)) await ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`);
  }
}

test('a batch merged and written a few ops at a time, each part written while the next merges, gives the rows one merge gives', async () => {
  const tenantId = await appendInterleavedTraces();
  const ch = stackClickHouse(stack);
  try {
    await expectFreshProjectionEqualsLive(tenantId, ch, tablesWithSuffix(`_parts_${randomUUID().slice(0, 8)}`), { writePartOps: 3 });
  } finally {
    await ch.close();
  }
});

/**
 * Before each insert into `traces`, reads what ClickHouse holds of the traces it names: a reader
 * that finds a trace row goes on to its runs (the trace tree, a thread's turns with their inputs,
 * GET /runs/{id} through run_locations), so every run the row counts must be readable already.
 */
class TraceRowsProbe extends ClickHouseClient {
  readonly violations: string[] = [];
  traceRowsChecked = 0;
  readonly #tables: ReadModelTables;
  constructor(config: TracingStack['config'], tables: ReadModelTables) {
    super({ url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE, user: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD });
    this.#tables = tables;
  }

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    // a failed check must not fail the insert: the projector would set the batch aside
    if (table === this.#tables.traces && rows.length > 0) await this.#check(rows as TraceRow[]).catch((err) => this.violations.push(`check failed: ${err}`));
    await super.insertRowBinary(table, columns, rows);
  }

  async #check(rows: TraceRow[]): Promise<void> {
    const keys = join(rows.map((r) => sql`(toUUID(${r.tenant_id}), toUUID(${r.trace_id}))`));
    const runs = await this.query<{ trace: string; runs: string; version: string }>(sql`
      SELECT toString(trace_id) AS trace, countIf(has_post = 1) AS runs, maxIf(version, has_post = 1) AS version
      FROM ${ident(this.#tables.runs)} FINAL WHERE (tenant_id, trace_id) IN (${keys}) GROUP BY trace_id`);
    const located = await this.query<{ trace: string; runs: string }>(sql`
      SELECT toString(trace_id) AS trace, count() AS runs
      FROM ${ident(this.#tables.runLocations)} FINAL WHERE (tenant_id, trace_id) IN (${keys}) GROUP BY trace_id`);
    const runsOf = new Map(runs.map((r) => [r.trace, r]));
    const locatedOf = new Map(located.map((r) => [r.trace, Number(r.runs)]));
    for (const row of rows) {
      this.traceRowsChecked++;
      const durable = runsOf.get(row.trace_id);
      // at least: runs of a later part of the batch may already be written too
      if (Number(durable?.runs ?? 0) < row.run_count || Number(durable?.version ?? 0) < row.version)
        this.violations.push(`trace ${row.trace_id} (${row.run_count} runs, version ${row.version}) before its runs: ${JSON.stringify(durable ?? null)}`);
      if ((locatedOf.get(row.trace_id) ?? 0) < row.run_count)
        this.violations.push(`trace ${row.trace_id} (${row.run_count} runs) before its runs' locations: ${locatedOf.get(row.trace_id) ?? 0}`);
    }
  }
}

test('no trace row reaches ClickHouse before the runs and locations it counts, each part of a batch included', async () => {
  const tenantId = await appendInterleavedTraces();
  const fresh = tablesWithSuffix(`_ryw_${randomUUID().slice(0, 8)}`);
  const probe = new TraceRowsProbe(stack.config, fresh);
  try {
    await expectFreshProjectionEqualsLive(tenantId, probe, fresh, { writePartOps: 3 });
  } finally {
    await probe.close();
  }
  expect(probe.traceRowsChecked).toBeGreaterThanOrEqual(6);
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
    super({ url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE, user: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD });
    this.#table = table;
    this.#tenantId = tenantId;
  }

  override async insertRowBinary(table: string, columns: RowBinaryColumns, rows: readonly object[]): Promise<void> {
    if (!this.failed && table === this.#table && rows.some((r) => (r as { tenant_id: string }).tenant_id === this.#tenantId)) {
      this.failed = true;
      throw Object.assign(new Error(`the test refuses this insert into ${table}`), { retryable: false });
    }
    await super.insertRowBinary(table, columns, rows);
  }
}

test.each(['runLocations', 'traces'] as const)('a batch whose %s insert failed after its runs were written is projected again: nothing lost', async (failing) => {
  const tenantId = await appendInterleavedTraces();
  const fresh = tablesWithSuffix(`_fail_${randomUUID().slice(0, 8)}`);
  const probe = new FailOnceProbe(stack.config, fresh[failing], tenantId);
  try {
    await expectFreshProjectionEqualsLive(tenantId, probe, fresh, {});
  } finally {
    await probe.close();
  }
  expect(probe.failed).toBe(true);
});
