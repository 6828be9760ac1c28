// Trace stats per hour, so a project's stats cost what the hours of their range cost, not what
// the project holds. Three tables:
//
//   traces_by_hour     every trace row again (written by the runs projector beside `traces`),
//                      ordered by (tenant, project, hour of its start, trace): a project's traces
//                      of an hour are one range of the table. A trace whose project or start
//                      hour changes leaves a tombstone (deleted = 1, the new row's version) where
//                      it was, written before the runs that move it: after a crash, the trace as
//                      its runs are in ClickHouse is where its row is, or will be, and every place
//                      it left has its tombstone. FINAL over the table shows each trace once.
//   trace_hour_writes  how many writes each (tenant, project, hour) of traces_by_hour has had
//                      (SummingMergeTree). The projector adds to it after each write it counts
//                      is in, so a count never names a write that cannot be read yet.
//   trace_hour_stats   the aggregates of one (tenant, project, hour, errored) slice, with the
//                      count of writes its hour had when they were computed (`writes_seen`,
//                      read before the traces). Filled by the readers (hourStatsQueries.ts): a
//                      slice whose writes_seen is its hour's count now is the hour as it is; any
//                      other hour is read from traces_by_hour and its slices written again.
//
// So the projector adds one insert beside `traces` and one of a few counter rows per part of a
// batch (and, when a trace moves, its tombstones with their counts), and no reads; stats read
// every hour once after it last changed. Latency, first-token, token and cost percentiles over
// slices come from log-scale histograms (relative error under 1 %).
import { ident, raw, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowBinaryColumns } from '../../platform/clickhouse/rowBinary.ts';
import { num } from '../../platform/clickhouse/rowValues.ts';
import { hourOf } from '../shared/hours.ts';
import { TRACE_COLUMNS, type TraceRow } from '../shared/traceRow.ts';

export const TRACES_BY_HOUR_TABLE = 'traces_by_hour';
export const TRACE_HOUR_WRITES_TABLE = 'trace_hour_writes';
export const TRACE_HOUR_STATS_TABLE = 'trace_hour_stats';

export function createTracesByHourTable(table: string = TRACES_BY_HOUR_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (${TRACE_COLUMNS},
  hour Int64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (tenant_id, session_id, hour, trace_id)`);
}

export function createTraceHourWritesTable(table: string = TRACE_HOUR_WRITES_TABLE): Sql {
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  session_id UUID,
  hour Int64,
  writes UInt64
) ENGINE = SummingMergeTree(writes)
ORDER BY (tenant_id, session_id, hour)`);
}

export const TRACES_BY_HOUR_COLUMNS = rowBinaryColumns(createTracesByHourTable());
export const TRACE_HOUR_WRITES_COLUMNS = rowBinaryColumns(createTraceHourWritesTable());

/** A trace row where traces_by_hour keeps it; with `deleted`, the tombstone of a place it left. */
export function hourRow(row: TraceRow, deleted: 0 | 1): TraceRow & { hour: number; deleted: number } {
  return { ...row, hour: hourOf(row.start_time), deleted };
}

/** One count per (tenant, project, hour) the rows were written to. */
export function hourWrites(rows: ReadonlyArray<{ tenant_id: string; session_id: string; hour: number }>): object[] {
  const out = new Map<string, { tenant_id: string; session_id: string; hour: number; writes: number }>();
  for (const r of rows) {
    const key = `${r.tenant_id}|${r.session_id}|${r.hour}`;
    const seen = out.get(key);
    if (seen) seen.writes++;
    else out.set(key, { tenant_id: r.tenant_id, session_id: r.session_id, hour: r.hour, writes: 1 });
  }
  return [...out.values()];
}

// ---- slices ----

/** Histogram columns: keys are log-scale bucket numbers (HISTOGRAM_ZERO for zero), counts their traces. */
export const HISTOGRAMS = ['latency', 'first_token', 'tokens', 'cost'] as const;
export type Histogram = (typeof HISTOGRAMS)[number];

