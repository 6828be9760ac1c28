// Which trace rows a set names (a project's over a time range, a thread's, one trace, errored or
// not), and where they are read from: `traces` or one of its copies (traces_by_hour,
// traces_by_thread). Shared by the stats of the traces model and the feedback stats of a set.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from './readModelTables.ts';
import { copyUsable } from './copies.ts';
import { hoursTouched } from './hours.ts';

type Tables = Pick<ReadModelTables, 'traces' | 'tracesByHour' | 'tracesByThread'>;

/** Which trace rows a stats query aggregates (root start time window in microseconds, [min, max)). */
export interface TraceSet {
  tenantId: string;
  projectIds: readonly string[];
  minStartTime?: number | undefined;
  maxStartTime?: number | undefined;
  threadId?: string | undefined;
  traceId?: string | undefined;
  /** true: traces whose root run errored; false: the others. */
  hasError?: boolean | undefined;
  /** Only traces that belong to a thread (a non-empty thread_id). */
  inThreads?: boolean | undefined;
}

/**
 * The trace rows of a set, as a WHERE condition over `traces` or over its copy by hour
 * `traces_by_hour` (traceSetSource chooses; also read by the feedback stats of a set).
 */
export function traceSetWhere(set: TraceSet, source: 'traces' | 'byHour' | 'byThread' = 'traces'): Sql {
  const where: Sql[] = [sql`tenant_id = toUUID(${set.tenantId})`, sql`session_id IN (${uuidSet(set.projectIds)})`];
  if (source !== 'traces') where.push(raw('deleted = 0'));
  // The hour column follows the project in the key: these bound the range read.
  if (source === 'byHour') where.push(...hoursTouched(set.minStartTime, set.maxStartTime));
  if (set.minStartTime !== undefined) where.push(sql`start_time >= ${set.minStartTime}`);
  if (set.maxStartTime !== undefined) where.push(sql`start_time < ${set.maxStartTime}`);
  if (set.threadId !== undefined) where.push(sql`thread_id = ${set.threadId}`);
  if (set.traceId !== undefined) where.push(sql`trace_id = toUUID(${set.traceId})`);
  if (set.hasError !== undefined) where.push(set.hasError ? sql`status = 'error'` : sql`status != 'error'`);
  if (set.inThreads) where.push(sql`thread_id != ''`);
  return join(where, ' AND ');
}

/**
 * Where a set's trace rows are read from, with FINAL: one trace by its key from `traces`; one
 * thread's from `traces_by_thread`, where they are one range of the table; any other set from
 * `traces_by_hour`, where a project's traces of a time range are one range of the table (unless a
 * database from an older release has not rebuilt these yet: copiesUpgrade.ts).
 */
export async function traceSetSource(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
): Promise<{ table: Sql; where: Sql }> {
  if (set.traceId !== undefined) return { table: ident(tables.traces), where: traceSetWhere(set) };
  if (set.threadId !== undefined && (await copyUsable(ch, 'byThread')))
    return { table: ident(tables.tracesByThread), where: traceSetWhere(set, 'byThread') };
  const byHour = await copyUsable(ch, 'byHour');
  return {
    table: ident(byHour ? tables.tracesByHour : tables.traces),
    where: traceSetWhere(set, byHour ? 'byHour' : 'traces'),
  };
}
