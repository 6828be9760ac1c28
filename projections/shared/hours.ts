// Hours of trace start times: the copies of the trace rows by hour (traces_by_hour, with its hour
// tables) and the reach of each hour (trace_hour_reach) key their rows by the hour a trace started
// in. Shared by the traces and threads models, and by the reads that walk a window hour by hour.
import { sql, type Sql } from '../../platform/clickhouse/sql.ts';

export const HOUR_MICROS = 3_600_000_000;
/** The hour (its start, in microseconds) a start time falls in. */
export const hourOf = (micros: number): number => Math.floor(micros / HOUR_MICROS) * HOUR_MICROS;

/** Conditions on traces_by_hour's `hour` for the hours a start-time range [min, max) touches (its key's bounds). */
export function hoursTouched(min: number | undefined, max: number | undefined): Sql[] {
  return [
    ...(min !== undefined ? [sql`hour >= ${hourOf(min)}`] : []),
    ...(max !== undefined ? [sql`hour < ${max}`] : []),
  ];
}

/**
 * Hours with traces (ascending), from the newest or the oldest, in spans of 1, 2, 4, … of them:
 * each span's [from, to) bounds of the hour column, and how many hours are left beyond it. For
 * reads that walk a window from one end until they have what they need.
 */
export function* hourSpans(
  hours: readonly number[],
  newestFirst: boolean,
): Generator<{ from: number; to: number; left: number }> {
  for (let done = 0, span = 1; done < hours.length; span *= 2) {
    const n = Math.min(span, hours.length - done);
    const [first, last] = newestFirst ? [hours.length - done - n, hours.length - done - 1] : [done, done + n - 1];
    done += n;
    yield { from: hours[first]!, to: hours[last]! + HOUR_MICROS, left: hours.length - done };
  }
}