/** The plain columns of a slice: sums, but for the first and last times (min and max). */
export const SUMMED_COLUMNS = [
  'trace_count',
  'trace_error_count',
  'run_count',
  'run_error_count',
  'streaming_trace_count',
  'finished_trace_count',
  'finished_streaming_trace_count',
  'traces_with_errors',
  'latency_sum',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_cost',
  'completion_cost',
  'total_cost',
  'first_start_time',
  'last_start_time',
  'last_end_time',
  'last_run_start_time',
] as const;
export type SummedColumn = (typeof SUMMED_COLUMNS)[number];
export const MIN_COLUMNS: ReadonlySet<SummedColumn> = new Set(['first_start_time']);
export const MAX_COLUMNS: ReadonlySet<SummedColumn> = new Set([
  'last_start_time',
  'last_end_time',
  'last_run_start_time',
]);
const FLOAT_COLUMNS: ReadonlySet<SummedColumn> = new Set([
  'latency_sum',
  'prompt_cost',
  'completion_cost',
  'total_cost',
]);
/** Run counts by key: of all runs (run_types, statuses) and of root runs (root_…). */
export const COUNTED = ['run_types', 'statuses', 'root_run_types', 'root_statuses'] as const;
export type Counted = (typeof COUNTED)[number];
const COUNTS_COLUMN: Record<Counted, string> = {
  run_types: 'run_type_counts',
  statuses: 'status_counts',
  root_run_types: 'root_run_type_counts',
  root_statuses: 'root_status_counts',
};
const countsColumn = (c: Counted): string => COUNTS_COLUMN[c];

export function createTraceHourStatsTable(table: string = TRACE_HOUR_STATS_TABLE): Sql {
  const type = (c: SummedColumn) =>
    FLOAT_COLUMNS.has(c) ? 'Float64' : MIN_COLUMNS.has(c) || MAX_COLUMNS.has(c) ? 'Int64' : 'UInt64';
  return raw(`CREATE TABLE IF NOT EXISTS ${ident(table).text} (
  tenant_id UUID,
  session_id UUID,
  hour Int64,
  errored UInt8,
${SUMMED_COLUMNS.map((c) => `  ${c} ${type(c)},`).join('\n')}
${HISTOGRAMS.map((h) => `  ${h}_keys Array(Int32),\n  ${h}_counts Array(UInt64),`).join('\n')}
${COUNTED.map((c) => `  ${c} Array(String),\n  ${countsColumn(c)} Array(UInt64),`).join('\n')}
  writes_seen UInt64
) ENGINE = ReplacingMergeTree(writes_seen)
ORDER BY (tenant_id, session_id, hour, errored)`);
}

export const TRACE_HOUR_STATS_COLUMNS = rowBinaryColumns(createTraceHourStatsTable());

// ---- histograms ----

/** Ratio between neighbouring histogram buckets: a bucket's midpoint is within 1 % of any value in it. */
const GAMMA = 1.02;
const HISTOGRAM_ZERO = -1_000_000;

/** The histogram bucket of a value as SQL (values at or below zero share one bucket). Constant SQL. */
const bucketOf = (value: string) =>
  `toInt32(if(ifNull(${value}, 0) > 0, ceil(log(ifNull(${value}, 0)) / ${Math.log(GAMMA)}), ${HISTOGRAM_ZERO}))`;

/** A value standing for a bucket: within (GAMMA - 1) / (GAMMA + 1) of every value in it. */
const bucketValue = (key: number): number => (key === HISTOGRAM_ZERO ? 0 : (2 * GAMMA ** key) / (GAMMA + 1));

/** Quantiles of a histogram, null when empty. */
export function histogramQuantiles(
  histogram: ReadonlyMap<number, number>,
  levels: readonly number[],
): Array<number | null> {
  const order = [...histogram].sort((a, b) => a[0] - b[0]);
  const total = order.reduce((s, [, c]) => s + c, 0);
  if (total === 0) return levels.map(() => null);
  return levels.map((level) => {
    const rank = level * (total - 1); // the 0-based position ClickHouse's quantiles interpolate at
    let seen = 0;
    for (const [key, count] of order) {
      seen += count;
      if (seen > rank) return bucketValue(key);
    }
    return bucketValue(order[order.length - 1]![0]);
  });
}

