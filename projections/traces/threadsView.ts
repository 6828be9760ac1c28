// The `threads` view: one row per (tenant, project, thread), aggregated from `traces`. A view,
// not a table: a thread's traces are projected by different partitions (traces are keyed by
// trace), so only an aggregation over the trace rows is exact. Users query it directly.
import { ident, raw, type Sql } from '../../services/common/clickhouse/sql.ts';

export const THREADS_VIEW = 'threads';

export function createThreadsView(view: string = THREADS_VIEW, traces = 'traces'): Sql {
  return raw(`CREATE VIEW IF NOT EXISTS ${ident(view).text} AS
SELECT
  tenant_id,
  session_id,
  thread_id,
  min(start_time) AS first_activity,
  max(last_run_start_time) AS last_activity,
  count() AS trace_count,
  argMax(trace_id, start_time) AS latest_root_run_id,
  sum(run_count) AS run_count,
  sum(error_count) AS error_count,
  sum(prompt_tokens) AS prompt_tokens,
  sum(completion_tokens) AS completion_tokens,
  sum(total_tokens) AS total_tokens,
  sum(total_cost) AS total_cost
FROM ${ident(traces).text} FINAL
WHERE thread_id != ''
GROUP BY tenant_id, session_id, thread_id`);
}
