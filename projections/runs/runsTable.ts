// The `runs` read model: one row per run, the post and every patch merged by the projector.
// ReplacingMergeTree keeps the row with the highest version (Kafka offset << 16 | op index
// of the last applied operation); readers use FINAL or argMax to see the newest.
// Written for ClickHouse 18.16 and current releases alike: microsecond Int64 instead of
// DateTime64, JSON kept as text. Granules of 1024 rows (not 8192): reads by key (a trace, a
// page of runs) fetch wide payload columns, and smaller granules read far less of them.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';

export const RUNS_TABLE = 'runs';

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
ORDER BY (tenant_id, trace_id, id)
SETTINGS index_granularity = 1024`);
}

/** How the projector's inserts encode a `runs` row (RowBinary, from the DDL above). */
export const RUNS_COLUMNS = rowBinaryColumns(createRunsTable());

/**
 * Where each run lives, by (tenant_id, id): GET /runs/{id} carries no trace id, and `runs` is
 * ordered by trace. The runs projector writes a row the first time it sees a run.
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
