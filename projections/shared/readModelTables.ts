// The names of one set of read-model tables, by role. Live tables have the documented names; a
// replay builds a full set under a suffix and swaps it in at the end, so every writer and reader
// takes its table names from one of these objects instead of a constant. Each model reads and
// writes through the names of its own tables (a Pick of this); the live set and a replay's are
// composed at the top (projections/readModelTables.ts).

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
  /** One row per presigned feedback token, ORDER BY id. */
  feedbackTokens: string;
  /** The trace rows again, ORDER BY (tenant_id, session_id, hour, trace_id) (traces/hourStats.ts). */
  tracesByHour: string;
  /** Writes per (tenant_id, session_id, hour) of tracesByHour. */
  traceHourWrites: string;
  /** Trace aggregates per (tenant_id, session_id, hour, errored), filled by the readers. */
  traceHourStats: string;
  /** The trace rows of threads again, ORDER BY (tenant_id, session_id, thread_id, trace_id) (threads/threadTables.ts). */
  tracesByThread: string;
  /** The latest run start of the traces of each (tenant_id, session_id, hour), an upper bound. */
  traceHourReach: string;
  /** Every version of every dataset example, ORDER BY (tenant_id, dataset_id, id, modified_at) (examples/exampleTables.ts). */
  examples: string;
  /** (tenant_id, id) -> the dataset of an example, for reads by example id. */
  exampleIds: string;
}
