// Reads of the hour stats (hourStats.ts): the totals of a set of traces over a time range, from
// the slices of the whole hours it covers that are as their hour is now, and from the trace rows
// of every other hour it touches (traces_by_hour, one range of the table per hour). The slices
// of the whole hours read from rows are written back for the next reader. So the cost of a read
// grows with the hours of its range and the hours written since they were last read, not with
// the project.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import { num } from '../../platform/clickhouse/rowValues.ts';
import { statsSliceWriteFailures } from '../../platform/metrics.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { HOUR_MICROS, hourOf, hoursTouched } from '../shared/hours.ts';
import {
  addRollup,
  emptyRollup,
  rollupOf,
  sliceRow,
  SLICE_AGGREGATES,
  TRACE_AGGREGATES,
  TRACE_HOUR_STATS_COLUMNS,
  type Rollup,
} from './hourStats.ts';

type Tables = Pick<ReadModelTables, 'tracesByHour' | 'traceHourWrites' | 'traceHourStats'>;

/** A set of traces the hour stats answer for: projects, a start-time range, errored or not. */
export interface HourSet {
  tenantId: string;
  projectIds: readonly string[];
  minStartTime?: number | undefined;
  maxStartTime?: number | undefined;
  hasError?: boolean | undefined;
}

/** How rollups are grouped: all in one, per project, per time bucket (a whole number of hours), or both. */
export type RollupGrouping =
  | { by: 'none' }
  | { by: 'project' }
  | { by: 'bucket'; size: number }
  | { by: 'project-bucket'; size: number };

const groupKey = (grouping: RollupGrouping, project: string, hour: number): string => {
  const bucket = 'size' in grouping ? String(Math.floor(hour / grouping.size) * grouping.size) : '';
  if (grouping.by === 'project') return project;
  if (grouping.by === 'project-bucket') return `${project}|${bucket}`;
  return bucket;
};

/**
 * Rollups of a set of traces, grouped as asked (keys: '' for none, the project id, the bucket
 * start as a string, or `project|bucket`). Groups without traces may be missing.
 */
