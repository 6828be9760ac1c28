// A trace's row as the read models keep it: in `traces` (the traces model), and again in its
// copies by hour (traces_by_hour, the traces model) and by thread (traces_by_thread, the threads
// model). Its columns, its type, where a trace was placed, and what the runs projector hands the
// writers of trace rows (each model's writer: traces/tracesWriter.ts, threads/threadsWriter.ts).
import type { Retry } from './projectorRuntime.ts';
import type { Usage } from './usage.ts';

/** The columns of a trace row (`traces`, and its copies `traces_by_hour` and `traces_by_thread`), version last. */
export const TRACE_COLUMNS = `
  tenant_id UUID,
  trace_id UUID,
  session_id UUID,
  thread_id String,
  name String,
  run_type String,
  status String,
  start_time Int64,
  end_time Nullable(Int64),
  first_token_time Nullable(Int64),
  last_run_start_time Int64,
  run_count UInt32,
  error_count UInt32,
  run_types Array(String),
  run_type_counts Array(UInt32),
  statuses Array(String),
  status_counts Array(UInt32),
  prompt_tokens UInt64,
  completion_tokens UInt64,
  total_tokens UInt64,
  prompt_cost Float64,
  completion_cost Float64,
  total_cost Float64,
  tags Array(String),
  has_root UInt8,
  version UInt64`;

/** Usage columns (Usage): totals over all the runs of the trace. */
export interface TraceRow extends Usage {
  tenant_id: string;
  trace_id: string;
  session_id: string;
  thread_id: string;
  name: string;
  run_type: string;
  status: string;
  start_time: number;
  end_time: number | null;
  first_token_time: number | null;
  last_run_start_time: number;
  run_count: number;
  error_count: number;
  run_types: string[];
  run_type_counts: number[];
  statuses: string[];
  status_counts: number[];
  tags: string[];
  has_root: number;
  version: number;
}

/** The project, start time and thread of a trace's row (as traces/traceRow.ts gives them). */
export interface TracePlacement {
  session: string;
  start: number;
  thread: string;
}

/** A trace whose row a part of a batch wrote: its new row, and where its row was before the part (null: none). */
export interface TraceChange {
  row: TraceRow;
  before: TracePlacement | null;
}

/**
 * What a read model kept from trace rows writes for a part of a batch of the runs topic, in two
 * steps the runs projector orders (projections/runsProjector.ts): the tombstones of the places
 * traces left, before the runs that move them; then the part's trace rows, once the runs and
 * locations of every part up to it are in.
 */
export interface TraceRowsWriter {
  /** The model's tables, for deleting a deleted project's rows (in this order). */
  readonly tables: readonly string[];
  writeLeft(changes: readonly TraceChange[], retry: Retry): Promise<void>;
  write(rows: readonly TraceRow[], retry: Retry): Promise<void>;
}
