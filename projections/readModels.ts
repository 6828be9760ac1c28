// Creates the database and every read-model table. Idempotent; run by each process at start-up.
// Tables of older releases are brought up to date here (missing columns added).
import { ident, sql, raw, type Sql } from '../platform/clickhouse/sql.ts';
import { createDistributedTable, DISTRIBUTED_SUFFIX } from './distributedTables.ts';
import { ClickHouseError, type ClickHouseClient } from '../platform/clickhouse/client.ts';
import type { Logger } from '../platform/logger.ts';
import {
  createRunKeysTable,
  createRunLocationsTable,
  createRunsTable,
  createRunThreadsTable,
  RUNS_SORTING_KEY,
  runsTableOutdated,
} from './runs/runsTable.ts';
import { createTracesTable } from './traces/tracesTable.ts';
import { markCopiesIncompleteOnUpgrade } from './copiesUpgrade.ts';
import { createTraceHourStatsTable, createTraceHourWritesTable, createTracesByHourTable } from './traces/hourStats.ts';
import { createTraceHourReachTable, createTracesByThreadTable } from './threads/threadTables.ts';
import { createFeedbackTable } from './feedback/feedbackTable.ts';
import { createFeedbackTokensTable } from './feedback/feedbackTokenTable.ts';
import { createExampleIdsTable, createExamplesTable } from './examples/exampleTables.ts';
import { createThreadsView, THREADS_VIEW } from './threads/threadsView.ts';
import { LIVE_TABLES, type ReadModelTables } from './readModelTables.ts';

/**
 * Creates a full set of read-model tables under the given names (the live ones, or a replay's);
 * those `wanted` says no to (already there) are left alone. The tables do not refer to one
 * another, so they are made at once: every process start and every replay waits for them.
 */
export async function createReadModelTables(
  ch: ClickHouseClient,
  tables: ReadModelTables,
  wanted: (table: string) => boolean = () => true,
): Promise<void> {
  const ddl: Array<[string, (name: string) => Sql]> = [
    [tables.runs, createRunsTable],
    [tables.runKeys, createRunKeysTable],
    [tables.runLocations, createRunLocationsTable],
    [tables.runThreads, createRunThreadsTable],
    [tables.traces, createTracesTable],
    [tables.feedback, createFeedbackTable],
    [tables.feedbackTokens, createFeedbackTokensTable],
    [tables.tracesByHour, createTracesByHourTable],
    [tables.traceHourWrites, createTraceHourWritesTable],
    [tables.traceHourStats, createTraceHourStatsTable],
    [tables.tracesByThread, createTracesByThreadTable],
    [tables.traceHourReach, createTraceHourReachTable],
    [tables.examples, createExamplesTable],
    [tables.exampleIds, createExampleIdsTable],
  ];
  await Promise.all(ddl.filter(([table]) => wanted(table)).map(([table, create]) => ch.exec(create(table))));
}

/**
 * The database and every read-model table, made or brought up to date. On a cluster
 * (CLICKHOUSE_CLUSTER) only what is missing is made, ON CLUSTER, and the Distributed `_all` tables
 * too (distributedTables.ts): a process starting while a replica is down sends no DDL, which would
 * wait for that replica, when every table is there.
 */
export async function ensureReadModels(ch: ClickHouseClient): Promise<void> {
  const existing = ch.cluster ? await existingTables(ch) : undefined;
  const missing = (table: string) => !existing?.has(table);
  if (!existing || existing.size === 0)
    await ch.exec(sql`CREATE DATABASE IF NOT EXISTS ${ident(ch.database)}`, { database: null });
  await markCopiesIncompleteOnUpgrade(ch);
  await createReadModelTables(ch, LIVE_TABLES, missing);
  await addMissingColumns(ch, LIVE_TABLES.runs, createRunsTable('runs_expected_shape'));
  await addMissingColumns(ch, LIVE_TABLES.runLocations, createRunLocationsTable('run_locations_expected_shape'));
  await addMissingColumns(ch, LIVE_TABLES.feedback, createFeedbackTable('feedback_expected_shape'));
  // Earlier releases filled run_locations by a materialized view; the projector writes it now
  // (a view would stay bound to the old table when a replay swaps tables in).
  if (!existing || existing.has('run_locations_mv')) await ch.exec(raw('DROP TABLE IF EXISTS `run_locations_mv`'));
  // A view holds no data: recreate it so a database from an older release gets today's
  // definition (on a cluster, made when missing: a release that changes it says so).
  if (!existing) await ch.exec(sql`DROP TABLE IF EXISTS ${ident(THREADS_VIEW)}`);
  if (missing(THREADS_VIEW))
    await ch.exec(createThreadsView(THREADS_VIEW, LIVE_TABLES.traces, ch.cluster ? ch.database : undefined));
  if (ch.cluster) {
    for (const table of Object.values(LIVE_TABLES)) {
      if (missing(`${table}${DISTRIBUTED_SUFFIX}`))
        await ch.exec(createDistributedTable(table, ch.database, ch.cluster));
    }
  }
}

const UNKNOWN_DATABASE = 81;

/** The tables of the client's database; none when the database is not there yet. */
async function existingTables(ch: ClickHouseClient): Promise<Set<string>> {
  try {
    return new Set(
      (await ch.query<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = ${ch.database}`)).map(
        (t) => t.name,
      ),
    );
  } catch (err) {
    if (err instanceof ClickHouseError && err.exceptionCode === UNKNOWN_DATABASE) return new Set();
    throw err;
  }
}

/** Adds the columns a table of an older release lacks (as the DDL defines them, after the last one). */
async function addMissingColumns(ch: ClickHouseClient, table: string, ddl: { text: string }): Promise<void> {
  const have = new Set(
    (
      await ch.query<{ name: string }>(
        sql`SELECT name FROM system.columns WHERE database = ${ch.database} AND table = ${table}`,
      )
    ).map((c) => c.name),
  );
  const body = ddl.text.slice(ddl.text.indexOf('(') + 1, ddl.text.lastIndexOf(') ENGINE'));
  for (const line of body.split('\n')) {
    const m = /^\s*([a-z_]+)\s+(.+?),?$/.exec(line);
    if (!m || have.has(m[1]!)) continue;
    await ch.exec(raw(`ALTER TABLE ${ident(table).text} ADD COLUMN ${ident(m[1]!).text} ${m[2]}`));
  }
}

/** Logs an error when `runs` has an older release's sort key, saying what to run (every process, at start). */
export async function warnIfRunsTableOutdated(ch: ClickHouseClient, logger: Logger): Promise<boolean> {
  const { outdated, sortingKey } = await runsTableOutdated(ch);
  if (outdated)
    logger.error(
      { table: LIVE_TABLES.runs, sortingKey, expected: RUNS_SORTING_KEY },
      `the runs table has the sort key of an older release (${sortingKey}); rebuild it with \`npm run replay -- --view runs\` ` +
        `(it swaps in a table ordered by (${RUNS_SORTING_KEY}) while the service keeps running): until then, reads by trace ` +
        'and by run id miss the runs projected before the upgrade',
    );
  return outdated;
}
