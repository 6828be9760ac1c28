// A trace row as reads return it (times in microseconds), and a page of trace rows read by their
// keys from `traces` or from one of its copies (traces_by_hour, traces_by_thread). Shared by the
// traces model (its pages of a project's traces) and the threads model (a thread's traces).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import { num, numOrNull } from '../../platform/clickhouse/rowValues.ts';
import type { ReadModelTables } from './readModelTables.ts';
import { usageFromRow, type Usage } from './usage.ts';

/** A trace row as the routes read it (times in microseconds). */
export interface TraceSummary extends Usage {
  trace_id: string;
  session_id: string;
  thread_id: string;
  name: string;
  run_type: string;
  status: string;
  start_time: number;
  end_time: number | null;
  first_token_time: number | null;
  last_run_start_time: number;
  run_count: number;
  error_count: number;
  run_type_counts: Record<string, number>;
  status_counts: Record<string, number>;
  tags: string[];
  has_root: boolean;
}

/** The columns traceSummaryFromClickHouse reads. */
export const TRACE_COLUMNS = raw(
  'trace_id, session_id, thread_id, name, run_type, status, start_time, end_time, first_token_time, last_run_start_time, ' +
    'run_count, error_count, run_types, run_type_counts, statuses, status_counts, ' +
    'prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost, tags, has_root',
);

const counts = (keys: unknown, values: unknown): Record<string, number> => {
  const out: Record<string, number> = {};
  (keys as string[]).forEach((k, i) => (out[k] = num((values as unknown[])[i])));
  return out;
};

export function traceSummaryFromClickHouse(r: Record<string, unknown>): TraceSummary {
  return {
    trace_id: r.trace_id as string,
    session_id: r.session_id as string,
    thread_id: r.thread_id as string,
    name: r.name as string,
    run_type: r.run_type as string,
    status: r.status as string,
    start_time: num(r.start_time),
    end_time: numOrNull(r.end_time),
    first_token_time: numOrNull(r.first_token_time),
    last_run_start_time: num(r.last_run_start_time),
    run_count: num(r.run_count),
    error_count: num(r.error_count),
    run_type_counts: counts(r.run_types, r.run_type_counts),
    status_counts: counts(r.statuses, r.status_counts),
    ...usageFromRow(r),
    tags: r.tags as string[],
    has_root: num(r.has_root) === 1,
  };
}

/** A trace of a page with its sort key (for the next page's cursor). */
export interface SortedTrace {
  trace: TraceSummary;
  key: number;
}

/** Where a page's keys are read from: `traces`, or a copy of its rows (each row keyed by its place there too). */
export interface KeySource {
  table: string;
  place: 'trace' | 'hour' | 'thread';
}

/** A trace of a page as its keys' table holds it: its id, sort key and place. */
export interface PageKey {
  trace_id: string;
  sort_key: unknown;
  place_session?: string;
  place?: unknown;
}

const PLACE_COLUMNS: Record<KeySource['place'], Sql> = {
  trace: raw(''),
  hour: raw(', toString(session_id) AS place_session, hour AS place'),
  thread: raw(', toString(session_id) AS place_session, thread_id AS place'),
};

/**
 * A page of trace rows: the keys that match, in order (FINAL over the few columns that choose
 * the page), then those traces' rows (every column) by key, reduced to the newest version of each
 * here. FINAL over every column of a project's traces costs several times both together.
 * `order` is constant SQL.
 */
export async function tracePage(
  ch: ClickHouseClient,
  tables: Pick<ReadModelTables, 'traces'>,
  tenantId: string,
  where: readonly Sql[],
  order: Sql,
  limit: number,
): Promise<TraceSummary[]> {
  return (await sortedTracePage(ch, tables, tenantId, where, raw('0'), order, limit)).map((t) => t.trace);
}

/** tracePage, each trace with the value of `key` (an expression of the row; `sort_key` in `order`). */
export async function sortedTracePage(
  ch: ClickHouseClient,
  tables: Pick<ReadModelTables, 'traces'>,
  tenantId: string,
  where: readonly Sql[],
  key: Sql,
  order: Sql,
  limit: number,
  source: KeySource = { table: tables.traces, place: 'trace' },
): Promise<SortedTrace[]> {
  return tracesOfKeys(ch, tables, tenantId, await pageKeys(ch, where, key, order, limit, source), source);
}

export function pageKeys(
  ch: ClickHouseClient,
  where: readonly Sql[],
  key: Sql,
  order: Sql,
  limit: number,
  source: KeySource,
): Promise<PageKey[]> {
  return ch.query<PageKey>(
    sql`SELECT trace_id, ${key} AS sort_key${PLACE_COLUMNS[source.place]} FROM ${ident(source.table)} FINAL
        WHERE ${join(where, ' AND ')} ORDER BY ${order} LIMIT ${limit}`,
  );
}

/** The rows of a page's traces, by their keys where the keys were read (a copy's newest row may say the trace left: then it is not on the page). */
export async function tracesOfKeys(
  ch: ClickHouseClient,
  tables: Pick<ReadModelTables, 'traces'>,
  tenantId: string,
  keys: PageKey[],
  source: KeySource,
): Promise<SortedTrace[]> {
  if (keys.length === 0) return [];
  const byKey =
    source.place === 'trace'
      ? sql`trace_id IN (${uuidSet(keys.map((k) => k.trace_id))})`
      : source.place === 'hour'
        ? sql`(session_id, hour, trace_id) IN (${join(keys.map((k) => sql`(${k.place_session!}, ${num(k.place)}, ${k.trace_id})`))})`
        : sql`(session_id, thread_id, trace_id) IN (${join(keys.map((k) => sql`(${k.place_session!}, ${String(k.place)}, ${k.trace_id})`))})`;
  const rows = await ch.query(
    sql`SELECT ${TRACE_COLUMNS}, version${raw(source.place === 'trace' ? '' : ', deleted')} FROM ${ident(source.place === 'trace' ? tables.traces : source.table)}
        WHERE tenant_id = toUUID(${tenantId}) AND ${byKey}`,
  );
  const newest = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const seen = newest.get(r.trace_id as string);
    if (!seen || Number(r.version) > Number(seen.version)) newest.set(r.trace_id as string, r);
  }
  return keys.flatMap((k) => {
    const r = newest.get(k.trace_id);
    return r && num(r.deleted ?? 0) === 0 ? [{ trace: traceSummaryFromClickHouse(r), key: num(k.sort_key) }] : [];
  });
}
