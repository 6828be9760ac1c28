// Copies of read-model rows that reads use in place of a scan: of the trace rows, by time and by
// thread (traces_by_hour with its hour tables, traces/hourStats.ts; traces_by_thread with
// trace_hour_reach, threads/threadTables.ts), and of the runs' places, by thread (run_threads,
// runs/runsTable.ts). Each starts empty in a database from a release before it, while its source
// (`traces`, `runs`) holds every row projected until then: reads from a copy would miss those.
// At start-up (ensureReadModels), when a copy's table is about to be created beside a source
// that holds rows, a marker table says so; until `npm run replay -- --view <view>` swaps a
// rebuilt copy in (and drops its marker), the reads it serves read the source, as earlier
// releases did (shared/copies.ts says whether they may). The processes log what to run.
import type { ClickHouseClient } from '../platform/clickhouse/client.ts';
import type { Logger } from '../platform/logger.ts';
import { ident, sql } from '../platform/clickhouse/sql.ts';
import type { ReadModelTables } from './shared/readModelTables.ts';
import { COPY_MARKERS, forgetCopyMarkers, type ReadModelCopy } from './shared/copies.ts';
import { TRACES_BY_HOUR_TABLE } from './traces/hourStats.ts';
import { TRACES_BY_THREAD_TABLE } from './threads/threadTables.ts';
import { TRACES_TABLE } from './traces/tracesTable.ts';
import { RUN_THREADS_TABLE, RUNS_TABLE } from './runs/runsTable.ts';

export type { ReadModelCopy } from './shared/copies.ts';

interface Copy {
  /** The copy's first table (whose absence at start-up means an older release). */
  table: string;
  /** The table it copies. */
  source: string;
  /** The copy's tables: a replay that swaps them all in completes it. */
  tables: Array<keyof ReadModelTables>;
  marker: string;
  /** The replay view that rebuilds it. */
  view: 'traces' | 'runs';
  meanwhile: string;
}

const COPIES: Record<ReadModelCopy, Copy> = {
  byHour: {
    table: TRACES_BY_HOUR_TABLE,
    source: TRACES_TABLE,
    tables: ['tracesByHour', 'traceHourWrites', 'traceHourStats'],
    marker: COPY_MARKERS.byHour,
    view: 'traces',
    meanwhile: 'project stats read every trace of a project',
  },
  byThread: {
    table: TRACES_BY_THREAD_TABLE,
    source: TRACES_TABLE,
    tables: ['tracesByThread', 'traceHourReach'],
    marker: COPY_MARKERS.byThread,
    view: 'traces',
    meanwhile: "thread pages, a thread's traces and its stats read every trace of their project",
  },
  runsByThread: {
    table: RUN_THREADS_TABLE,
    source: RUNS_TABLE,
    tables: ['runThreads'],
    marker: COPY_MARKERS.runsByThread,
    view: 'runs',
    meanwhile: 'a filter on thread_id reads the thread of every run of its projects',
  },
};

/** The marker table of a copy that lacks what came before its release. */
export const incompleteMarker = (copy: ReadModelCopy): string => COPIES[copy].marker;

const tableExists = async (ch: ClickHouseClient, table: string): Promise<boolean> =>
  (await ch.query(sql`SELECT 1 FROM system.tables WHERE database = ${ch.database} AND name = ${table}`)).length > 0;

/** Before the read-model tables are created: marks each copy that would start empty beside rows of its source. */
export async function markCopiesIncompleteOnUpgrade(ch: ClickHouseClient): Promise<void> {
  const hasRows = new Map<string, boolean>();
  for (const copy of Object.values(COPIES)) {
    if (await tableExists(ch, copy.table)) continue;
    if (!hasRows.has(copy.source))
      hasRows.set(
        copy.source,
        (await tableExists(ch, copy.source)) &&
          (await ch.query(sql`SELECT 1 FROM ${ident(copy.source)} LIMIT 1`)).length > 0,
      );
    if (hasRows.get(copy.source))
      await ch.exec(sql`CREATE TABLE IF NOT EXISTS ${ident(copy.marker)} (at DateTime) ENGINE = TinyLog`);
  }
}

/** After a replay swapped rebuilt tables in: drops the marker of each copy whose tables it swapped. */
export async function markCopiesComplete(
  ch: ClickHouseClient,
  swapped: ReadonlyArray<keyof ReadModelTables>,
): Promise<void> {
  for (const copy of Object.values(COPIES))
    if (copy.tables.every((t) => swapped.includes(t))) await ch.exec(sql`DROP TABLE IF EXISTS ${ident(copy.marker)}`);
  forgetCopyMarkers(ch);
}

/** Logs an error for each marker there, saying what to run (every process, at start). */
export async function warnIfCopiesIncomplete(ch: ClickHouseClient, logger: Logger): Promise<void> {
  for (const copy of Object.values(COPIES))
    if (await tableExists(ch, copy.marker))
      logger.error(
        { table: copy.table },
        `${copy.table} lacks the ${copy.source} projected before this release; rebuild it with \`npm run replay -- --view ${copy.view}\`: ` +
          `until then ${copy.meanwhile}, as earlier releases did`,
      );
}
