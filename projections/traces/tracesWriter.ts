// The traces model's writes for the runs projector (projections/runsProjector.ts): a part's trace
// rows by hour with their write counts, then `traces`; and, before the runs that move a trace,
// its tombstone where it was by hour (hourStats.ts).
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { hourOf } from '../shared/hours.ts';
import type { Retry } from '../shared/projectorRuntime.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import type { TraceChange, TraceRow, TraceRowsWriter } from '../shared/traceRow.ts';
import { hourRow, hourWrites, TRACE_HOUR_WRITES_COLUMNS, TRACES_BY_HOUR_COLUMNS } from './hourStats.ts';
import { TRACES_COLUMNS } from './tracesTable.ts';

type Tables = Pick<ReadModelTables, 'traces' | 'tracesByHour' | 'traceHourWrites' | 'traceHourStats'>;

export class TracesWriter implements TraceRowsWriter {
  readonly #ch: ClickHouseClient;
  readonly #tables: Tables;
  readonly tables: readonly string[];

  constructor(ch: ClickHouseClient, tables: Tables) {
    this.#ch = ch;
    this.#tables = tables;
    this.tables = [tables.traces, tables.tracesByHour, tables.traceHourWrites, tables.traceHourStats];
  }

  /** Tombstones in traces_by_hour where traces were before the part moved them (another project or hour), counted. */
  async writeLeft(changes: readonly TraceChange[], retry: Retry): Promise<void> {
    const tombstones: Array<ReturnType<typeof hourRow>> = [];
    for (const { row, before } of changes)
      if (before && (before.session !== row.session_id || hourOf(before.start) !== hourOf(row.start_time)))
        tombstones.push(hourRow({ ...row, session_id: before.session, start_time: before.start }, 1));
    if (tombstones.length === 0) return;
    await retry('insert trace tombstones by hour', () =>
      this.#ch.insertRowBinary(this.#tables.tracesByHour, TRACES_BY_HOUR_COLUMNS, tombstones),
    );
    await retry('count trace writes by hour', () =>
      this.#ch.insertRowBinary(this.#tables.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites(tombstones)),
    );
  }

  /**
   * By hour, counted once it can be read (a count never names a write a reader cannot see yet),
   * then `traces`: a reader who finds a trace row finds it in its project's stats.
   */
  async write(rows: readonly TraceRow[], retry: Retry): Promise<void> {
    const byHour = rows.map((r) => hourRow(r, 0));
    await retry('insert traces by hour', () =>
      this.#ch.insertRowBinary(this.#tables.tracesByHour, TRACES_BY_HOUR_COLUMNS, byHour),
    );
    await retry('count trace writes by hour', () =>
      this.#ch.insertRowBinary(this.#tables.traceHourWrites, TRACE_HOUR_WRITES_COLUMNS, hourWrites(byHour)),
    );
    await retry('insert traces', () => this.#ch.insertRowBinary(this.#tables.traces, TRACES_COLUMNS, rows));
  }
}
