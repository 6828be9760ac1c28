// A scratch ClickHouse database with the read-model tables (and the threads view), rows put
// straight into `runs` and `traces`, and the trace, thread and stats routes served in-process
// over it: query logic tested without the projector. Used by the tests and the benchmark.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../../../platform/http/server.ts';
import { ClickHouseClient } from '../../../../platform/clickhouse/client.ts';
import { createReadModelTables } from '../../../../projections/readModels.ts';
import { ident, sql } from '../../../../platform/clickhouse/sql.ts';
import { loadConfig } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { BlobStore } from '../../../../platform/blobStore.ts';
import type { EventLog } from '../../../../platform/kafka/eventLog.ts';
import { HOUR_MICROS, hourOf } from '../../../../projections/shared/hours.ts';
import {
  hourRow,
  hourWrites,
  TRACES_BY_HOUR_COLUMNS,
  TRACE_HOUR_WRITES_COLUMNS,
} from '../../../../projections/traces/hourStats.ts';
import {
  hourReach,
  threadRow,
  threadRows,
  TRACES_BY_THREAD_COLUMNS,
  TRACE_HOUR_REACH_COLUMNS,
} from '../../../../projections/threads/threadTables.ts';
import type { TraceRow } from '../../../../projections/shared/traceRow.ts';
import { LIVE_TABLES } from '../../../../projections/readModelTables.ts';
import { createThreadsView, THREADS_VIEW } from '../../../../projections/threads/threadsView.ts';
import { ProjectRegistry } from '../../../../projections/projects/projectRegistry.ts';
import type { DecodedEvent } from '../../../../schemas/registry.ts';
import type { RouteDeps } from '../../../../services/tracing/routes/routeDeps.ts';
import { v2TraceRoutes } from '../../../../services/tracing/routes/traces.ts';
import { v2ThreadRoutes } from '../../../../services/tracing/routes/threads.ts';
import { projectStatsRoutes } from '../../../../services/tracing/routes/projectStats.ts';

export interface ScratchDatabase {
  ch: ClickHouseClient;
  database: string;
  drop(): Promise<void>;
}

/** A fresh database holding every read-model table under its live name, and the threads view. */
export async function scratchDatabase(clickhouseUrl: string, prefix = 'traces_test'): Promise<ScratchDatabase> {
  const database = `${prefix}_${randomBytes(4).toString('hex')}`;
  const ch = new ClickHouseClient({ url: clickhouseUrl, database });
  await ch.exec(sql`CREATE DATABASE ${ident(database)}`, { database: null });
  await createReadModelTables(ch, LIVE_TABLES);
  await ch.exec(createThreadsView(THREADS_VIEW, LIVE_TABLES.traces));
  return {
    ch,
    database,
    async drop() {
      await ch.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { database: null });
      await ch.close();
    },
  };
}

export const SECOND = 1_000_000;

export interface TraceFixture {
  tenant_id: string;
  trace_id: string;
  session_id: string;
  thread_id?: string;
  name?: string;
  run_type?: string;
  status?: string;
  start_time: number;
  end_time?: number | null;
  first_token_time?: number | null;
  last_run_start_time?: number;
  run_count?: number;
  error_count?: number;
  run_types?: string[];
  run_type_counts?: number[];
  statuses?: string[];
  status_counts?: number[];
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_cost?: number;
  completion_cost?: number;
  total_cost?: number;
  tags?: string[];
  version?: number;
}

/** A `traces` row: defaults make a one-run successful chain trace that took a second. */
export function traceRow(t: TraceFixture): Record<string, unknown> {
  const status = t.status ?? 'success';
  return {
    thread_id: '',
    name: 'root',
    run_type: 'chain',
    end_time: t.start_time + SECOND,
    first_token_time: null,
    run_count: 1,
    error_count: status === 'error' ? 1 : 0,
    run_types: [t.run_type ?? 'chain'],
    run_type_counts: [t.run_count ?? 1],
    statuses: [status],
    status_counts: [t.run_count ?? 1],
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_cost: 0,
    completion_cost: 0,
    total_cost: 0,
    tags: [],
    has_root: 1,
    version: 1,
    last_run_start_time: t.start_time,
    ...t,
    status,
  };
}

export interface RunFixture {
  tenant_id: string;
  trace_id: string;
  id: string;
  session_id: string;
  parent_run_id?: string | null;
  dotted_order: string;
  name?: string;
  run_type?: string;
  status?: string;
  start_time: number;
  end_time?: number | null;
  inputs?: string;
  outputs?: string;
  extra?: string;
  error?: string | null;
  thread_id?: string;
  total_tokens?: number;
  version?: number;
}

/** A `runs` row whose post has been projected. */
export function runRow(r: RunFixture): Record<string, unknown> {
  return {
    parent_run_id: null,
    name: 'run',
    run_type: 'chain',
    status: 'success',
    end_time: r.start_time + SECOND,
    inputs: '{}',
    outputs: '{}',
    events: '[]',
    extra: '{}',
    serialized: '',
    payload_refs: '{}',
    error: null,
    tags: [],
    attachments: '[]',
    thread_id: '',
    is_root: r.id === r.trace_id ? 1 : 0,
    has_post: 1,
    received_at: r.start_time,
    version: 1,
    ...r,
  };
}

/**
 * Fills `run_keys` and `run_threads` from the rows put straight into `runs` (the projector
 * writes them all): each run's place, and its thread there, once. Call it after inserting runs.
 */
