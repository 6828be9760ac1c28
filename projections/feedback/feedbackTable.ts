// The `feedback` read model: one row per feedback item (the newest submission of an id wins),
// read by the runs filter language (feedback_key / feedback_score) and by project stats.
import { ident, raw, type Sql } from '../../services/common/clickhouse/sql.ts';

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
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, run_id, id)`);
}
