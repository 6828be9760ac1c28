// Deleting a deleted project's rows from a read-model table, for the projectors that act on a
// project tombstone (see docs/read-models.md, "Deleting a project").
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';

/**
 * Deletes a deleted project's rows from one table (a mutation), unless it has none: every
 * start folds every tombstone again, and a mutation rewrites parts even when nothing matches.
 */
export async function deleteProjectRows(
  ch: ClickHouseClient,
  table: string,
  tenantId: string,
  projectId: string,
): Promise<void> {
  // ifNull: a row without a project (feedback that came before its run) is not the project's.
  // ClickHouse 18.16 deletes every row for which the condition is NULL, not only true ones.
  const where = sql`tenant_id = toUUID(${tenantId}) AND ifNull(session_id = toUUID(${projectId}), 0)`;
  const found = await ch.query(sql`SELECT 1 FROM ${ident(table)} WHERE ${where} LIMIT 1`);
  if (found.length > 0) await ch.exec(sql`ALTER TABLE ${ident(table)} DELETE WHERE ${where}`);
}
