// The threads model's writes for the runs projector (projections/runsProjector.ts): a part's trace
// rows of threads (traces_by_thread) with the reach of their hours (trace_hour_reach); and, before
// the runs that move a trace, its tombstone where it was in a thread (threadTables.ts).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { allOrFirstFailure } from '../shared/allOrFirstFailure.ts';
import type { Retry } from '../shared/projectorRuntime.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import type { TraceChange, TraceRow, TraceRowsWriter } from '../shared/traceRow.ts';
import {
  hourReach,
  threadRow,
  threadRows,
  TRACE_HOUR_REACH_COLUMNS,
  TRACES_BY_THREAD_COLUMNS,
} from './threadTables.ts';

type Tables = Pick<ReadModelTables, 'tracesByThread' | 'traceHourReach'>;

export class ThreadsWriter implements TraceRowsWriter {
  readonly #ch: ClickHouseClient;
  readonly #tables: Tables;
  readonly tables: readonly string[];

  constructor(ch: ClickHouseClient, tables: Tables) {
    this.#ch = ch;
    this.#tables = tables;
    this.tables = [tables.tracesByThread, tables.traceHourReach];
  }

  /** Where traces left a thread (or a project, in a thread): tombstones for traces_by_thread. */
  async writeLeft(changes: readonly TraceChange[], retry: Retry): Promise<void> {
    const tombstones: Array<ReturnType<typeof threadRow>> = [];
    for (const { row, before } of changes)
      if (before && before.thread !== '' && (before.session !== row.session_id || before.thread !== row.thread_id))
        tombstones.push(threadRow({ ...row, session_id: before.session, thread_id: before.thread }, 1));
    if (tombstones.length === 0) return;
    await retry('insert trace tombstones by thread', () =>
      this.#ch.insertRowBinary(this.#tables.tracesByThread, TRACES_BY_THREAD_COLUMNS, tombstones),
    );
  }

  /** The rows of threads, and the reach of every hour the rows start in. */
  async write(rows: readonly TraceRow[], retry: Retry): Promise<void> {
    const byThread = threadRows(rows);
    await allOrFirstFailure([
      byThread.length === 0
        ? Promise.resolve()
        : retry('insert traces by thread', () =>
            this.#ch.insertRowBinary(this.#tables.tracesByThread, TRACES_BY_THREAD_COLUMNS, byThread),
          ),
      retry('insert the reach of trace hours', () =>
        this.#ch.insertRowBinary(this.#tables.traceHourReach, TRACE_HOUR_REACH_COLUMNS, hourReach(rows)),
      ),
    ]);
  }
}
