// Creates the database and every read-model table. Idempotent; run by each process at start-up.
import { ident, sql } from './sql.ts';
import type { ClickHouseClient } from './client.ts';
import { createRunsTable } from '../../../projections/runs/runsTable.ts';

export async function ensureReadModels(ch: ClickHouseClient): Promise<void> {
  await ch.exec(sql`CREATE DATABASE IF NOT EXISTS ${ident(ch.database)}`, { database: null });
  await ch.exec(createRunsTable());
}
