// The `feedback` read model: one row per feedback item (the newest event of an id wins), read by
// the feedback routes, the runs filter language (feedback_key / feedback_score), feedback_stats
// of runs and of projects. A deleted item stays as a row with `deleted = 1` (a tombstone that
// outranks every older version), so every read takes `FINAL` rows with `deleted = 0`.
// Feedback on a project rather than a run has the zero UUID as run_id.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';

export const FEEDBACK_TABLE = 'feedback';

export function createFeedbackTable(table: string = FEEDBACK_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  run_id UUID,
  id UUID,
  trace_id Nullable(UUID),
  session_id Nullable(UUID),
  key String,
  score Nullable(Float64),
  value String,
  comment Nullable(String),
  correction String,
  feedback_source String,
  created_at Int64,
  version UInt64,
  modified_at Int64,
  comparative_experiment_id Nullable(UUID),
  feedback_group_id Nullable(UUID),
  feedback_config String,
  extra String,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id, id)`);
}

/** How the feedback projector's inserts encode a row (RowBinary, from the DDL above). */
export const FEEDBACK_COLUMNS = rowBinaryColumns(createFeedbackTable());
