// Reads of traces: a page of a project's traces from the `traces` table (one row per trace,
// keyset-paged newest first), and the runs of one trace from `runs` by its primary key
// (tenant_id, trace_id), in tree order.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../readModelTables.ts';
import { usageFromRow, type Usage } from '../runs/derivedFields.ts';
import { emptyRow, numbersFromClickHouse, PAYLOAD_FIELDS, type RunRow } from '../runs/runRow.ts';
import { runsOfTraces } from '../runs/runsTable.ts';
import { num, numOrNull } from '../../platform/clickhouse/rowValues.ts';
import { copyUsable } from '../copiesUpgrade.ts';
import { hourOf } from './hourStats.ts';
import { hourSpans, hoursTouched } from './hourStatsQueries.ts';

type Tables = Pick<ReadModelTables, 'runs' | 'runKeys' | 'traces' | 'tracesByThread' | 'tracesByHour' | 'traceHourWrites'>;

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

/** A trace of a page with its sort key (for the next page's cursor). */
export interface SortedTrace {
  trace: TraceSummary;
  key: number;
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
    where.push(sql`(${key} ${past} ${q.after.value} OR (${key} = ${q.after.value} AND trace_id ${past} toUUID(${q.after.traceId})))`);
  }
  const dir = raw(desc ? 'DESC' : 'ASC');
  const order = sql`sort_key ${dir}, trace_id ${dir}`;
  // One thread's traces are one range of traces_by_thread; a project's traces of an hour, one
  // range of traces_by_hour: the page's keys come from there (copiesUpgrade.ts: unless an
  // upgraded database has not rebuilt them yet).
  if (q.threadId !== undefined && (await copyUsable(ch, 'byThread')))
    return sortedTracePage(ch, tables, q.tenantId, [...where, raw('deleted = 0')], key, order, q.limit, { table: tables.tracesByThread, place: 'thread' });
  if (!(await copyUsable(ch, 'byHour'))) return sortedTracePage(ch, tables, q.tenantId, where, key, order, q.limit);
  const byHour: KeySource = { table: tables.tracesByHour, place: 'hour' };
  const hourBounds = hoursTouched(q.minStartTime, q.maxStartTime);
  if (sortBy !== 'start_time') return sortedTracePage(ch, tables, q.tenantId, [...where, raw('deleted = 0'), ...hourBounds], key, order, q.limit, byHour);
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
    keys.push(...(await pageKeys(ch, [...where, raw('deleted = 0'), sql`hour >= ${from} AND hour < ${to}`], key, order, q.limit - keys.length, byHour)));
  }
  return tracesOfKeys(ch, tables, q.tenantId, keys, byHour);
}

/** Where a page's keys are read from: `traces`, or a copy of its rows (each row keyed by its place there too). */
interface KeySource {
  table: string;
  place: 'trace' | 'hour' | 'thread';
}

