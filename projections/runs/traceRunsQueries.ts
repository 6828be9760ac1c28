// Reads of the runs of traces: every run of one trace in tree order, whether a trace exists, and
// the root runs of a set of traces; each from `runs` at the places run_keys gives (runsTable.ts).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { PAYLOAD_FIELDS, type RunRow } from '../shared/runRow.ts';
import { emptyRow, numbersFromClickHouse } from './runRow.ts';
import { runsOfTraces } from './runsTable.ts';

type Tables = Pick<ReadModelTables, 'runs' | 'runKeys'>;

/** A column of `runs` a reader can ask for. */
export type RunColumn = Exclude<keyof RunRow, 'tenant_id'>;

/** Read for every run: identity, what the filters and the tree order need, and the version. */
const ALWAYS_READ: readonly RunColumn[] = [
  'id',
  'trace_id',
  'session_id',
  'start_time',
  'dotted_order',
  'has_post',
  'version',
];
/**
 * Read for every run of one trace: its trace, project and time window are filtered in the
 * statement, so only what picks the newest version and orders the tree comes back with the
 * asked columns (a trace's ids and project are ~80 of a run's ~470 bytes otherwise).
 */
const TREE_READ: readonly RunColumn[] = ['id', 'dotted_order', 'has_post', 'version'];

/**
 * The asked columns and the ones always read. Payload columns bring their object-store
 * pointers (payload_refs); callers ask for payloads only when they return them.
 */
function runColumns(asked: readonly RunColumn[], always: readonly RunColumn[] = ALWAYS_READ): Sql {
  const payloads = asked.some((c) => (PAYLOAD_FIELDS as readonly string[]).includes(c));
  return join(
    [...new Set([...always, ...asked, ...(payloads ? (['payload_refs'] as const) : [])])].map((c) => ident(c)),
  );
}

/** A run row with the columns that were read; the others keep their empty values (no payloads, no refs). */
const partialRun = (tenantId: string, r: Record<string, unknown>, traceId = r.trace_id as string): RunRow =>
  numbersFromClickHouse(Object.assign(emptyRow(tenantId, traceId, r.id as string), r));

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
function newestPosted(tenantId: string, rows: Record<string, unknown>[], traceId?: string): RunRow[] {
  const newest = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const seen = newest.get(r.id as string);
    if (!seen || Number(r.version) > Number(seen.version)) newest.set(r.id as string, r);
  }
  const runs: RunRow[] = [];
  for (const r of newest.values()) if (Number(r.has_post) === 1) runs.push(partialRun(tenantId, r, traceId));
  return runs;
}

/** Every run of a trace (posted ones), in tree order: dotted_order sorts parents before children, siblings by start. */
export async function traceRunsQuery(ch: ClickHouseClient, tables: Tables, q: TraceRunsQuery): Promise<RunRow[]> {
  // Its runs' places from run_keys, then those keys of `runs` (the trace_id check drops nothing
  // but keeps the read exact should a key ever be shared). A trace's runs lie in a few granules
  // of each part, read again each time the trace is opened: from the uncompressed cache.
  // The project and the time window are columns of the key, which a run's versions at one key
  // share: where a run moved, the newest row at its old key is a tombstone (has_post = 0), so
  // filtering them here keeps exactly the runs whose newest version passes. ClickHouse sorts:
  // the sort below then finds them in order.
  const rows = await ch.query(
    sql`SELECT ${runColumns(q.columns, TREE_READ)} FROM ${ident(tables.runs)}
        WHERE tenant_id = toUUID(${q.tenantId}) AND ${runsOfTraces(tables.runKeys, q.tenantId, sql`toUUID(${q.traceId})`)}
          AND trace_id = toUUID(${q.traceId})
          ${q.projectId === undefined ? raw('') : sql`AND session_id = toUUID(${q.projectId})`}
          ${q.minStartTime === undefined ? raw('') : sql`AND start_time >= ${q.minStartTime}`}
          ${q.maxStartTime === undefined ? raw('') : sql`AND start_time <= ${q.maxStartTime}`}
        ORDER BY dotted_order, version`,
    { cacheBlocks: true },
  );
  return newestPosted(q.tenantId, rows, q.traceId).sort((a, b) =>
    a.dotted_order < b.dotted_order ? -1 : a.dotted_order > b.dotted_order ? 1 : 0,
  );
}

/** Whether the workspace has a trace with this id (in this project, when given). */
export async function traceExistsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  traceId: string,
  projectId?: string,
): Promise<boolean> {
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