// What each histogram counts (traces where the value exists), over a trace row.
const HISTOGRAM_VALUES: Record<Histogram, { value: string; when: string }> = {
  latency: { value: '(end_time - start_time) / 1000000', when: 'isNotNull(end_time)' },
  first_token: { value: '(first_token_time - start_time) / 1000000', when: 'isNotNull(first_token_time)' },
  tokens: { value: 'total_tokens', when: '1' },
  cost: { value: 'total_cost', when: '1' },
};

/**
 * Keys and counts of parallel arrays over a group's rows as one sorted array of `key\0count`
 * (summed by key in JS): in an order the rows' read order does not change.
 */
const countedPairs = (keys: string, counts: string): string =>
  `arraySort(groupArrayArray(arrayMap((k, n) -> concat(k, '\\0', toString(n)), ${keys}, ${counts})))`;

/**
 * The aggregates of a group of trace rows (traces_by_hour FINAL, deleted = 0), as the columns of
 * a slice. Constant SQL; aliases never repeat a column name (ClickHouse 18.16 would read the
 * alias inside the sums). The run type and status arrays come flattened (groupArrayArray) and
 * are summed by key in JS: ClickHouse 18.16's sumMap takes numeric keys only.
 */
export const TRACE_AGGREGATES = raw(`
  count() AS agg_trace_count,
  countIf(status = 'error') AS agg_trace_error_count,
  sum(run_count) AS agg_run_count,
  sum(error_count) AS agg_run_error_count,
  countIf(isNotNull(first_token_time)) AS agg_streaming_trace_count,
  countIf(isNotNull(end_time)) AS agg_finished_trace_count,
  countIf(isNotNull(end_time) AND isNotNull(first_token_time)) AS agg_finished_streaming_trace_count,
  countIf(error_count > 0) AS agg_traces_with_errors,
  sum(ifNull((end_time - start_time) / 1000000, 0)) AS agg_latency_sum,
  sum(prompt_tokens) AS agg_prompt_tokens,
  sum(completion_tokens) AS agg_completion_tokens,
  sum(total_tokens) AS agg_total_tokens,
  sum(prompt_cost) AS agg_prompt_cost,
  sum(completion_cost) AS agg_completion_cost,
  sum(total_cost) AS agg_total_cost,
  min(start_time) AS agg_first_start_time,
  max(start_time) AS agg_last_start_time,
  max(ifNull(end_time, 0)) AS agg_last_end_time,
  max(last_run_start_time) AS agg_last_run_start_time,
${HISTOGRAMS.map((h) => {
  const { value, when } = HISTOGRAM_VALUES[h];
  return `  sumMap(if(${when}, [${bucketOf(value)}], emptyArrayInt32()), if(${when}, [toUInt64(1)], emptyArrayUInt64())) AS ${h}_histogram,`;
}).join('\n')}
  ${countedPairs('run_types', 'run_type_counts')} AS all_run_types,
  ${countedPairs('statuses', 'status_counts')} AS all_statuses,
  arraySort(groupArray(concat(run_type, '\\0', '1'))) AS all_root_run_types,
  arraySort(groupArray(concat(status, '\\0', '1'))) AS all_root_statuses`);

/** The same aliases as TRACE_AGGREGATES, over slices. Constant SQL. */
export const SLICE_AGGREGATES = raw(
  [
    ...SUMMED_COLUMNS.map((c) =>
      MIN_COLUMNS.has(c)
        ? `minIf(${c}, trace_count > 0) AS agg_${c}`
        : MAX_COLUMNS.has(c)
          ? `max(${c}) AS agg_${c}`
          : `sum(${c}) AS agg_${c}`,
    ),
    ...HISTOGRAMS.map((h) => `sumMap(${h}_keys, ${h}_counts) AS ${h}_histogram`),
    ...COUNTED.map((c) => `${countedPairs(c, countsColumn(c))} AS all_${c}`),
  ].join(',\n  '),
);

// ---- rollups: aggregates summed in JS ----

