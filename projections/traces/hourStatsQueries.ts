// Reads of the hour stats (hourStats.ts): the totals of a set of traces over a time range, from
// the slices of the whole hours it covers that are as their hour is now, and from the trace rows
// of every other hour it touches (traces_by_hour, one range of the table per hour). The slices
// of the whole hours read from rows are written back for the next reader. So the cost of a read
// grows with the hours of its range and the hours written since they were last read, not with
// the project.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { num } from '../../platform/clickhouse/rowValues.ts';
import type { ReadModelTables } from '../readModelTables.ts';
import {
  addRollup,
  emptyRollup,
  HOUR_MICROS,
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
export type RollupGrouping = { by: 'none' } | { by: 'project' } | { by: 'bucket'; size: number } | { by: 'project-bucket'; size: number };

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
export async function hourRollups(ch: ClickHouseClient, tables: Tables, set: HourSet, grouping: RollupGrouping): Promise<Map<string, Rollup>> {
  const out = new Map<string, Rollup>();
  if (set.projectIds.length === 0) return out;
  const { minStartTime: min, maxStartTime: max } = set;
  if (min !== undefined && max !== undefined && min >= max) return out;
  const owner = join([sql`tenant_id = toUUID(${set.tenantId})`, sql`session_id IN (${join(set.projectIds.map((id) => sql`toUUID(${id})`))})`], ' AND ');
  // Whole hours: [from, to); the hours the ends cut are read from rows, within the range.
  const from = min === undefined ? undefined : Math.ceil(min / HOUR_MICROS) * HOUR_MICROS;
  const to = max === undefined ? undefined : Math.floor(max / HOUR_MICROS) * HOUR_MICROS;
  const wholeHours = (column: string): Sql =>
    join([raw('1'), ...(from !== undefined ? [sql`${raw(column)} >= ${from}`] : []), ...(to !== undefined ? [sql`${raw(column)} < ${to}`] : [])], ' AND ');
  const hasWhole = from === undefined || to === undefined || from < to;

  // Each whole hour with writes, with its count now and the count its slices were computed at.
  const hours = hasWhole
    ? await ch.query<{ project: string; hour: string; writes: string; seen: string; slices: string }>(
        sql`SELECT toString(session_id) AS project, hour, hour_writes AS writes, seen, slices
            FROM (SELECT session_id, hour, sum(writes) AS hour_writes FROM ${ident(tables.traceHourWrites)}
                  WHERE ${owner} AND ${wholeHours('hour')} GROUP BY session_id, hour) AS counted
            ANY LEFT JOIN (SELECT session_id, hour, min(writes_seen) AS seen, count() AS slices FROM ${ident(tables.traceHourStats)} FINAL
                  WHERE ${owner} AND ${wholeHours('hour')} GROUP BY session_id, hour) AS computed
            USING (session_id, hour)`,
      )
    : [];
  const fresh: Sql[] = [];
  const stale: Array<{ project: string; hour: number; writes: number }> = [];
  for (const h of hours) {
    const hour = num(h.hour);
    const writes = num(h.writes);
    // Both slices (errored and not) of the hour, at the count the hour has now.
    if (num(h.slices) === 2 && num(h.seen) === writes) fresh.push(sql`(toUUID(${h.project}), ${hour})`);
    else stale.push({ project: h.project, hour, writes });
  }

  const add = (key: string, r: Rollup) => {
    let into = out.get(key);
    if (!into) out.set(key, (into = emptyRollup()));
    addRollup(into, r);
  };
  const errored = set.hasError === undefined ? null : set.hasError ? 1 : 0;
  const statements: Array<Promise<void>> = [];
  if (fresh.length > 0) {
    const bucket = 'size' in grouping ? raw(`toString(intDiv(hour, ${grouping.size}) * ${grouping.size})`) : raw("''");
    const group =
      grouping.by === 'project' ? raw('toString(session_id)') : grouping.by === 'project-bucket' ? sql`concat(toString(session_id), '|', ${bucket})` : bucket;
    statements.push(
      ch
        .query(
          sql`SELECT ${group} AS group_key, ${SLICE_AGGREGATES} FROM ${ident(tables.traceHourStats)} FINAL
              WHERE ${owner} AND ${wholeHours('hour')} AND (session_id, hour) IN (${join(fresh)})${errored === null ? raw('') : raw(` AND errored = ${errored}`)}
              GROUP BY group_key`,
        )
        .then((rows) => {
          for (const r of rows) add(String(r.group_key), rollupOf(r));
        }),
    );
  }
  // The rows of stale whole hours (all of them: their slices are written again from them) and of the cut hours.
  const fromRows: Sql[] = [];
  if (stale.length > 0) fromRows.push(sql`(session_id, hour) IN (${join(stale.map((s) => sql`(toUUID(${s.project}), ${s.hour})`))})`);
  const cut = cutHours(min, max);
  for (const c of cut) fromRows.push(sql`(hour = ${c.hour} AND start_time >= ${c.from} AND start_time < ${c.to})`);
  if (fromRows.length > 0) {
    // Bounds of the key's hour column for the index (the conditions above pick within them).
    const anyHour = join(
      [raw('1'), ...(min !== undefined ? [sql`hour >= ${Math.floor(min / HOUR_MICROS) * HOUR_MICROS}`] : []), ...(max !== undefined ? [sql`hour < ${max}`] : [])],
      ' AND ',
    );
    const staleKeys = new Set(stale.map((s) => `${s.project}|${s.hour}`));
    statements.push(
      ch
        .query(
          sql`SELECT toString(session_id) AS project, hour, toUInt8(status = 'error') AS slice_errored, ${TRACE_AGGREGATES}
              FROM ${ident(tables.tracesByHour)} FINAL
              WHERE ${owner} AND ${anyHour} AND deleted = 0 AND (${join(fromRows, ' OR ')})
              GROUP BY session_id, hour, slice_errored`,
        )
        .then((rows) => {
          const slices = new Map<string, Rollup>();
          for (const r of rows) {
            const project = String(r.project);
            const hour = num(r.hour);
            const rollup = rollupOf(r);
            if (staleKeys.has(`${project}|${hour}`)) slices.set(`${project}|${hour}|${num(r.slice_errored)}`, rollup);
            if (errored === null || num(r.slice_errored) === errored) add(groupKey(grouping, project, hour), rollup);
          }
          // Written back without waiting: a reader does not wait on a write, and a slice that
          // fails to be written is read from rows again next time.
          const rowsOut: object[] = [];
          for (const s of stale)
            for (const e of [0, 1])
              rowsOut.push(sliceRow({ tenantId: set.tenantId, projectId: s.project, hour: s.hour, errored: e }, slices.get(`${s.project}|${s.hour}|${e}`) ?? emptyRollup(), s.writes));
          ch.insertRowBinary(tables.traceHourStats, TRACE_HOUR_STATS_COLUMNS, rowsOut).catch(() => {});
        }),
    );
  }
  await Promise.all(statements);
  return out;
}

/** The (at most two) hours a range cuts, with the part of each inside the range. */
export function cutHours(min: number | undefined, max: number | undefined): Array<{ hour: number; from: number; to: number }> {
  const out: Array<{ hour: number; from: number; to: number }> = [];
  const hourOf = (t: number) => Math.floor(t / HOUR_MICROS) * HOUR_MICROS;
  const minCuts = min !== undefined && hourOf(min) !== min;
  if (minCuts) out.push({ hour: hourOf(min), from: min, to: Math.min(hourOf(min) + HOUR_MICROS, max ?? Infinity) });
  if (max !== undefined && hourOf(max) !== max && !(minCuts && hourOf(min) === hourOf(max)))
    out.push({ hour: hourOf(max), from: Math.max(hourOf(max), min ?? -Infinity), to: max });
  return out;
}
