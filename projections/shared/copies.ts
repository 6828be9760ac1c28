// Whether reads may use a copy of read-model rows (traces_by_hour, traces_by_thread, run_threads)
// in place of a scan of its source: not while a database upgraded from a release before the copy
// has its marker table, which says the copy lacks what was projected before (the markers are made
// and dropped by projections/copiesUpgrade.ts, at start-up and by a replay).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { join, sql } from '../../platform/clickhouse/sql.ts';

export type ReadModelCopy = 'byHour' | 'byThread' | 'runsByThread';

/** The marker table of each copy, there while the copy lacks what came before its release. */
export const COPY_MARKERS: Readonly<Record<ReadModelCopy, string>> = {
  byHour: 'traces_by_hour_incomplete',
  byThread: 'traces_by_thread_incomplete',
  runsByThread: 'run_threads_incomplete',
};

/** Checked again after this long: a replay in another process may have completed a copy. */
const RECHECK_MS = 30_000;
const usable = new WeakMap<ClickHouseClient, { at: number; value: Promise<Set<string>> }>();

/** Whether reads may use a copy (no upgrade marker), checked at most every RECHECK_MS per client. */
export async function copyUsable(ch: ClickHouseClient, copy: ReadModelCopy): Promise<boolean> {
  let known = usable.get(ch);
  if (!known || performance.now() - known.at >= RECHECK_MS) {
    const markers = Object.values(COPY_MARKERS);
    const value = ch
      .query<{ name: string }>(
        sql`SELECT name FROM system.tables WHERE database = ${ch.database} AND name IN (${join(markers.map((m) => sql`${m}`))})`,
      )
      .then((rows) => new Set(rows.map((r) => r.name)));
    value.catch(() => usable.delete(ch));
    usable.set(ch, (known = { at: performance.now(), value }));
  }
  return !(await known.value).has(COPY_MARKERS[copy]);
}

/** Forgets what copyUsable knows of a client's markers (a replay just dropped some). */
export const forgetCopyMarkers = (ch: ClickHouseClient): void => {
  usable.delete(ch);
};
