// When an export's runs are due, and which runs they are. Pure functions of the export and
// the clock, so every scheduler (replicas, restarts) computes the same runs with the same ids:
// - an examples export has one run, due at once, whose range is its version: [as_of, as_of]
//   (the version was pinned, against the caught-up read model, when the export was created);
// - a one-time export of runs has one window, [start_time, end_time);
// - a scheduled export has windows of interval_hours aligned on start_time: [start + k·I, start + (k+1)·I);
// - a window is due once its end plus the lag buffer has passed (late runs and projector lag);
// - a window is cut at UTC midnights into runs, one per day partition;
// - a run's id is derived from the export and its range.
import { v5 as uuidv5 } from 'uuid';
import { ID_NAMESPACE } from '../../platform/ids.ts';
import type { ExportResource } from './exportTypes.ts';

const HOUR_MICROS = 3600 * 1_000_000;
const DAY_MICROS = 24 * HOUR_MICROS;

export interface RunRange {
  id: string;
  /** Microseconds, [startTime, endTime). */
  startTime: number;
  endTime: number;
}

export interface ScheduleOf {
  id: string;
  /** runs when absent. */
  resource?: ExportResource;
  /** examples: the version read. */
  asOf?: number | null;
  /** runs: the start of the first window (null for examples). */
  startTime: number | null;
  endTime: number | null;
  intervalHours: number | null;
}

export const exportRunId = (exportId: string, startTime: number, endTime: number): string =>
  uuidv5(`bulk-export-run:${exportId}:${startTime}:${endTime}`, ID_NAMESPACE);

/** [start, end) cut at every UTC midnight inside it. */
export function splitAtUtcMidnights(start: number, end: number): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  for (let from = start; from < end; ) {
    const nextMidnight = (Math.floor(from / DAY_MICROS) + 1) * DAY_MICROS;
    const to = Math.min(end, nextMidnight);
    pieces.push([from, to]);
    from = to;
  }
  return pieces;
}

/**
 * The runs of the export's windows that are due at `now` (microseconds), oldest first, at
 * most `limit` windows' worth. Runs already scheduled come again: the caller skips known ids.
 * `fromWindow` skips windows before it (those whose runs are all known).
 */
export function dueRuns(
  e: ScheduleOf,
  now: number,
  lagMicros: number,
  options: { fromWindow?: number; limit?: number } = {},
): { runs: RunRange[]; nextWindow: number } {
  const limit = options.limit ?? 1000;
  const windows: Array<[number, number]> = [];
  let k = options.fromWindow ?? 0;
  if (e.resource === 'examples') {
    const asOf = e.asOf!;
    return {
      runs: k === 0 ? [{ id: exportRunId(e.id, asOf, asOf), startTime: asOf, endTime: asOf }] : [],
      nextWindow: 1,
    };
  }
  const startTime = e.startTime!;
  if (e.endTime !== null) {
    if (k === 0 && now >= e.endTime + lagMicros) {
      windows.push([startTime, e.endTime]);
      k = 1;
    }
  } else if (e.intervalHours !== null) {
    const interval = e.intervalHours * HOUR_MICROS;
    for (; windows.length < limit; k++) {
      const start = startTime + k * interval;
      if (now < start + interval + lagMicros) break;
      windows.push([start, start + interval]);
    }
  }
  const runs = windows.flatMap(([start, end]) =>
    splitAtUtcMidnights(start, end).map(([s, t]) => ({ id: exportRunId(e.id, s, t), startTime: s, endTime: t })),
  );
  return { runs, nextWindow: k };
}
