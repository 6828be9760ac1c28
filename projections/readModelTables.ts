// The names of the read-model tables, composed from the models' own (each model's table module
// names its tables): the live set, and a replay's set under a suffix. The type is
// shared/readModelTables.ts.
import { RUN_KEYS_TABLE, RUN_LOCATIONS_TABLE, RUN_THREADS_TABLE, RUNS_TABLE } from './runs/runsTable.ts';
import { TRACES_TABLE } from './traces/tracesTable.ts';
import { FEEDBACK_TABLE } from './feedback/feedbackTable.ts';
import { FEEDBACK_TOKENS_TABLE } from './feedback/feedbackTokenTable.ts';
import { TRACE_HOUR_STATS_TABLE, TRACE_HOUR_WRITES_TABLE, TRACES_BY_HOUR_TABLE } from './traces/hourStats.ts';
import { TRACE_HOUR_REACH_TABLE, TRACES_BY_THREAD_TABLE } from './threads/threadTables.ts';
import { EXAMPLE_IDS_TABLE, EXAMPLES_TABLE } from './examples/exampleTables.ts';
import type { ReadModelTables } from './shared/readModelTables.ts';

export type { ReadModelTables } from './shared/readModelTables.ts';

export const LIVE_TABLES: ReadModelTables = {
  runs: RUNS_TABLE,
  runKeys: RUN_KEYS_TABLE,
  runLocations: RUN_LOCATIONS_TABLE,
  runThreads: RUN_THREADS_TABLE,
  traces: TRACES_TABLE,
  feedback: FEEDBACK_TABLE,
  feedbackTokens: FEEDBACK_TOKENS_TABLE,
  tracesByHour: TRACES_BY_HOUR_TABLE,
  traceHourWrites: TRACE_HOUR_WRITES_TABLE,
  traceHourStats: TRACE_HOUR_STATS_TABLE,
  tracesByThread: TRACES_BY_THREAD_TABLE,
  traceHourReach: TRACE_HOUR_REACH_TABLE,
  examples: EXAMPLES_TABLE,
  exampleIds: EXAMPLE_IDS_TABLE,
};

/** The same set of tables under a suffix (a replay's fresh tables, or the ones it swapped out). */
export const tablesWithSuffix = (suffix: string): ReadModelTables => ({
  runs: `${LIVE_TABLES.runs}${suffix}`,
  runKeys: `${LIVE_TABLES.runKeys}${suffix}`,
  runLocations: `${LIVE_TABLES.runLocations}${suffix}`,
  runThreads: `${LIVE_TABLES.runThreads}${suffix}`,
  traces: `${LIVE_TABLES.traces}${suffix}`,
  feedback: `${LIVE_TABLES.feedback}${suffix}`,
  feedbackTokens: `${LIVE_TABLES.feedbackTokens}${suffix}`,
  tracesByHour: `${LIVE_TABLES.tracesByHour}${suffix}`,
  traceHourWrites: `${LIVE_TABLES.traceHourWrites}${suffix}`,
  traceHourStats: `${LIVE_TABLES.traceHourStats}${suffix}`,
  tracesByThread: `${LIVE_TABLES.tracesByThread}${suffix}`,
  traceHourReach: `${LIVE_TABLES.traceHourReach}${suffix}`,
  examples: `${LIVE_TABLES.examples}${suffix}`,
  exampleIds: `${LIVE_TABLES.exampleIds}${suffix}`,
});
