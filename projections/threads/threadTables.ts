// Trace rows by thread, so reads of threads cost what their threads hold, not what the project
// holds. Two tables, written by the runs projector beside traces_by_hour (hourStats.ts):
//
//   traces_by_thread   the trace rows of threads again (thread_id != ''), ordered by (tenant,
//                      project, thread, trace): one thread's traces are one range of the table.
//                      A trace whose project or thread changes (a root posted after its child,
//                      naming another thread) leaves a tombstone (deleted = 1, the new row's
//                      version) at the place it left, written before the runs that move it, as
//                      traces_by_hour does. FINAL … WHERE deleted = 0 shows each trace once.
//   trace_hour_reach   per (tenant, project, hour of trace start), the latest run start of the
//                      traces that started in that hour (ReplacingMergeTree on it: the greatest
//                      written stays). A trace that moves leaves its reach where it was: a reach
//                      is an upper bound, never less than the traces of its hour reach.
//
// A thread's last activity is the latest run start of its traces. The thread page (threadQueries.ts)
// reads the traces of the newest hours of its window (traces_by_hour) until the threads they name
// are enough to fill the page with activity later than any older hour reaches; those threads'
// summaries come from traces_by_thread. So a page costs the newest hours of its window and its
// threads, not the window.
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import { hourOf } from '../shared/hours.ts';
import { TRACE_COLUMNS, type TraceRow } from '../shared/traceRow.ts';

export const TRACES_BY_THREAD_TABLE = 'traces_by_thread';
export const TRACE_HOUR_REACH_TABLE = 'trace_hour_reach';

/**
 * Granules of 256 rows, not 8,192: a page reads a few traces of each of ~20 threads scattered
 * over the key, one granule each (a page of 21 threads read 2,816 rows instead of 81,920 at 10M
 * runs, 7 ms instead of 21).
 */
export function createTracesByThreadTable(table: string = TRACES_BY_THREAD_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (${TRACE_COLUMNS},
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, session_id, thread_id, trace_id)
SETTINGS index_granularity = 256`);
}

export function createTraceHourReachTable(table: string = TRACE_HOUR_REACH_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  session_id UUID,
  hour Int64,
  reach Int64
) ENGINE = ReplacingMergeTree(reach)
ORDER BY (tenant_id, session_id, hour)`);
}

export const TRACES_BY_THREAD_COLUMNS = rowBinaryColumns(createTracesByThreadTable());
export const TRACE_HOUR_REACH_COLUMNS = rowBinaryColumns(createTraceHourReachTable());

/** A trace row where traces_by_thread keeps it; with `deleted`, the tombstone of a place it left. */
export function threadRow(row: TraceRow, deleted: 0 | 1): TraceRow & { deleted: number } {
  return { ...row, deleted };
}

/** The rows of a part's traces that traces_by_thread keeps: those in a thread. */
export function threadRows(rows: readonly TraceRow[]): Array<TraceRow & { deleted: number }> {
  const out: Array<TraceRow & { deleted: number }> = [];
  for (const r of rows) if (r.thread_id !== '') out.push(threadRow(r, 0));
  return out;
}

/** One reach per (tenant, project, hour) of the rows: the latest run start of its traces. */
export function hourReach(rows: readonly TraceRow[]): object[] {
  const out = new Map<string, { tenant_id: string; session_id: string; hour: number; reach: number }>();
  for (const r of rows) {
    const hour = hourOf(r.start_time);
    const key = `${r.tenant_id}|${r.session_id}|${hour}`;
    const seen = out.get(key);
    if (!seen) out.set(key, { tenant_id: r.tenant_id, session_id: r.session_id, hour, reach: r.last_run_start_time });
    else if (r.last_run_start_time > seen.reach) seen.reach = r.last_run_start_time;
  }
  return [...out.values()];
}
