// The runs model's writes and reads for the runs projector (projections/runsProjector.ts): a part's
// runs, their places (run_keys), threads (run_threads) and locations (run_locations), in the order
// readers rely on; where a moved run left a place (moves); and the stored runs of the traces the
// projector has not cached.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, sql } from '../../platform/clickhouse/sql.ts';
import { allOrFirstFailure } from '../shared/allOrFirstFailure.ts';
import type { Retry } from '../shared/projectorRuntime.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import type { RunRow } from '../shared/runRow.ts';
import { rowFromClickHouse } from './runRow.ts';
import { RUN_KEYS_COLUMNS, RUN_LOCATIONS_COLUMNS, RUN_THREADS_COLUMNS, RUNS_COLUMNS } from './runsTable.ts';

type Tables = Pick<ReadModelTables, 'runs' | 'runKeys' | 'runLocations' | 'runThreads'>;

/** What a part of a batch writes to the runs model. */
export interface RunsPart {
  rows: RunRow[];
  /** Runs at a new place in `runs`, and tombstones at the places moved runs left (see moves). */
  places: RunKeyRow[];
  tombstones: RunRow[];
  /** Runs that name a thread at a new place, or a new thread (see moves). */
  threads: RunThreadRow[];
  located: RunLocationRow[];
}

/** A row of `run_locations`. */
export type RunLocationRow = Pick<RunRow, 'tenant_id' | 'id' | 'trace_id' | 'session_id'>;

export class RunsWriter {
  readonly #ch: ClickHouseClient;
  readonly #tables: Tables;
  /** The model's tables, for deleting a deleted project's rows (in this order). */
  readonly tables: readonly string[];

  constructor(ch: ClickHouseClient, tables: Tables) {
    this.#ch = ch;
    this.#tables = tables;
    this.tables = [tables.runs, tables.runKeys, tables.runLocations, tables.runThreads];
  }

  /**
   * A part's runs and their locations. A new place (and a thread at it) before the rows there:
   * whoever reads a trace through run_keys (the projector after a restart included), or a thread
   * through run_threads, finds every row. Tombstones in the insert of the rows that replace them.
   * A run's location only once its row is written: whoever finds a run id in run_locations
   * (which stored runs an annotation queue counts, where feedback is placed) reads its row.
   */
  async write({ rows, places, tombstones, threads, located }: RunsPart, retry: Retry): Promise<void> {
    const t = this.#tables;
    await allOrFirstFailure([
      retry('insert run keys', () => this.#ch.insertRowBinary(t.runKeys, RUN_KEYS_COLUMNS, places)),
      threads.length === 0
        ? Promise.resolve()
        : retry('insert run threads', () => this.#ch.insertRowBinary(t.runThreads, RUN_THREADS_COLUMNS, threads)),
    ]);
    await retry('insert runs', () =>
      this.#ch.insertRowBinary(t.runs, RUNS_COLUMNS, tombstones.length ? [...rows, ...tombstones] : rows),
    );
    await retry('insert run locations', () => this.#ch.insertRowBinary(t.runLocations, RUN_LOCATIONS_COLUMNS, located));
  }

  /**
   * Every stored row (all versions) of the runs of these traces. Most traces asked are new. Which
   * have rows at all, run_keys' primary key answers cheaply; only those are read from `runs`, at
   * every place their runs have had (by its primary key). `byTrace`: `runs` has an older
   * release's key (ordered by trace, until a replay swaps today's in) and is read by trace:
   * run_keys lacks the runs projected before the upgrade.
   */
  async storedRuns(traces: ReadonlyArray<{ tenant: string; trace: string }>, byTrace: boolean): Promise<RunRow[]> {
    // UUIDs as string literals: a set of them parses as one constant (uuidSet in sql.ts).
    const tuples = join(traces.map((p) => sql`(${p.tenant}, ${p.trace})`));
    const existing = await this.#ch.query<{ tenant_id: string; trace_id: string }>(
      sql`SELECT DISTINCT tenant_id, trace_id FROM ${ident(byTrace ? this.#tables.runs : this.#tables.runKeys)} WHERE (tenant_id, trace_id) IN (${tuples})`,
    );
    if (existing.length === 0) return [];
    const known = join(existing.map((p) => sql`(${p.tenant_id}, ${p.trace_id})`));
    const rows = await this.#ch.query(
      byTrace
        ? sql`SELECT * FROM ${ident(this.#tables.runs)} WHERE (tenant_id, trace_id) IN (${known})`
        : sql`SELECT * FROM ${ident(this.#tables.runs)}
            WHERE (tenant_id, session_id, is_root, start_time, id) IN (
              SELECT tenant_id, session_id, is_root, start_time, id FROM ${ident(this.#tables.runKeys)} WHERE (tenant_id, trace_id) IN (${known}))`,
    );
    return rows.map(rowFromClickHouse);
  }
}

/** Whether two rows of a run are at one place in `runs` (its sort key after tenant_id and before id). */
const samePlace = (a: RunRow, b: RunRow) =>
  a.session_id === b.session_id && a.is_root === b.is_root && a.start_time === b.start_time;

/**
 * What a batch's writes need besides the rows: a `run_keys` row for each run at a new place
 * (new, or moved: its project or start time changed), and for each moved run a tombstone at its
 * old place: the row stored there, with has_post = 0 and a version above it (every version of
 * this batch is) but below the moved row's, so that reads by key drop the old place and reads
 * by version across places keep the moved row. And a `run_threads` row for each run that names
 * a thread at a new place, or a new thread at its place.
 */
export function moves<K>(
  dirty: Map<K, RunRow>,
  stored: Map<K, RunRow | null>,
): { places: RunKeyRow[]; tombstones: RunRow[]; threads: RunThreadRow[] } {
  const places: RunKeyRow[] = [];
  const tombstones: RunRow[] = [];
  const threads: RunThreadRow[] = [];
  for (const [runKey, row] of dirty) {
    const before = stored.get(runKey);
    if (before === undefined) continue; // only its usage rolled up: same place, same thread
    const stays = before !== null && samePlace(before, row);
    if (row.thread_id !== '' && !(stays && before.thread_id === row.thread_id)) threads.push(threadOf(row));
    if (stays) continue;
    places.push(placeOf(row));
    if (before !== null) tombstones.push({ ...before, has_post: 0, version: row.version - 1 });
  }
  return { places, tombstones, threads };
}

/** The `run_keys` row of a run at its place. */
export const placeOf = (row: RunRow): RunKeyRow => ({
  tenant_id: row.tenant_id,
  trace_id: row.trace_id,
  id: row.id,
  session_id: row.session_id,
  is_root: row.is_root,
  start_time: row.start_time,
});

/** The `run_threads` row of a run that names a thread. */
export const threadOf = (row: RunRow): RunThreadRow => ({
  tenant_id: row.tenant_id,
  thread_id: row.thread_id,
  session_id: row.session_id,
  is_root: row.is_root,
  start_time: row.start_time,
  id: row.id,
});

/** A row of `run_threads`. */
export interface RunThreadRow {
  tenant_id: string;
  thread_id: string;
  session_id: string;
  is_root: number;
  start_time: number;
  id: string;
}

/** A row of `run_keys`. */
export interface RunKeyRow {
  tenant_id: string;
  trace_id: string;
  id: string;
  session_id: string;
  is_root: number;
  start_time: number;
}