export async function hourRollups(
  ch: ClickHouseClient,
  tables: Tables,
  set: HourSet,
  grouping: RollupGrouping,
): Promise<Map<string, Rollup>> {
  const out = new Map<string, Rollup>();
  if (set.projectIds.length === 0) return out;
  const { minStartTime: min, maxStartTime: max } = set;
  if (min !== undefined && max !== undefined && min >= max) return out;
  const owner = join(
    [sql`tenant_id = toUUID(${set.tenantId})`, sql`session_id IN (${uuidSet(set.projectIds)})`],
    ' AND ',
  );
  // Whole hours: [from, to); the hours the ends cut are read from rows, within the range.
  const from = min === undefined ? undefined : Math.ceil(min / HOUR_MICROS) * HOUR_MICROS;
  const to = max === undefined ? undefined : Math.floor(max / HOUR_MICROS) * HOUR_MICROS;
  const wholeHours = join(
    [raw('1'), ...(from !== undefined ? [sql`hour >= ${from}`] : []), ...(to !== undefined ? [sql`hour < ${to}`] : [])],
    ' AND ',
  );
  const hasWhole = from === undefined || to === undefined || from < to;
  const errored = set.hasError === undefined ? null : set.hasError ? 1 : 0;
  const add = (key: string, r: Rollup) => {
    let into = out.get(key);
    if (!into) out.set(key, (into = emptyRollup()));
    addRollup(into, r);
  };
  // Each whole hour with writes, and its count now. Each table is named once per statement: a
  // replay's RENAME queued between two locks one query takes on a table would wait on it for ever.
  const counted = sql`(SELECT session_id, hour, sum(writes) AS writes_now FROM ${ident(tables.traceHourWrites)}
                       WHERE ${owner} AND ${wholeHours} GROUP BY session_id, hour) AS counted`;

  // Each (hour, errored) slice wanted, with the slice as computed, decided fresh (computed at its
  // hour's count now) or stale (missing, or computed before the hour's last write) once, in one
  // statement: two statements, one summing the fresh slices and one listing the stale ones, could
  // each see a slice written back between them differently and count its hour twice or not at all.
  // The fresh slices are summed by group; each stale one is a group of its own. LEFT, not INNER:
  // ClickHouse's ANY INNER JOIN keeps one row of each key from the left side too since 20.x.
  const bucket = 'size' in grouping ? raw(`toString(intDiv(hour, ${grouping.size}) * ${grouping.size})`) : raw("''");
  const group =
    grouping.by === 'project'
      ? raw('toString(session_id)')
      : grouping.by === 'project-bucket'
        ? sql`concat(toString(session_id), '|', ${bucket})`
        : bucket;
  const sliceColumns = raw(
    TRACE_HOUR_STATS_COLUMNS.columns
      .filter((c) => c.name !== 'errored')
      .map((c) => c.name)
      .join(', '),
  );
  const sliceRows = hasWhole
    ? await ch.query<
        {
          fresh: number;
          group_key: string;
          stale_project: string;
          stale_hour: string;
          stale_errored: number;
          stale_writes: string;
        } & Record<string, unknown>
      >(
        sql`SELECT writes_seen = writes_now AS fresh, if(fresh, ${group}, '') AS group_key, if(fresh, '', toString(session_id)) AS stale_project,
                   if(fresh, 0, hour) AS stale_hour, if(fresh, 0, slice_errored) AS stale_errored, if(fresh, 0, writes_now) AS stale_writes, ${SLICE_AGGREGATES}
            FROM (SELECT session_id, hour, writes_now, slice_errored FROM ${counted} ARRAY JOIN [${raw(errored === null ? '0, 1' : String(errored))}] AS slice_errored) AS wanted
            ANY LEFT JOIN (SELECT ${sliceColumns}, errored AS slice_errored FROM ${ident(tables.traceHourStats)} FINAL
                           WHERE ${owner} AND ${wholeHours}) AS computed
            USING (session_id, hour, slice_errored)
            GROUP BY fresh, group_key, stale_project, stale_hour, stale_errored, stale_writes`,
      )
    : [];
  // Fresh slices count as they are; the rows of every hour with a stale slice are read (both of
  // its slices are computed again from them; a fresh one of the two is already counted).
  const staleHours = new Map<string, { project: string; hour: number; writes: number; errored: Set<number> }>();
  for (const r of sliceRows) {
    if (Number(r.fresh) === 1) {
      add(String(r.group_key), rollupOf(r));
      continue;
    }
    const key = `${r.stale_project}|${num(r.stale_hour)}`;
    let h = staleHours.get(key);
    if (!h)
      staleHours.set(
        key,
        (h = { project: r.stale_project, hour: num(r.stale_hour), writes: num(r.stale_writes), errored: new Set() }),
      );
    h.errored.add(Number(r.stale_errored));
  }
  // Rows: of the hours with a stale slice, and of the hours the range cuts.
  const fromRows: Sql[] = [];
  if (staleHours.size > 0)
    fromRows.push(
      sql`(session_id, hour) IN (${join([...staleHours.values()].map((s) => sql`(${s.project}, ${s.hour})`))})`,
    );
  for (const c of cutHours(min, max))
    fromRows.push(sql`(hour = ${c.hour} AND start_time >= ${c.from} AND start_time < ${c.to})`);
  if (fromRows.length === 0) return out;
  // Bounds of the key's hour column for the index (the conditions above pick within them).
  const anyHour = join([raw('1'), ...hoursTouched(min, max)], ' AND ');
  const rows = await ch.query(
    sql`SELECT toString(session_id) AS project, hour, toUInt8(status = 'error') AS slice_errored, ${TRACE_AGGREGATES}
        FROM ${ident(tables.tracesByHour)} FINAL
        WHERE ${owner} AND ${anyHour} AND deleted = 0 AND (${join(fromRows, ' OR ')})
        GROUP BY session_id, hour, slice_errored`,
  );
  const computed = new Map<string, Rollup>();
  for (const r of rows) {
    const project = String(r.project);
    const hour = num(r.hour);
    const e = num(r.slice_errored);
    const rollup = rollupOf(r);
    const staleHour = staleHours.get(`${project}|${hour}`);
    if (staleHour) computed.set(`${project}|${hour}|${e}`, rollup);
    // A stale hour's slice that was fresh is counted already; a cut hour's rows always count.
    if ((errored === null || e === errored) && (!staleHour || staleHour.errored.has(e)))
      add(groupKey(grouping, project, hour), rollup);
  }
  // Written back without waiting: a reader does not wait on a write, and a slice that fails to be
  // written is read from rows again next time (counted: stats_slice_write_failures_total). On a
  // cluster, by the replica in use alone (no quorum): a slice a replica lacks is computed again
  // there, and a replica down must not fail the write-back of every stats read.
  const slices: object[] = [];
  for (const s of staleHours.values())
    for (const e of [0, 1])
      slices.push(
        sliceRow(
          { tenantId: set.tenantId, projectId: s.project, hour: s.hour, errored: e },
          computed.get(`${s.project}|${s.hour}|${e}`) ?? emptyRollup(),
          s.writes,
        ),
      );
  ch.insertRowBinary(tables.traceHourStats, TRACE_HOUR_STATS_COLUMNS, slices, { quorum: false }).catch(() =>
    statsSliceWriteFailures.inc(slices.length),
  );
  return out;
}

