// The `runs` read model: one row per run, the post and every patch merged by the projector.
// ReplacingMergeTree keeps the row with the highest version (Kafka offset << 16 | op index
// of the last applied operation); readers use FINAL or argMax to see the newest.
// Written for ClickHouse 18.16 and current releases alike: microsecond Int64 instead of
// DateTime64, JSON kept as text. Granules of 1024 rows (not 8192): reads by key (a trace, a
// page of runs) fetch wide payload columns, and smaller granules read far less of them.
//
// Ordered by time within a project (RUNS_SORTING_KEY): a page of a project's newest runs is a
// few neighbouring granules, and a time window is a range of the primary index. The key's
// columns are not fixed for a run's life: a patch that comes before its post is stored under
// the project and start time it carries (often none), and a patch may change either. The
// projector then writes the run under its new key and, under the old one, a tombstone: a
// copy of the old row with has_post = 0 and a version just below the new row's. So at every
// key but a run's current one, the newest row has has_post = 0, which every read excludes
// (as it excludes a patch whose post has not come); see docs/read-models.md.
// A trace's runs are found through `run_keys` (by trace), a run by id through `run_locations`.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';

export const RUNS_TABLE = 'runs';

/** The sort key of `runs` as system.tables shows it (`sorting_key`). */
export const RUNS_SORTING_KEY = 'tenant_id, session_id, is_root, start_time, id';
/** The sort key of releases before it: a table with it is rebuilt by a replay (see runsTableOutdated). */
export const OLD_RUNS_SORTING_KEY = 'tenant_id, trace_id, id';

export function createRunsTable(table: string = RUNS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  trace_id UUID,
  id UUID,
  session_id UUID,
  parent_run_id Nullable(UUID),
  dotted_order String,
  name String,
  run_type String,
  status String,
  start_time Int64,
  end_time Nullable(Int64),
  inputs String,
  outputs String,
  events String,
  extra String,
  serialized String,
  payload_refs String,
  error Nullable(String),
  tags Array(String),
  reference_example_id Nullable(UUID),
  attachments String,
  thread_id String,
  metadata_keys Array(String),
  metadata_values Array(String),
  usage String,
  prompt_tokens UInt64,
  completion_tokens UInt64,
  total_tokens UInt64,
  prompt_cost Float64,
  completion_cost Float64,
  total_cost Float64,
  first_token_time Nullable(Int64),
  is_root UInt8,
  has_post UInt8,
  received_at Int64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (${RUNS_SORTING_KEY})
SETTINGS index_granularity = 1024`);
}

/** How the projector's inserts encode a `runs` row (RowBinary, from the DDL above). */
export const RUNS_COLUMNS = rowBinaryColumns(createRunsTable());

/** The columns of a run's place in `runs` (its sort key after tenant_id). */
export const RUN_KEY_COLUMNS = ['session_id', 'is_root', 'start_time', 'id'] as const;

/**
 * Every place in `runs` a run has had, by trace: (tenant_id, trace_id, id) to the rest of the
 * run's `runs` key. One row per distinct place (the whole row is the key, so identical rows
 * merge); a run that moved has several, and its newest `runs` row at each but the current one
 * is a tombstone. The runs projector writes it before `runs`, with every write: a trace's runs
 * are then found by two key lookups (the trace tree, the projector's state), without FINAL here.
 */
export const RUN_KEYS_TABLE = 'run_keys';

export function createRunKeysTable(table: string = RUN_KEYS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  trace_id UUID,
  id UUID,
  session_id UUID,
  is_root UInt8,
  start_time Int64
) ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, trace_id, id, session_id, is_root, start_time)
SETTINGS index_granularity = 1024`);
}

/** How the projector's inserts encode a `run_keys` row (RowBinary, from the DDL above). */
export const RUN_KEYS_COLUMNS = rowBinaryColumns(createRunKeysTable());

/**
 * Every place in `runs` a run has had with each thread it named there, by thread: (tenant_id,
 * thread_id) to the run's `runs` key. A filter on `thread_id` finds a thread's runs here instead
 * of reading the column over the project (a thread's runs are spread over its whole life). The
 * runs projector writes a row before each `runs` row whose place or thread is new (rows with
 * thread_id '' have none), so every `runs` row naming a thread has its row here: a superset,
 * since a run that moved or changed thread keeps the rows of where it was.
 */
export const RUN_THREADS_TABLE = 'run_threads';