/** The summed aggregates of a group of traces. */
export interface Rollup {
  totals: Record<SummedColumn, number>;
  histograms: Record<Histogram, Map<number, number>>;
  counted: Record<Counted, Map<string, number>>;
}

export function emptyRollup(): Rollup {
  return {
    totals: Object.fromEntries(SUMMED_COLUMNS.map((c) => [c, 0])) as Record<SummedColumn, number>,
    histograms: Object.fromEntries(HISTOGRAMS.map((h) => [h, new Map()])) as unknown as Record<
      Histogram,
      Map<number, number>
    >,
    counted: Object.fromEntries(COUNTED.map((c) => [c, new Map()])) as unknown as Record<Counted, Map<string, number>>,
  };
}

/** Adds a rollup's figures into another (min and max columns only where traces are). */
export function addRollup(into: Rollup, from: Rollup): void {
  const had = into.totals.trace_count > 0;
  const has = from.totals.trace_count > 0;
  for (const c of SUMMED_COLUMNS) {
    const [a, b] = [into.totals[c], from.totals[c]];
    if (MIN_COLUMNS.has(c)) into.totals[c] = had && has ? Math.min(a, b) : has ? b : a;
    else if (MAX_COLUMNS.has(c)) into.totals[c] = had && has ? Math.max(a, b) : has ? b : a;
    else into.totals[c] = a + b;
  }
  for (const h of HISTOGRAMS) addCounts(into.histograms[h], from.histograms[h]);
  for (const c of COUNTED) addCounts(into.counted[c], from.counted[c]);
}

function addCounts<K>(into: Map<K, number>, from: Map<K, number>): void {
  for (const [k, n] of from) into.set(k, (into.get(k) ?? 0) + n);
}

function countsOf<K>(keys: readonly K[], counts: readonly unknown[]): Map<K, number> {
  const out = new Map<K, number>();
  keys.forEach((k, i) => out.set(k, (out.get(k) ?? 0) + Number(counts[i])));
  return out;
}

/** Counts by key from `key\0count` pairs (countedPairs). */
function pairCounts(pairs: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pairs) {
    const at = p.lastIndexOf('\0');
    const key = p.slice(0, at);
    out.set(key, (out.get(key) ?? 0) + Number(p.slice(at + 1)));
  }
  return out;
}

/** A rollup from a row of TRACE_AGGREGATES or SLICE_AGGREGATES (same aliases). */
export function rollupOf(r: Record<string, unknown>): Rollup {
  const out = emptyRollup();
  for (const c of SUMMED_COLUMNS) out.totals[c] = num(r[`agg_${c}`]);
  for (const h of HISTOGRAMS) {
    const [keys, counts] = r[`${h}_histogram`] as [unknown[], unknown[]];
    out.histograms[h] = countsOf(keys.map(Number), counts);
  }
  for (const c of COUNTED) out.counted[c] = pairCounts(r[`all_${c}`] as string[]);
  return out;
}

/** A trace_hour_stats row of a rollup (keys in order: a slice does not depend on the order rows were read in). */
export function sliceRow(
  key: { tenantId: string; projectId: string; hour: number; errored: number },
  r: Rollup,
  writesSeen: number,
): object {
  const row: Record<string, unknown> = {
    tenant_id: key.tenantId,
    session_id: key.projectId,
    hour: key.hour,
    errored: key.errored,
    writes_seen: writesSeen,
  };
  for (const c of SUMMED_COLUMNS) row[c] = r.totals[c];
  for (const h of HISTOGRAMS) {
    const sorted = [...r.histograms[h]].sort((a, b) => a[0] - b[0]);
    row[`${h}_keys`] = sorted.map(([k]) => k);
    row[`${h}_counts`] = sorted.map(([, n]) => n);
  }
  for (const c of COUNTED) {
    const sorted = [...r.counted[c]].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    row[c] = sorted.map(([k]) => k);
    row[countsColumn(c)] = sorted.map(([, n]) => n);
  }
  return row;
}

/** p50 and p99 of a rollup's histogram. */
export const rollupQuantiles = (r: Rollup, h: Histogram): Array<number | null> =>
  histogramQuantiles(r.histograms[h], [0.5, 0.99]);
