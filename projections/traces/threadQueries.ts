// Reads of threads: a project's threads over a time window (the `threads` view's summary
// columns, computed over the window's traces), keyset-paged by last activity, and the traces
// of one thread in turn order. A thread's stats are traceSetStatsQuery over its traces.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../readModelTables.ts';
import { usageFromRow, type Usage } from '../runs/derivedFields.ts';
import { THREAD_SUMMARY_COLUMNS } from './threadsView.ts';
import { tracePage, type TraceSummary } from './traceQueries.ts';
import { num, numOrNull } from '../../platform/clickhouse/rowValues.ts';

type Tables = Pick<ReadModelTables, 'traces'>;

/** A thread over the queried window. Times in microseconds, latencies in seconds. */
export interface ThreadSummary extends Usage {
  thread_id: string;
  first_activity: number;
  last_activity: number;
  trace_count: number;
  first_trace_id: string;
  latest_root_run_id: string;
  last_trace_start_time: number;
  errored_traces: number;
  run_count: number;
  error_count: number;
  latency_p50: number | null;
  latency_p99: number | null;
}

/** Threads are ordered by (last_activity, thread_id), most recent first. */
export interface ThreadPageKey {
  lastActivity: number;
  threadId: string;
}

export interface ThreadPageQuery {
  tenantId: string;
  projectId: string;
  /** Traces whose root started in [minStartTime, maxStartTime), microseconds. */
  minStartTime: number;
  maxStartTime: number;
  after?: ThreadPageKey | undefined;
  limit: number;
}

const SUMMARY = raw(THREAD_SUMMARY_COLUMNS.join(', '));

export async function threadPageQuery(ch: ClickHouseClient, tables: Tables, q: ThreadPageQuery): Promise<ThreadSummary[]> {
  const having = q.after
    ? sql`HAVING last_activity < ${q.after.lastActivity} OR (last_activity = ${q.after.lastActivity} AND thread_id < ${q.after.threadId})`
    : raw('');
  const rows = await ch.query(
    sql`SELECT thread_id, ${SUMMARY}, quantiles(0.5, 0.99)((end_time - start_time) / 1000000) AS latency
        FROM ${ident(tables.traces)} FINAL
        WHERE tenant_id = toUUID(${q.tenantId}) AND session_id = toUUID(${q.projectId}) AND thread_id != ''
          AND start_time >= ${q.minStartTime} AND start_time < ${q.maxStartTime}
        GROUP BY thread_id
        ${having}
        ORDER BY last_activity DESC, thread_id DESC
        LIMIT ${q.limit}`,
  );
  return rows.map((r) => ({
    thread_id: r.thread_id as string,
    first_activity: num(r.first_activity),
    last_activity: num(r.last_activity),
    trace_count: num(r.trace_count),
    first_trace_id: r.first_trace_id as string,
    latest_root_run_id: r.latest_root_run_id as string,
    last_trace_start_time: num(r.last_trace_start_time),
    errored_traces: num(r.errored_traces),
    run_count: num(r.run_count),
    error_count: num(r.error_count),
    ...usageFromRow(r),
    latency_p50: numOrNull((r.latency as unknown[])[0]),
    latency_p99: numOrNull((r.latency as unknown[])[1]),
  }));
}

/** Traces of a thread are ordered by (start_time, trace_id), oldest first: the turn order. */
export interface ThreadTracePageKey {
  startTime: number;
  traceId: string;
}

export interface ThreadTracesQuery {
  tenantId: string;
  projectId: string;
  threadId: string;
  after?: ThreadTracePageKey | undefined;
  limit: number;
}

export async function threadTracesQuery(ch: ClickHouseClient, tables: Tables, q: ThreadTracesQuery): Promise<TraceSummary[]> {
  const where: Sql[] = [sql`tenant_id = toUUID(${q.tenantId})`, sql`session_id = toUUID(${q.projectId})`, sql`thread_id = ${q.threadId}`];
  if (q.after) where.push(sql`(start_time > ${q.after.startTime} OR (start_time = ${q.after.startTime} AND trace_id > toUUID(${q.after.traceId})))`);
  return tracePage(ch, tables, q.tenantId, where, raw('start_time, trace_id'), q.limit);
}