/** The (at most two) hours a range cuts, with the part of each inside the range. */
export function cutHours(
  min: number | undefined,
  max: number | undefined,
): Array<{ hour: number; from: number; to: number }> {
  const out: Array<{ hour: number; from: number; to: number }> = [];
  const minCuts = min !== undefined && hourOf(min) !== min;
  if (minCuts) out.push({ hour: hourOf(min), from: min, to: Math.min(hourOf(min) + HOUR_MICROS, max ?? Infinity) });
  if (max !== undefined && hourOf(max) !== max && !(minCuts && hourOf(min) === hourOf(max)))
    out.push({ hour: hourOf(max), from: Math.max(hourOf(max), min ?? -Infinity), to: max });
  return out;
}

/**
 * The hour-stats reads of one request, shared: the project stats route asks for totals, run
 * counts and a series of the same set at once; with the series' bucket size declared, one read
 * per bucket answers all three (totals sum the buckets).
 */
export class SharedRollups {
  readonly #ch: ClickHouseClient;
  readonly #tables: Tables;
  readonly #reads = new Map<string, Promise<Map<string, Rollup>>>();
  #buckets: { set: string; size: number } | null = null;

  constructor(ch: ClickHouseClient, tables: Tables) {
    this.#ch = ch;
    this.#tables = tables;
  }

  /** Totals of `set` will be summed from its buckets of `size` (a whole number of hours). */
  readBuckets(set: HourSet, size: number): void {
    if (size % HOUR_MICROS === 0) this.#buckets = { set: setKey(set), size };
  }

  rollups(set: HourSet, grouping: RollupGrouping): Promise<Map<string, Rollup>> {
    const key = setKey(set);
    if (grouping.by === 'none' && this.#buckets?.set === key)
      return this.rollups(set, { by: 'bucket', size: this.#buckets.size }).then((buckets) => {
        const total = emptyRollup();
        for (const r of buckets.values()) addRollup(total, r);
        return new Map([['', total]]);
      });
    const readKey = `${key}|${JSON.stringify(grouping)}`;
    let read = this.#reads.get(readKey);
    if (!read) this.#reads.set(readKey, (read = hourRollups(this.#ch, this.#tables, set, grouping)));
    return read;
  }
}

const setKey = (set: HourSet): string =>
  JSON.stringify([
    set.tenantId,
    set.projectIds,
    set.minStartTime ?? null,
    set.maxStartTime ?? null,
    set.hasError ?? null,
  ]);
