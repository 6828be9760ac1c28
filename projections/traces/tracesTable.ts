// The `traces` read model: one row per trace, written by the runs projector from the trace it
// holds in memory after every batch that touched it (ReplacingMergeTree: the newest version
// wins; read with FINAL). It is also the aggregate table behind project stats and threads:
// a trace row already sums its runs, so stats read one row per trace, never the runs.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';

export const TRACES_TABLE = 'traces';

/** The columns of a trace row (`traces`, and its copy by hour `traces_by_hour`), version last. */
export const TRACE_COLUMNS = `
  tenant_id UUID,
  trace_id UUID,
  session_id UUID,
  thread_id String,
  name String,
  run_type String,
  status String,
  start_time Int64,
  end_time Nullable(Int64),
  first_token_time Nullable(Int64),
  last_run_start_time Int64,
  run_count UInt32,
  error_count UInt32,
  run_types Array(String),
  run_type_counts Array(UInt32),
  statuses Array(String),
  status_counts Array(UInt32),
  prompt_tokens UInt64,
  completion_tokens UInt64,
  total_tokens UInt64,
  prompt_cost Float64,
  completion_cost Float64,
  total_cost Float64,
  tags Array(String),
  has_root UInt8,
  version UInt64`;

export function createTracesTable(table: string = TRACES_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (${TRACE_COLUMNS}
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, trace_id)`);
}

/** How the runs projector's inserts encode a `traces` row (RowBinary, from the DDL above). */
export const TRACES_COLUMNS = rowBinaryColumns(createTracesTable());
