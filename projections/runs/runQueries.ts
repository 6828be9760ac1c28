// Reads of the runs read model.
import type { ClickHouseClient } from '../../services/common/clickhouse/client.ts';
import { sql, ident } from '../../services/common/clickhouse/sql.ts';
import { rowFromClickHouse, type RunRow } from './runRow.ts';
import { RUN_LOCATIONS_TABLE, RUNS_TABLE } from './runsTable.ts';

/** The merged run, once its post has been projected; null otherwise. Two key lookups, no scan. */
export async function runByIdQuery(ch: ClickHouseClient, tenantId: string, runId: string, table = RUNS_TABLE): Promise<RunRow | null> {
  const rows = await ch.query(
    sql`SELECT * FROM ${ident(table)} FINAL
        WHERE tenant_id = toUUID(${tenantId})
          AND trace_id IN (SELECT trace_id FROM ${ident(RUN_LOCATIONS_TABLE)} WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${runId}))
          AND id = toUUID(${runId}) AND has_post = 1
        LIMIT 1`,
  );
  return rows[0] ? rowFromClickHouse(rows[0]) : null;
}