/** A trace of a page as its keys' table holds it: its id, sort key and place. */
interface PageKey {
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
export async function tracePage(ch: ClickHouseClient, tables: Pick<ReadModelTables, 'traces'>, tenantId: string, where: readonly Sql[], order: Sql, limit: number): Promise<TraceSummary[]> {
  return (await sortedTracePage(ch, tables, tenantId, where, raw('0'), order, limit)).map((t) => t.trace);
}

/** tracePage, each trace with the value of `key` (an expression of the row; `sort_key` in `order`). */
async function sortedTracePage(
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

function pageKeys(ch: ClickHouseClient, where: readonly Sql[], key: Sql, order: Sql, limit: number, source: KeySource): Promise<PageKey[]> {
  return ch.query<PageKey>(
    sql`SELECT trace_id, ${key} AS sort_key${PLACE_COLUMNS[source.place]} FROM ${ident(source.table)} FINAL
        WHERE ${join(where, ' AND ')} ORDER BY ${order} LIMIT ${limit}`,
  );
}

/** The rows of a page's traces, by their keys where the keys were read (a copy's newest row may say the trace left: then it is not on the page). */
async function tracesOfKeys(ch: ClickHouseClient, tables: Pick<ReadModelTables, 'traces'>, tenantId: string, keys: PageKey[], source: KeySource): Promise<SortedTrace[]> {
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

/** A column of `runs` a reader can ask for. */
export type RunColumn = Exclude<keyof RunRow, 'tenant_id'>;

/** Read for every run: identity, what the filters and the tree order need, and the version. */
const ALWAYS_READ: readonly RunColumn[] = ['id', 'trace_id', 'session_id', 'start_time', 'dotted_order', 'has_post', 'version'];

/**
 * The asked columns and the ones always read. Payload columns bring their object-store
 * pointers (payload_refs); callers ask for payloads only when they return them.
 */
function runColumns(asked: readonly RunColumn[]): Sql {
  const payloads = asked.some((c) => (PAYLOAD_FIELDS as readonly string[]).includes(c));
  return join([...new Set([...ALWAYS_READ, ...asked, ...(payloads ? (['payload_refs'] as const) : [])])].map((c) => ident(c)));
}

/** A run row with the columns that were read; the others keep their empty values (no payloads, no refs). */
const partialRun = (tenantId: string, r: Record<string, unknown>): RunRow =>
  numbersFromClickHouse(Object.assign(emptyRow(tenantId, r.trace_id as string, r.id as string), r));

export interface TraceRunsQuery {
  tenantId: string;
  traceId: string;
  projectId?: string | undefined;
  /** Run start time window, microseconds, both ends inclusive. */
  minStartTime?: number | undefined;
  maxStartTime?: number | undefined;
  columns: readonly RunColumn[];
}

/**
 * Rows of `runs` read without FINAL, reduced to the newest version of each run that has been
 * posted (argMax by version: what FINAL does). FINAL merges every selected column of the
 * granules it touches in one thread; for a big trace or a page of roots that is several times
 * slower than reading the versions and keeping the newest here. Filters on non-key columns
 * must apply to the newest version, so callers apply them to what this returns.
 */
function newestPosted(tenantId: string, rows: Record<string, unknown>[]): RunRow[] {
  const newest = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const seen = newest.get(r.id as string);
    if (!seen || Number(r.version) > Number(seen.version)) newest.set(r.id as string, r);
  }
  const runs: RunRow[] = [];
  for (const r of newest.values()) if (Number(r.has_post) === 1) runs.push(partialRun(tenantId, r));
  return runs;
}

/** Every run of a trace (posted ones), in tree order: dotted_order sorts parents before children, siblings by start. */
export async function traceRunsQuery(ch: ClickHouseClient, tables: Tables, q: TraceRunsQuery): Promise<RunRow[]> {
  // Its runs' places from run_keys, then those keys of `runs` (the trace_id check drops nothing
  // but keeps the read exact should a key ever be shared). A trace's runs lie in a few granules
  // of each part, read again each time the trace is opened: from the uncompressed cache.
  const rows = await ch.query(
    sql`SELECT ${runColumns(q.columns)} FROM ${ident(tables.runs)}
        WHERE tenant_id = toUUID(${q.tenantId}) AND ${runsOfTraces(tables.runKeys, q.tenantId, sql`toUUID(${q.traceId})`)}
          AND trace_id = toUUID(${q.traceId})`,
    { cacheBlocks: true },
  );
  return newestPosted(q.tenantId, rows)
    .filter(
      (run) =>
        (q.projectId === undefined || run.session_id === q.projectId) &&
        (q.minStartTime === undefined || run.start_time >= q.minStartTime) &&
        (q.maxStartTime === undefined || run.start_time <= q.maxStartTime),
    )
    .sort((a, b) => (a.dotted_order < b.dotted_order ? -1 : a.dotted_order > b.dotted_order ? 1 : 0));
}

/** Whether the workspace has a trace with this id (in this project, when given). */
export async function traceExistsQuery(ch: ClickHouseClient, tables: Tables, tenantId: string, traceId: string, projectId?: string): Promise<boolean> {
  const rows = await ch.query(
    sql`SELECT 1 FROM ${ident(tables.runKeys)}
        WHERE tenant_id = toUUID(${tenantId}) AND trace_id = toUUID(${traceId})
          ${projectId === undefined ? raw('') : sql`AND session_id = toUUID(${projectId})`}
        LIMIT 1`,
  );
  return rows.length > 0;
}

/** The root runs of the given traces (those whose post has been projected), by primary key. */
export async function rootRunsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  traceIds: readonly string[],
  columns: readonly RunColumn[],
): Promise<Map<string, RunRow>> {
  if (traceIds.length === 0) return new Map();
  const rows = await ch.query(
    sql`SELECT ${runColumns(columns)} FROM ${ident(tables.runs)}
        WHERE tenant_id = toUUID(${tenantId}) AND is_root = 1
          AND ${runsOfTraces(tables.runKeys, tenantId, uuidSet(traceIds), sql`id IN (${uuidSet(traceIds)}) AND is_root = 1`)}
          AND id = trace_id`,
  );
  return new Map(newestPosted(tenantId, rows).map((run) => [run.id, run]));
}
