// A database from a release before the hour stats has trace rows in `traces` and none in
// `traces_by_hour`: its project stats would miss every trace projected before the upgrade. At
// start-up (ensureReadModels), when `traces_by_hour` is about to be created beside a `traces`
// that holds rows, a marker table says so; until `npm run replay -- --view traces` swaps in a
// rebuilt `traces_by_hour` (and drops the marker), stats read every trace of `traces` as
// earlier releases did. The processes log what to run.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import type { Logger } from '../../platform/logger.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { TRACES_BY_HOUR_TABLE } from './hourStats.ts';
import { TRACES_TABLE } from './tracesTable.ts';

export const HOUR_STATS_INCOMPLETE_MARKER = 'traces_by_hour_incomplete';

const tableExists = async (ch: ClickHouseClient, table: string): Promise<boolean> =>
  (await ch.query(sql`SELECT 1 FROM system.tables WHERE database = ${ch.database} AND name = ${table}`)).length > 0;

/** Before the read-model tables are created: marks an upgraded database whose traces_by_hour would start empty. */
export async function markHourStatsIncompleteOnUpgrade(ch: ClickHouseClient): Promise<void> {
  if ((await tableExists(ch, TRACES_BY_HOUR_TABLE)) || !(await tableExists(ch, TRACES_TABLE))) return;
  const [row] = await ch.query(sql`SELECT 1 FROM ${ident(TRACES_TABLE)} LIMIT 1`);
  if (row) await ch.exec(sql`CREATE TABLE IF NOT EXISTS ${ident(HOUR_STATS_INCOMPLETE_MARKER)} (at DateTime) ENGINE = TinyLog`);
}

/** After a replay swapped a rebuilt traces_by_hour in. */
export async function markHourStatsComplete(ch: ClickHouseClient): Promise<void> {
  await ch.exec(sql`DROP TABLE IF EXISTS ${ident(HOUR_STATS_INCOMPLETE_MARKER)}`);
  usable.delete(ch);
}

/** Checked again after this long: a replay in another process may have completed the table. */
const RECHECK_MS = 30_000;
const usable = new WeakMap<ClickHouseClient, { at: number; value: Promise<boolean> }>();

/** Whether stats may read traces_by_hour (no upgrade marker), checked at most every RECHECK_MS per client. */
export function hourStatsUsable(ch: ClickHouseClient): Promise<boolean> {
  const known = usable.get(ch);
  if (known && performance.now() - known.at < RECHECK_MS) return known.value;
  const value = tableExists(ch, HOUR_STATS_INCOMPLETE_MARKER).then((marked) => !marked);
  value.catch(() => usable.delete(ch));
  usable.set(ch, { at: performance.now(), value });
  return value;
}

/** Logs an error when the marker is there, saying what to run (every process, at start). */
export async function warnIfHourStatsIncomplete(ch: ClickHouseClient, logger: Logger): Promise<void> {
  if (await tableExists(ch, HOUR_STATS_INCOMPLETE_MARKER))
    logger.error(
      { table: TRACES_BY_HOUR_TABLE },
      `${TRACES_BY_HOUR_TABLE} lacks the traces projected before this release; rebuild it with \`npm run replay -- --view traces\`: ` +
        'until then project stats read every trace of a project, as earlier releases did',
    );
}
