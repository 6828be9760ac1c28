// Reads of threads: a project's threads over a time window (the `threads` view's summary
// columns, computed over the window's traces), keyset-paged by last activity, and the traces
// of one thread in turn order. A thread's stats are traceSetStatsQuery over its traces.
//
// A page reads the newest hours of its window until the threads their traces name fill it with
// activity later than any older hour of the window reaches, then those threads' traces of the
// window (threadTables.ts): its cost is the newest hours and its threads, not the window. A
// thread's traces are one range of traces_by_thread.
//
// These reads pick granules by key (a page's threads lie scattered over traces_by_thread), so
// they keep the blocks they decompress in ClickHouse's uncompressed cache (cacheBlocks): a
// granule read otherwise decompresses the whole block around it, of every column, on every
// request; at 10M runs that was three quarters of a page of threads (docs/read-models.md).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { num, numOrNull } from '../../platform/clickhouse/rowValues.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { usageFromRow, type Usage } from '../shared/usage.ts';
import { tracePage, traceSummaryFromClickHouse, TRACE_COLUMNS, type TraceSummary } from '../shared/tracePages.ts';
import { hourOf, hourSpans } from '../shared/hours.ts';
import { copyUsable } from '../shared/copies.ts';
import { THREAD_SUMMARY_COLUMNS } from './threadsView.ts';

type Tables = Pick<ReadModelTables, 'traces' | 'tracesByHour' | 'tracesByThread' | 'traceHourReach'>;

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

export async function threadPageQuery(
  ch: ClickHouseClient,
  tables: Tables,
  q: ThreadPageQuery,
): Promise<ThreadSummary[]> {
  if (!(await copyUsable(ch, 'byThread')) || !(await copyUsable(ch, 'byHour')))
    return summaries(ch, ident(tables.traces), q, null);
  const threads = await newestThreads(ch, tables, q);
  return threads.length === 0 ? [] : summaries(ch, ident(tables.tracesByThread), q, threads);
}

/** UTF-8 byte order, as ClickHouse compares strings. */
const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Whether (activity, thread) comes after the page key in (last_activity, thread_id) DESC order. */
const pastKey = (activity: number, thread: string, after: ThreadPageKey | undefined): boolean =>
  !after ||
  activity < after.lastActivity ||
  (activity === after.lastActivity && compareBytes(thread, after.threadId) < 0);

/**
 * The threads of a page: the `limit` first by (last activity, thread id) DESC past the page key.
 * Reads the window's hours newest first (1, 2, 4, … hours with traces at a time), each thread's
 * latest run start over them. Once `limit` threads past the key have activity later than the
 * reach of every older hour (trace_hour_reach: no trace of those hours has a run starting later),
 * no thread whose traces are all older can come before them, and their activity is final.
 */
async function newestThreads(ch: ClickHouseClient, tables: Tables, q: ThreadPageQuery): Promise<string[]> {
  const owner = sql`tenant_id = toUUID(${q.tenantId}) AND session_id = toUUID(${q.projectId})`;
  const reaches = await ch.query<{ hour: string; latest: string }>(
    sql`SELECT hour, max(reach) AS latest FROM ${ident(tables.traceHourReach)}
        WHERE ${owner} AND hour >= ${hourOf(q.minStartTime)} AND hour < ${q.maxStartTime}
        GROUP BY hour ORDER BY hour`,
  );
  const hours = reaches.map((r) => num(r.hour));
  // reachBelow[i]: the latest run start of any trace of the window's hours before hours[i].
  const reachBelow: number[] = [];
  let latest = -Infinity;
  for (const r of reaches) {
    reachBelow.push(latest);
    latest = Math.max(latest, num(r.latest));
  }
  const activity = new Map<string, number>();
  for (const { from, to, left } of hourSpans(hours, true)) {
    // Key columns in PREWHERE: FINAL then merges the hours' rows alone (a row's versions share them).
    const rows = await ch.query<{ thread_id: string; activity: string }>(
      sql`SELECT thread_id, max(last_run_start_time) AS activity FROM ${ident(tables.tracesByHour)} FINAL
          PREWHERE ${owner} AND hour >= ${from} AND hour < ${to}
          WHERE start_time >= ${q.minStartTime} AND start_time < ${q.maxStartTime} AND deleted = 0 AND thread_id != ''
          GROUP BY thread_id`,
      { cacheBlocks: true },
    );
    for (const r of rows) activity.set(r.thread_id, Math.max(activity.get(r.thread_id) ?? -Infinity, num(r.activity)));
    const older = left === 0 ? -Infinity : reachBelow[left]!;
    const ahead = [...activity].filter(([thread, a]) => a > older && pastKey(a, thread, q.after));
    if (ahead.length >= q.limit || left === 0)
      return ahead
        .sort(([t1, a1], [t2, a2]) => a2 - a1 || compareBytes(t2, t1))
        .slice(0, q.limit)
        .map(([thread]) => thread);
  }
  return [];
}

/** Thread summaries over the window, from every trace of the project's (threads null) or from those threads' own rows. */
async function summaries(
  ch: ClickHouseClient,
  table: Sql,
  q: ThreadPageQuery,
  threads: string[] | null,
): Promise<ThreadSummary[]> {
  const having = q.after
    ? sql`HAVING last_activity < ${q.after.lastActivity} OR (last_activity = ${q.after.lastActivity} AND thread_id < ${q.after.threadId})`
    : raw('');
  const owner = sql`tenant_id = toUUID(${q.tenantId}) AND session_id = toUUID(${q.projectId})`;
  // traces_by_thread: the threads' key range in PREWHERE, so FINAL merges their rows alone (a
  // row's versions share its key; not so in `traces`, whose key is the trace alone).
  const which = threads
    ? sql`PREWHERE ${owner} AND thread_id IN (${join(threads.map((t) => sql`${t}`))}) WHERE deleted = 0`
    : sql`WHERE ${owner} AND thread_id != ''`;
  const rows = await ch.query(
    sql`SELECT thread_id, ${SUMMARY}, quantiles(0.5, 0.99)((end_time - start_time) / 1000000) AS latency
        FROM ${table} FINAL
        ${which} AND start_time >= ${q.minStartTime} AND start_time < ${q.maxStartTime}
        GROUP BY thread_id
        ${having}
        ORDER BY last_activity DESC, thread_id DESC
        LIMIT ${q.limit}`,
    { cacheBlocks: threads !== null },
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

export async function threadTracesQuery(
  ch: ClickHouseClient,
  tables: Tables,
  q: ThreadTracesQuery,
): Promise<TraceSummary[]> {
  const where: Sql[] = [
    sql`tenant_id = toUUID(${q.tenantId})`,
    sql`session_id = toUUID(${q.projectId})`,
    sql`thread_id = ${q.threadId}`,
  ];
  if (q.after)
    where.push(
      sql`(start_time > ${q.after.startTime} OR (start_time = ${q.after.startTime} AND trace_id > toUUID(${q.after.traceId})))`,
    );
  if (!(await copyUsable(ch, 'byThread')))
    return tracePage(ch, tables, q.tenantId, where, raw('start_time, trace_id'), q.limit);
  // The thread's rows are one range of traces_by_thread: FINAL over every column of it is cheap.
  const rows = await ch.query(
    sql`SELECT ${TRACE_COLUMNS} FROM ${ident(tables.tracesByThread)} FINAL
        WHERE ${join(where, ' AND ')} AND deleted = 0
        ORDER BY start_time, trace_id LIMIT ${q.limit}`,
    { cacheBlocks: true },
  );
  return rows.map(traceSummaryFromClickHouse);
}
