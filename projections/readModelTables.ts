// The names of the read-model tables. Live tables have the documented names; a replay builds
// a full set under a suffix and swaps it in at the end, so every writer and reader takes its
// table names from one of these objects instead of a constant.
import { RUN_KEYS_TABLE, RUN_LOCATIONS_TABLE, RUN_THREADS_TABLE, RUNS_TABLE } from './runs/runsTable.ts';
import { TRACES_TABLE } from './traces/tracesTable.ts';
import { FEEDBACK_TABLE } from './feedback/feedbackTable.ts';
import { TRACE_HOUR_STATS_TABLE, TRACE_HOUR_WRITES_TABLE, TRACES_BY_HOUR_TABLE } from './traces/hourStats.ts';
import { TRACE_HOUR_REACH_TABLE, TRACES_BY_THREAD_TABLE } from './traces/threadTables.ts';

export interface ReadModelTables {
  /** One row per run (post and patches merged), ORDER BY (tenant_id, session_id, is_root, start_time, id). */
  runs: string;
  /** (tenant_id, trace_id, id) -> every place in `runs` the run has had, for reads by trace. */
  runKeys: string;
  /** (tenant_id, id) -> trace_id, for reads by run id. */
  runLocations: string;
  /** (tenant_id, thread_id) -> every place in `runs` the thread's runs have had, for filters on thread_id. */
  runThreads: string;
  /** One row per trace: root run, times, counts, tokens, cost, thread. */
  traces: string;
  /** One row per feedback item. */
  feedback: string;
  /** The trace rows again, ORDER BY (tenant_id, session_id, hour, trace_id) (traces/hourStats.ts). */
  tracesByHour: string;
  /** Writes per (tenant_id, session_id, hour) of tracesByHour. */
  traceHourWrites: string;
  /** Trace aggregates per (tenant_id, session_id, hour, errored), filled by the readers. */
  traceHourStats: string;
  /** The trace rows of threads again, ORDER BY (tenant_id, session_id, thread_id, trace_id) (traces/threadTables.ts). */
  tracesByThread: string;
  /** The latest run start of the traces of each (tenant_id, session_id, hour), an upper bound. */
  traceHourReach: string;
}

export const LIVE_TABLES: ReadModelTables = {
  runs: RUNS_TABLE,
  runKeys: RUN_KEYS_TABLE,
  runLocations: RUN_LOCATIONS_TABLE,
  runThreads: RUN_THREADS_TABLE,
  traces: TRACES_TABLE,
  feedback: FEEDBACK_TABLE,
  tracesByHour: TRACES_BY_HOUR_TABLE,
  traceHourWrites: TRACE_HOUR_WRITES_TABLE,
  traceHourStats: TRACE_HOUR_STATS_TABLE,
  tracesByThread: TRACES_BY_THREAD_TABLE,
  traceHourReach: TRACE_HOUR_REACH_TABLE,
};

/** The same set of tables under a suffix (a replay's fresh tables, or the ones it swapped out). */
export const tablesWithSuffix = (suffix: string): ReadModelTables => ({
  runs: `${LIVE_TABLES.runs}${suffix}`,
  runKeys: `${LIVE_TABLES.runKeys}${suffix}`,
  runLocations: `${LIVE_TABLES.runLocations}${suffix}`,
  runThreads: `${LIVE_TABLES.runThreads}${suffix}`,
  traces: `${LIVE_TABLES.traces}${suffix}`,
  feedback: `${LIVE_TABLES.feedback}${suffix}`,
  tracesByHour: `${LIVE_TABLES.tracesByHour}${suffix}`,
  traceHourWrites: `${LIVE_TABLES.traceHourWrites}${suffix}`,
  traceHourStats: `${LIVE_TABLES.traceHourStats}${suffix}`,
  tracesByThread: `${LIVE_TABLES.tracesByThread}${suffix}`,
  traceHourReach: `${LIVE_TABLES.traceHourReach}${suffix}`,
});
