// The export's read of `runs`: the final state of a project's runs that started in a window,
// in cursor order (start_time, id), after an optional cursor.
import { ident, join, sql, type Sql } from '../../../platform/clickhouse/sql.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { ExportCursor } from '../exportTypes.ts';
import type { QueryColumn } from './exportColumns.ts';
import { parseFilter } from '../../../projections/runs/filter/filterParser.ts';
import { compileRunFilter } from '../../../projections/runs/filter/filterSql.ts';

/** Bytes the query's sort may hold in memory before ClickHouse spills it to disk. */
const SORT_MEMORY_BYTES = 1_000_000_000;

export interface ExportWindow {
  tenantId: string;
  sessionId: string;
  /** Microseconds, inclusive. */
  startMicros: number;
  /** Microseconds, exclusive. */
  endMicros: number;
  /** Only runs after this (start_time, id). */
  after: ExportCursor | null;
  /** The export's filter, compiled (exportFilterCondition); null for every run. */
  filter: Sql | null;
}

/**
 * An export's `filter` (the runs filter language) as a condition on `runs`, checked against each
 * run's final state. Throws the filter language's 400, naming the problem and where, when invalid.
 */
export function exportFilterCondition(
  filter: string,
  tables: { runs: string; runKeys: string; feedback: string },
  project: Pick<ExportWindow, 'tenantId' | 'sessionId'>,
): Sql {
  const scope = {
    tenantId: project.tenantId,
    runsTable: tables.runs,
    runKeysTable: tables.runKeys,
    feedbackTable: tables.feedback,
    exact: true,
    sessionIds: [project.sessionId],
    traceIds: null,
  };
  return compileRunFilter(parseFilter(filter, 'filter'), scope, 'filter').sql;
}

/**
 * `runs` keeps older versions of a run until ClickHouse merges them. It is ordered by (tenant,
 * project, is_root, start_time, id), so the window is ranges of the primary index: FINAL merges
 * only those (all versions of a run at one key share its project and start time, so the
 * conditions on them are exact before FINAL), and has_post = 1 drops the tombstones a run that
 * moved left at its old key. The sort spills to disk past SORT_MEMORY_BYTES, so a very large
 * day does not hit ClickHouse's memory limit.
 */
export function exportRunsQuery(runsTable: string, columns: readonly QueryColumn[], window: ExportWindow): Sql {
  const table = ident(runsTable);
  const conditions = [
    sql`tenant_id = toUUID(${window.tenantId})`,
    sql`session_id = toUUID(${window.sessionId})`,
    sql`start_time >= ${window.startMicros}`,
    sql`start_time < ${window.endMicros}`,
  ];
  if (window.after) conditions.push(sql`(start_time, id) > (${window.after.startTime}, toUUID(${window.after.id}))`);
  return sql`SELECT ${join(columns.map((c) => c.select))}
    FROM ${table} FINAL
    PREWHERE ${join(conditions, ' AND ')}
    WHERE has_post = 1${window.filter ? sql` AND (${window.filter})` : sql``}
    ORDER BY start_time, id
    SETTINGS max_bytes_before_external_sort = ${SORT_MEMORY_BYTES}`;
}

/** The flag column for feedback_stats: whether the run has feedback (so only those runs' stats are asked for). */
export const FEEDBACK_FLAG = 'has_feedback';

/** Feedback counts for the project when its project is the task's, or not known yet (it came before its run). */
const projectFeedback = (feedbackTable: string, window: Pick<ExportWindow, 'tenantId' | 'sessionId'>) =>
  sql`SELECT run_id FROM ${ident(feedbackTable)} WHERE tenant_id = toUUID(${window.tenantId}) AND (session_id = toUUID(${window.sessionId}) OR isNull(session_id))`;

export function feedbackFlagColumn(
  feedbackTable: string,
  window: Pick<ExportWindow, 'tenantId' | 'sessionId'>,
): QueryColumn {
  return { name: FEEDBACK_FLAG, select: sql`id IN (${projectFeedback(feedbackTable, window)})`, kind: 'bool' };
}

/** Whether any feedback may belong to the project's runs (when none does, feedback_stats is null without asking). */
export async function projectHasFeedback(
  ch: ClickHouseClient,
  feedbackTable: string,
  window: Pick<ExportWindow, 'tenantId' | 'sessionId'>,
): Promise<boolean> {
  return (await ch.query(sql`${projectFeedback(feedbackTable, window)} LIMIT 1`)).length > 0;
}
