// The examples read model: every version of every example of every dataset, as the examples
// topic made them (projections/examples/examplesProjector.ts), so that a dataset is read as it
// was at any version (`as_of`). A version is a row keyed (tenant_id, dataset_id, id, modified_at):
// modified_at is the time of the write that made it, shared by every example that one write
// touched; a deletion is a row with `deleted = 1` from which on the example is gone. Rows are
// never changed, only added; a row projected twice (a redelivery, a replay's catch-up) has the
// same key and version, and ReplacingMergeTree keeps one. Reads take FINAL rows, the newest
// version at or before `as_of` of each id, and leave out the deleted ones (exampleQueries.ts).
//
// `dataset_example_ids` says which dataset an example id belongs to (one row per id), so an
// example read by id alone (GET /examples/{id}, GET /examples?id=…) is one read of the sort key.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';

export const EXAMPLES_TABLE = 'dataset_examples';
export const EXAMPLE_IDS_TABLE = 'dataset_example_ids';

export function createExamplesTable(table: string = EXAMPLES_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  dataset_id UUID,
  id UUID,
  modified_at Int64,
  version UInt64,
  created_at Int64,
  inputs String,
  outputs Nullable(String),
  metadata String,
  splits Array(String),
  source_run_id Nullable(UUID),
  attachments String,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, dataset_id, id, modified_at)`);
}

export function createExampleIdsTable(table: string = EXAMPLE_IDS_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  id UUID,
  dataset_id UUID,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, id)`);
}

/** How the projector's inserts encode a row (RowBinary, from the DDL above). */
export const EXAMPLE_COLUMNS = rowBinaryColumns(createExamplesTable());
export const EXAMPLE_ID_COLUMNS = rowBinaryColumns(createExampleIdsTable());