export async function fillRunKeys(ch: ClickHouseClient): Promise<void> {
  await ch.exec(sql`INSERT INTO ${ident(LIVE_TABLES.runKeys)} (tenant_id, trace_id, id, session_id, is_root, start_time)
    SELECT DISTINCT tenant_id, trace_id, id, session_id, is_root, start_time FROM ${ident(LIVE_TABLES.runs)}`);
  await ch.exec(sql`INSERT INTO ${ident(LIVE_TABLES.runThreads)} (tenant_id, thread_id, session_id, is_root, start_time, id)
    SELECT DISTINCT tenant_id, thread_id, session_id, is_root, start_time, id FROM ${ident(LIVE_TABLES.runs)} WHERE thread_id != ''`);
}

/**
 * Fills the copies of the trace rows from those put straight into `traces` (the projector
 * writes them all): `traces_by_hour` with its write counts, `traces_by_thread` and the hours'
 * reach; each trace at its hour and in its thread, once. Call it after inserting traces.
 */
export async function fillTraceCopies(ch: ClickHouseClient): Promise<void> {
  const t = LIVE_TABLES;
  await ch.exec(
    sql`INSERT INTO ${ident(t.tracesByHour)} SELECT *, intDiv(start_time, ${HOUR_MICROS}) * ${HOUR_MICROS}, 0 FROM ${ident(t.traces)} FINAL`,
  );
  await ch.exec(
    sql`INSERT INTO ${ident(t.traceHourWrites)} SELECT tenant_id, session_id, hour, count() FROM ${ident(t.tracesByHour)} GROUP BY tenant_id, session_id, hour`,
  );
  await ch.exec(
    sql`INSERT INTO ${ident(t.tracesByThread)} SELECT *, 0 FROM ${ident(t.traces)} FINAL WHERE thread_id != ''`,
  );
  await ch.exec(
    sql`INSERT INTO ${ident(t.traceHourReach)} SELECT tenant_id, session_id, hour, max(last_run_start_time) FROM ${ident(t.tracesByHour)} GROUP BY tenant_id, session_id, hour`,
  );
}

/**
 * Moves traces as the runs projector writes a move (a root posted after its child, of another
 * hour or naming another thread): each one's new version, one above its row now, with the changes
 * given; tombstones at the places it leaves (by hour, by thread), then its rows by thread with
 * their hours' reach, by hour with their counts, and in `traces`. Returns the new rows.
 */
export async function moveTraces(
  ch: ClickHouseClient,
  moves: Array<{ row: Record<string, unknown>; change: Partial<TraceRow> }>,
): Promise<TraceRow[]> {
  const t = LIVE_TABLES;
  const pairs = moves.map(({ row, change }) => {
    const was = row as unknown as TraceRow;
    return { was, now: { ...was, ...change, version: was.version + 1 } };
  });
  const byHour = pairs
    .filter(({ was, now }) => hourOf(was.start_time) !== hourOf(now.start_time) || was.session_id !== now.session_id)
    .map(({ was, now }) => hourRow({ ...now, session_id: was.session_id, start_time: was.start_time }, 1));
  const byThread = pairs
    .filter(
      ({ was, now }) => was.thread_id !== '' && (was.thread_id !== now.thread_id || was.session_id !== now.session_id),
    )
    .map(({ was, now }) => threadRow({ ...now, session_id: was.session_id, thread_id: was.thread_id }, 1));
  await ch.insertRowBinary(t.tracesByHour, TRACES_BY_HOUR_COLUMNS, byHour);
  await ch.insertRowBinary(t.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites(byHour));
  await ch.insertRowBinary(t.tracesByThread, TRACES_BY_THREAD_COLUMNS, byThread);
  const now = pairs.map((p) => p.now);
  await ch.insertRowBinary(t.tracesByThread, TRACES_BY_THREAD_COLUMNS, threadRows(now));
  await ch.insertRowBinary(t.traceHourReach, TRACE_HOUR_REACH_COLUMNS, hourReach(now));
  const rows = now.map((r) => hourRow(r, 0));
  await ch.insertRowBinary(t.tracesByHour, TRACES_BY_HOUR_COLUMNS, rows);
  await ch.insertRowBinary(t.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites(rows));
  await ch.insert(t.traces, now as unknown as Record<string, unknown>[]);
  return now;
}

/** The trace, thread and stats routes over a database, authenticated by X-Tenant-Id alone (no keys in here). */
export async function readRoutesApp(
  ch: ClickHouseClient,
  projects: Array<{ tenantId: string; projectId: string }>,
): Promise<FastifyInstance> {
  const config = loadConfig({});
  const logger = createLogger('read-routes-test', 'warn');
  const registry = new ProjectRegistry(config, logger);
  for (const p of projects)
    registry.apply({
      name: 'ProjectCreated',
      version: 1,
      payload: {
        tenant_id: p.tenantId,
        project_id: p.projectId,
        name: p.projectId,
        description: null,
        extra: null,
        created_at: 0,
      },
    } as unknown as DecodedEvent);
  const deps: RouteDeps = {
    config,
    ch,
    blobs: new BlobStore(config),
    eventLog: null as unknown as EventLog,
    projects: registry,
    tables: LIVE_TABLES,
  };
  // The platform's server (its input rules and error shape), without the key registry.
  const app = await createHttpServer({
    logger,
    title: 'read routes',
    version: '0',
    description: 'test',
    ready: () => true,
  });
  app.decorateRequest('tenantId', null);
  app.addHook('onRequest', async (request) => {
    request.tenantId = String(request.headers['x-tenant-id']);
  });
  await app.register(async (scope) => projectStatsRoutes(scope, deps));
  await app.register(
    async (v2) => {
      v2TraceRoutes(v2, deps);
      v2ThreadRoutes(v2, deps);
    },
    { prefix: '/api/v2' },
  );
  await app.ready();
  return app;
}