export function createRunThreadsTable(table: string = RUN_THREADS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  thread_id String,
  session_id UUID,
  is_root UInt8,
  start_time Int64,
  id UUID
) ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, thread_id, session_id, is_root, start_time, id)
SETTINGS index_granularity = 1024`);
}

/** How the projector's inserts encode a `run_threads` row (RowBinary, from the DDL above). */
export const RUN_THREADS_COLUMNS = rowBinaryColumns(createRunThreadsTable());

/** The runs a filter on thread_id can match: their threads, and what else of their place it requires. */
export interface ThreadRuns {
  /** run_threads of the set of tables read. */
  table: string;
  ids: readonly string[];
  /** Only runs of these projects. */
  sessionIds?: readonly string[] | null;
  /** Only roots (true) or only runs that are not (false). */
  isRoot?: boolean | null;
}

/** The conditions on `run_threads` that select the places of these runs. */
export function threadRunsWhere(tenantId: string, threads: ThreadRuns): Sql[] {
  const where = [sql`tenant_id = toUUID(${tenantId})`, sql`thread_id IN (${join(threads.ids.map((t) => sql`${t}`))})`];
  if (threads.sessionIds)
    where.push(threads.sessionIds.length ? sql`session_id IN (${uuidSet(threads.sessionIds)})` : raw('0'));
  if (threads.isRoot !== undefined && threads.isRoot !== null) where.push(sql`is_root = ${threads.isRoot ? 1 : 0}`);
  return where;
}

/**
 * `(session_id, is_root, start_time, id) IN (…)` of the places of these threads' runs (a SQL
 * condition on `runs`), those that started at `since` or later when given: every `runs` row
 * naming one of the threads is at one of them.
 */
export function runsOfThreads(tenantId: string, threads: ThreadRuns, since: number | null = null): Sql {
  const where = threadRunsWhere(tenantId, threads);
  if (since !== null) where.push(sql`start_time >= ${since}`);
  return placesIn(threads.table, where);
}

/** `(session_id, is_root, start_time, id) IN (…)`: the places a table of places (run_keys, run_threads) holds under these conditions. */
function placesIn(table: string, where: Sql[]): Sql {
  const key = raw(RUN_KEY_COLUMNS.join(', '));
  return sql`(${key}) IN (SELECT ${key} FROM ${ident(table)} WHERE ${join(where, ' AND ')})`;
}

/**
 * `(session_id, is_root, start_time, id) IN (…)` of the runs of the given traces (a SQL
 * condition on `runs`): every place they have had, so the newest version of each is among the
 * rows it selects. `traces`: SQL of trace ids (a list or a subquery), for `trace_id IN (…)`.
 */
export function runsOfTraces(runKeysTable: string, tenantId: string, traces: Sql, extra: Sql | null = null): Sql {
  return placesIn(runKeysTable, [
    sql`tenant_id = toUUID(${tenantId})`,
    sql`trace_id IN (${traces})`,
    ...(extra ? [extra] : []),
  ]);
}

/** A range of run start times (µs), both ends included. */
export interface TraceSpan {
  from: number;
  to: number;
}

/**
 * When the runs of these traces started, over every place they have had (run_keys): the runs
 * of `runs` with these trace ids all lie within the span. Null when run_keys has none of them.
 */
export async function traceSpanQuery(
  ch: ClickHouseClient,
  runKeysTable: string,
  tenantId: string,
  traceIds: readonly string[],
): Promise<TraceSpan | null> {
  if (traceIds.length === 0) return null;
  const [row] = await ch.query<{ n: string; first_start: string; last_start: string }>(
    sql`SELECT count() AS n, min(start_time) AS first_start, max(start_time) AS last_start FROM ${ident(runKeysTable)}
        WHERE tenant_id = toUUID(${tenantId}) AND trace_id IN (${uuidSet(traceIds)})`,
  );
  return row && Number(row.n) > 0 ? { from: Number(row.first_start), to: Number(row.last_start) } : null;
}

/**
 * Which trace each run is in, by (tenant_id, id): GET /runs/{id} carries no trace id (then
 * `run_keys` gives its place in `runs`). The runs projector writes a row with each write of a posted run.
 */
export const RUN_LOCATIONS_TABLE = 'run_locations';

export function createRunLocationsTable(table: string = RUN_LOCATIONS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  id UUID,
  trace_id UUID,
  session_id UUID
) ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, id)`);
}

/** How the projector's inserts encode a `run_locations` row. */
export const RUN_LOCATIONS_COLUMNS = rowBinaryColumns(createRunLocationsTable());

/**
 * Whether the live `runs` table has another sort key than this release's (an older release's
 * table: ORDER BY (tenant_id, trace_id, id)). A sort key cannot be changed in place; the table
 * is rebuilt from the topics by `npm run replay -- --view runs`, which swaps a table with the
 * new key in (docs/read-models.md, "Upgrading the runs table"). Until then reads by trace and by
 * run id miss the runs projected before the upgrade: the processes say so in their log at start
 * (the runs projector reads a trace's rows by trace_id meanwhile, which that table's key serves).
 */
export async function runsTableOutdated(
  ch: ClickHouseClient,
  table: string = RUNS_TABLE,
): Promise<{ outdated: boolean; sortingKey: string }> {
  const [row] = await ch.query<{ sorting_key: string }>(
    sql`SELECT sorting_key FROM system.tables WHERE database = ${ch.database} AND name = ${table}`,
  );
  const sortingKey = row?.sorting_key ?? RUNS_SORTING_KEY;
  const normal = (key: string) => key.replace(/\s+/g, '');
  return { outdated: normal(sortingKey) !== normal(RUNS_SORTING_KEY), sortingKey };
}
