// The `traces` read model: one row per trace, written by the runs projector from the trace it
// holds in memory after every batch that touched it (ReplacingMergeTree: the newest version
// wins; read with FINAL). It is also the aggregate table behind project stats and threads:
// a trace row already sums its runs, so stats read one row per trace, never the runs.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import { TRACE_COLUMNS } from '../shared/traceRow.ts';

export const TRACES_TABLE = 'traces';

export function createTracesTable(table: string = TRACES_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (${TRACE_COLUMNS}
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, trace_id)`);
}

/** How the runs projector's inserts encode a `traces` row (RowBinary, from the DDL above). */
export const TRACES_COLUMNS = rowBinaryColumns(createTracesTable());
