// Runs a RunsQuery: request fields and filters -> conditions, one page of rows in two phases
// (projections/runs/runQueries.ts), feedback stats when asked for, and the response runs.
import { ident, raw, sql, uuidList, uuidSet, type Sql } from '../../../platform/clickhouse/sql.ts';
import { errors } from '../../../platform/errors.ts';
import type { RouteDeps } from '../routes/routeDeps.ts';
import { feedbackStatsQuery } from '../../../projections/feedback/feedbackQueries.ts';
import { runPageQuery, type RunConditions, type RunPageRequest } from '../../../projections/runs/runQueries.ts';
import { runColumnsFor, runResponses } from '../read/runResponse.ts';
import {
  compileRunFilter,
  compileTraceCondition,
  filterThreadIds,
  type FilterScope,
} from '../../../projections/runs/filter/filterSql.ts';
import { copyUsable } from '../../../projections/shared/copies.ts';
import { encodeRunCursor } from './cursor.ts';
import type { RunsQuery } from './runsQueryRequest.ts';

export interface RunsPage {
  runs: Record<string, unknown>[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

type Deps = Pick<RouteDeps, 'ch' | 'blobs' | 'tables'>;

const MAX_CONDITIONS_SQL = 160 * 1024;

/** Conditions from the request's plain fields (the same in both phases). */
function fieldConditions(q: RunsQuery, tenantId: string, deps: Deps): RunConditions {
  const c: Sql[] = [];
  const columns = new Set<string>();
  const add = (condition: Sql, ...cols: string[]) => {
    c.push(condition);
    for (const col of cols) columns.add(col);
  };
  // run_locations gives the traces of runs named by id, so those reads use the primary key.
  const tracesOf = (ids: readonly string[]) =>
    sql`trace_id IN (SELECT trace_id FROM ${ident(deps.tables.runLocations)} WHERE tenant_id = toUUID(${tenantId}) AND id IN (${uuidSet(ids)}))`;
  if (q.sessionIds) add(q.sessionIds.length ? sql`session_id IN (${uuidSet(q.sessionIds)})` : raw('0'), 'session_id');
  if (q.ids) add(q.ids.length ? sql`id IN (${uuidSet(q.ids)}) AND ${tracesOf(q.ids)}` : raw('0'), 'id', 'trace_id');
  if (q.traceId) add(sql`trace_id = toUUID(${q.traceId})`, 'trace_id');
  if (q.parentRunId)
    add(sql`parent_run_id = toUUID(${q.parentRunId}) AND ${tracesOf([q.parentRunId])}`, 'parent_run_id', 'trace_id');
  if (q.runType !== null) add(sql`run_type = ${q.runType}`, 'run_type');
  if (q.isRoot !== null) add(sql`is_root = ${q.isRoot ? 1 : 0}`, 'is_root');
  if (q.error !== null) add(q.error ? raw('isNotNull(error)') : raw('isNull(error)'), 'error');
  if (q.startTime !== null) add(sql`start_time >= ${q.startTime}`, 'start_time');
  if (q.endTime !== null) add(sql`start_time <= ${q.endTime}`, 'start_time');
  // has(), not IN: ClickHouse 18.16 refuses `Nullable(UUID) IN (…)`.
  if (q.referenceExampleIds)
    add(
      q.referenceExampleIds.length ? sql`has([${uuidList(q.referenceExampleIds)}], reference_example_id)` : raw('0'),
      'reference_example_id',
    );
  return { sql: c, columns };
}

/** All conditions of a query (request fields, filter, trace_filter, tree_filter), built per phase. */
export function runConditions(deps: Deps, tenantId: string, q: RunsQuery): RunPageRequest['conditions'] {
  const fixed = fieldConditions(q, tenantId, deps);
  return (phase) => {
    const scope: FilterScope = {
      tenantId,
      runsTable: deps.tables.runs,
      runKeysTable: deps.tables.runKeys,
      feedbackTable: deps.tables.feedback,
      sessionIds: q.sessionIds,
      exact: phase.exact,
      traceIds: phase.traceIds,
      traceSpan: phase.traceSpan ?? null,
    };
    const withTraces = !phase.ownOnly;
    const compiled = [
      q.filter && compileRunFilter(q.filter, scope, 'filter'),
      withTraces && q.traceFilter && compileTraceCondition(q.traceFilter, scope, { root: true, where: 'trace_filter' }),
      withTraces && q.treeFilter && compileTraceCondition(q.treeFilter, scope, { root: false, where: 'tree_filter' }),
    ].filter((c) => c !== null && c !== false);
    return {
      sql: [...fixed.sql, ...compiled.map((c) => c.sql)],
      columns: new Set([...fixed.columns, ...compiled.flatMap((c) => [...c.columns])]),
    };
  };
}

export async function queryRuns(deps: Deps, tenantId: string, q: RunsQuery): Promise<RunsPage> {
  const conditions = runConditions(deps, tenantId, q);
  // Compile once up front, so a bad filter is a 400 before any query runs, and one whose SQL
  // would not fit ClickHouse's query size (256 KiB, with room for the rest) is refused too.
  const size = conditions({ exact: true, traceIds: null }).sql.reduce((n, c) => n + c.text.length, 0);
  if (size > MAX_CONDITIONS_SQL)
    throw errors.badRequest(
      `the filters and ids are too large together (${Math.round(size / 1024)} KiB of SQL; at most ${MAX_CONDITIONS_SQL / 1024} KiB)`,
    );

  // A filter that names the runs' threads: their places come from run_threads (unless a database
  // from an older release has not rebuilt it yet: copiesUpgrade.ts).
  const threadIds = q.filter ? filterThreadIds(q.filter) : null;
  const page = await runPageQuery(deps.ch, {
    tenantId,
    runsTable: deps.tables.runs,
    runKeysTable: deps.tables.runKeys,
    conditions,
    onTraces: q.traceFilter !== null || q.treeFilter !== null,
    threads:
      threadIds && (await copyUsable(deps.ch, 'runsByThread'))
        ? { table: deps.tables.runThreads, ids: threadIds, sessionIds: q.sessionIds, isRoot: q.isRoot }
        : null,
    columns: [...runColumnsFor(q.fields)],
    order: q.order,
    after: q.cursor,
    limit: q.limit,
  });
  const ids = page.rows.map((r) => r.id!);
  const stats = q.fields.includes('feedback_stats')
    ? await feedbackStatsQuery(deps.ch, tenantId, deps.tables.feedback, ids)
    : null;
  const runs = await runResponses(page.rows, deps.blobs, (row) => ({
    fields: q.fields,
    feedbackStats: stats ? (stats.get(row.id!) ?? null) : null,
  }));
  return { runs, next: page.next ? encodeRunCursor(page.next, q.order) : null };
}
