// Creates the database and every read-model table. Idempotent; run by each process at start-up.
import { ident, sql } from './sql.ts';
import type { ClickHouseClient } from './client.ts';
import { createRunLocationsTable, createRunLocationsView, createRunsTable, RUN_LOCATIONS_TABLE, RUNS_TABLE } from '../../../projections/runs/runsTable.ts';

export async function ensureReadModels(ch: ClickHouseClient): Promise<void> {
  await ch.exec(sql`CREATE DATABASE IF NOT EXISTS ${ident(ch.database)}`, { database: null });
  await ch.exec(createRunsTable());
  const [locations] = await ch.query<{ result: number | string }>(sql`EXISTS TABLE ${ident(RUN_LOCATIONS_TABLE)}`);
  await ch.exec(createRunLocationsTable());
  await ch.exec(createRunLocationsView());
  // A database from before run_locations existed: fill it once from the runs already there.
  if (Number(locations?.result) === 0) await ch.exec(sql`INSERT INTO ${ident(RUN_LOCATIONS_TABLE)} SELECT tenant_id, id, trace_id FROM ${ident(RUNS_TABLE)}`);
}
