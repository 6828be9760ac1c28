// Reads of traces: a page of a project's traces (one row per trace, keyset-paged by the order
// asked, newest first by default), its keys read from the copy of the rows that holds them in one
// range (shared/tracePages.ts reads the page's rows). The runs of a trace are runs/traceRunsQueries.ts.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import { num } from '../../platform/clickhouse/rowValues.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { copyUsable } from '../shared/copies.ts';
import { hourOf, hourSpans, hoursTouched } from '../shared/hours.ts';
import {
  pageKeys,
  sortedTracePage,
  tracesOfKeys,
  type KeySource,
  type PageKey,
  type SortedTrace,
} from '../shared/tracePages.ts';

type Tables = Pick<ReadModelTables, 'traces' | 'tracesByThread' | 'tracesByHour' | 'traceHourWrites'>;

/** What a project's traces can be ordered by (then by trace_id, the same way). */
export const TRACE_SORTS = ['start_time', 'latency', 'total_tokens', 'total_cost'] as const;
export type TraceSort = (typeof TRACE_SORTS)[number];
export type SortOrder = 'asc' | 'desc';

/**
 * Each order's key as an integer expression of the trace row, so a cursor holds it exactly:
 * latency in microseconds (a trace still running, with no end yet, as -1: the shortest), cost
 * in nano-units (a Float64 literal need not parse back to the same double on every release).
 */
const SORT_KEYS: Record<TraceSort, Sql> = {
  start_time: raw('start_time'),
  latency: raw('ifNull(end_time - start_time, -1)'),
  total_tokens: raw('toInt64(total_tokens)'),
  total_cost: raw('toInt64(round(total_cost * 1000000000))'),
};

/** Where the previous page ended: the last trace's sort key and id. */
export interface TracePageKey {
  value: number;
  traceId: string;
}

export interface TracePageQuery {
  tenantId: string;
  projectIds: readonly string[];
  /** Root start time window, microseconds: [minStartTime, maxStartTime). */
  minStartTime: number;
  maxStartTime: number;
  threadId?: string | undefined;
  /** true: traces whose root run errored; false: the others. */
  hasError?: boolean | undefined;
  traceIds?: readonly string[] | undefined;
  /** More conditions on the trace row (e.g. the filter language's, as `trace_id IN (…)` over runs). */
  conditions?: readonly Sql[] | undefined;
  /** Default: start_time, newest first. */
  sortBy?: TraceSort | undefined;
  order?: SortOrder | undefined;
  after?: TracePageKey | undefined;
  limit: number;
}

export async function tracePageQuery(ch: ClickHouseClient, tables: Tables, q: TracePageQuery): Promise<SortedTrace[]> {
  const sortBy = q.sortBy ?? 'start_time';
  const key = SORT_KEYS[sortBy];
  const desc = (q.order ?? 'desc') === 'desc';
  const where: Sql[] = [
    sql`tenant_id = toUUID(${q.tenantId})`,
    sql`session_id IN (${uuidSet(q.projectIds)})`,
    sql`start_time >= ${q.minStartTime} AND start_time < ${q.maxStartTime}`,
  ];
  if (q.threadId !== undefined) where.push(sql`thread_id = ${q.threadId}`);
  if (q.hasError !== undefined) where.push(q.hasError ? sql`status = 'error'` : sql`status != 'error'`);
  if (q.traceIds?.length) where.push(sql`trace_id IN (${uuidSet(q.traceIds)})`);
  where.push(...(q.conditions ?? []));
  if (q.after) {
    const past = raw(desc ? '<' : '>');
    where.push(
      sql`(${key} ${past} ${q.after.value} OR (${key} = ${q.after.value} AND trace_id ${past} toUUID(${q.after.traceId})))`,
    );
  }
  const dir = raw(desc ? 'DESC' : 'ASC');
  const order = sql`sort_key ${dir}, trace_id ${dir}`;
  // One thread's traces are one range of traces_by_thread; a project's traces of an hour, one
  // range of traces_by_hour: the page's keys come from there (copiesUpgrade.ts: unless an
  // upgraded database has not rebuilt them yet).
  if (q.threadId !== undefined && (await copyUsable(ch, 'byThread')))
    return sortedTracePage(ch, tables, q.tenantId, [...where, raw('deleted = 0')], key, order, q.limit, {
      table: tables.tracesByThread,
      place: 'thread',
    });
  if (!(await copyUsable(ch, 'byHour'))) return sortedTracePage(ch, tables, q.tenantId, where, key, order, q.limit);
  const byHour: KeySource = { table: tables.tracesByHour, place: 'hour' };
  const hourBounds = hoursTouched(q.minStartTime, q.maxStartTime);
  if (sortBy !== 'start_time')
    return sortedTracePage(
      ch,
      tables,
      q.tenantId,
      [...where, raw('deleted = 0'), ...hourBounds],
      key,
      order,
      q.limit,
      byHour,
    );
  // By start time: the traces of an hour all start after those of the hours before it, so the
  // window's hours are read from the page's end (1, 2, 4, … hours with traces at a time) until
  // the page is full.
  const hours = (
    await ch.query<{ hour: string }>(
      sql`SELECT DISTINCT hour FROM ${ident(tables.traceHourWrites)}
          WHERE tenant_id = toUUID(${q.tenantId}) AND session_id IN (${uuidSet(q.projectIds)}) AND ${join(hourBounds, ' AND ')}`,
    )
  )
    .map((r) => num(r.hour))
    .filter((h) => !q.after || (desc ? h <= hourOf(q.after.value) : h >= hourOf(q.after.value)))
    .sort((a, b) => a - b);
  const keys: PageKey[] = [];
  for (const { from, to } of hourSpans(hours, desc)) {
    if (keys.length >= q.limit) break;
    keys.push(
      ...(await pageKeys(
        ch,
        [...where, raw('deleted = 0'), sql`hour >= ${from} AND hour < ${to}`],
        key,
        order,
        q.limit - keys.length,
        byHour,
      )),
    );
  }
  return tracesOfKeys(ch, tables, q.tenantId, keys, byHour);
}
