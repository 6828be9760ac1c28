// The copies of the trace rows that reads by time and by thread use (traces_by_hour with its
// hour tables, hourStats.ts; traces_by_thread with trace_hour_reach, threadTables.ts) start
// empty in a database from a release before them, while `traces` holds every trace projected
// until then: reads from a copy would miss those. At start-up (ensureReadModels), when a copy's
// table is about to be created beside a `traces` that holds rows, a marker table says so; until
// `npm run replay -- --view traces` swaps a rebuilt copy in (and drops its marker), the reads it
// serves read every trace of `traces`, as earlier releases did. The processes log what to run.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import type { Logger } from '../../platform/logger.ts';
import { ident, join, sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../readModelTables.ts';
import { TRACES_BY_HOUR_TABLE } from './hourStats.ts';
import { TRACES_BY_THREAD_TABLE } from './threadTables.ts';
import { TRACES_TABLE } from './tracesTable.ts';

export type TraceCopy = 'byHour' | 'byThread';

const COPIES: Record<TraceCopy, { table: string; tables: Array<keyof ReadModelTables>; marker: string; meanwhile: string }> = {
  byHour: {
    table: TRACES_BY_HOUR_TABLE,
    tables: ['tracesByHour', 'traceHourWrites', 'traceHourStats'],
    marker: 'traces_by_hour_incomplete',
    meanwhile: 'project stats read every trace of a project',
  },
  byThread: {
    table: TRACES_BY_THREAD_TABLE,
    tables: ['tracesByThread', 'traceHourReach'],
    marker: 'traces_by_thread_incomplete',
    meanwhile: "thread pages, a thread's traces and its stats read every trace of their project",
  },
};

/** The marker table of a copy that lacks what came before its release. */
export const incompleteMarker = (copy: TraceCopy): string => COPIES[copy].marker;

const tableExists = async (ch: ClickHouseClient, table: string): Promise<boolean> =>
  (await ch.query(sql`SELECT 1 FROM system.tables WHERE database = ${ch.database} AND name = ${table}`)).length > 0;

/** Before the read-model tables are created: marks each copy that would start empty beside trace rows. */
export async function markTraceCopiesIncompleteOnUpgrade(ch: ClickHouseClient): Promise<void> {
  if (!(await tableExists(ch, TRACES_TABLE))) return;
  let hasRows: boolean | undefined;
  for (const copy of Object.values(COPIES)) {
    if (await tableExists(ch, copy.table)) continue;
    hasRows ??= (await ch.query(sql`SELECT 1 FROM ${ident(TRACES_TABLE)} LIMIT 1`)).length > 0;
    if (hasRows) await ch.exec(sql`CREATE TABLE IF NOT EXISTS ${ident(copy.marker)} (at DateTime) ENGINE = TinyLog`);
  }
}

/** After a replay swapped rebuilt tables in: drops the marker of each copy whose tables it swapped. */
export async function markTraceCopiesComplete(ch: ClickHouseClient, swapped: ReadonlyArray<keyof ReadModelTables>): Promise<void> {
  for (const copy of Object.values(COPIES))
    if (copy.tables.every((t) => swapped.includes(t))) await ch.exec(sql`DROP TABLE IF EXISTS ${ident(copy.marker)}`);
  usable.delete(ch);
}

/** Checked again after this long: a replay in another process may have completed a copy. */
const RECHECK_MS = 30_000;
const usable = new WeakMap<ClickHouseClient, { at: number; value: Promise<Set<string>> }>();

/** Whether reads may use a copy (no upgrade marker), checked at most every RECHECK_MS per client. */
export async function traceCopyUsable(ch: ClickHouseClient, copy: TraceCopy): Promise<boolean> {
  let known = usable.get(ch);
  if (!known || performance.now() - known.at >= RECHECK_MS) {
    const markers = Object.values(COPIES).map((c) => c.marker);
    const value = ch
      .query<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = ${ch.database} AND name IN (${join(markers.map((m) => sql`${m}`))})`)
      .then((rows) => new Set(rows.map((r) => r.name)));
    value.catch(() => usable.delete(ch));
    usable.set(ch, (known = { at: performance.now(), value }));
  }
  return !(await known.value).has(COPIES[copy].marker);
}

/** Logs an error for each marker there, saying what to run (every process, at start). */
export async function warnIfTraceCopiesIncomplete(ch: ClickHouseClient, logger: Logger): Promise<void> {
  for (const copy of Object.values(COPIES))
    if (await tableExists(ch, copy.marker))
      logger.error(
        { table: copy.table },
        `${copy.table} lacks the traces projected before this release; rebuild it with \`npm run replay -- --view traces\`: ` +
          `until then ${copy.meanwhile}, as earlier releases did`,
      );
}
