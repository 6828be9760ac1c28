// The `threads` view: one row per (tenant, project, thread), aggregated from `traces`. A view,
// not a table: a thread's traces are projected by different partitions (traces are keyed by
// trace), so only an aggregation over the trace rows is exact. Users query it directly; the
// thread routes use the same summary columns over a time window (threadQueries.ts).
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';

export const THREADS_VIEW = 'threads';

/**
 * A thread's summary over a set of its trace rows (one per trace, read with FINAL): the view's
 * columns, and what POST /api/v2/threads/query pages through. Constant SQL, no values.
 */
export const THREAD_SUMMARY_COLUMNS: readonly string[] = [
  'min(start_time) AS first_activity',
  'max(last_run_start_time) AS last_activity',
  'count() AS trace_count',
  'argMin(trace_id, (start_time, trace_id)) AS first_trace_id',
  'argMax(trace_id, (start_time, trace_id)) AS latest_root_run_id',
  'max(start_time) AS last_trace_start_time',
  "countIf(status = 'error') AS errored_traces",
  'sum(run_count) AS run_count',
  'sum(error_count) AS error_count',
  'sum(prompt_tokens) AS prompt_tokens',
  'sum(completion_tokens) AS completion_tokens',
  'sum(total_tokens) AS total_tokens',
  'sum(prompt_cost) AS prompt_cost',
  'sum(completion_cost) AS completion_cost',
  'sum(total_cost) AS total_cost',
];

/** `database`: name the traces table with its database (on a cluster, ON CLUSTER DDL runs in each server's default database). */
export function createThreadsView(view: string = THREADS_VIEW, traces = 'traces', database?: string): Sql {
  return raw(`CREATE VIEW IF NOT EXISTS ${ident(view).text} AS
SELECT
  tenant_id,
  session_id,
  thread_id,
  ${THREAD_SUMMARY_COLUMNS.join(',\n  ')}
FROM ${database ? `${ident(database).text}.` : ''}${ident(traces).text} FINAL
WHERE thread_id != ''
GROUP BY tenant_id, session_id, thread_id`);
}
