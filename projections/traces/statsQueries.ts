// Analytics over trace rows (one row per trace, already summing its runs): project totals,
// counts by run type and status, a time-bucketed series, a thread's stats and the aggregate
// stats of a project's threads. They never read `runs`, so their cost grows with traces, not
// runs; sets of projects over a time range are summed from the hour stats (hourStats.ts), so
// their cost grows with the hours of the range, not with the project.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { num, numOrNull } from '../../platform/clickhouse/rowValues.ts';
import { HOUR_MICROS } from '../shared/hours.ts';
import { copyUsable } from '../shared/copies.ts';
import { traceSetSource, type TraceSet } from '../shared/traceSet.ts';
import { emptyRollup, rollupQuantiles, type Rollup } from './hourStats.ts';
import { hourRollups, type HourSet, type RollupGrouping, type SharedRollups } from './hourStatsQueries.ts';

type Tables = Pick<
  ReadModelTables,
  'traces' | 'tracesByHour' | 'traceHourWrites' | 'traceHourStats' | 'tracesByThread'
>;

/** What the aggregates below give for a set of traces. Latencies in seconds, times in microseconds. */
export interface TraceSetStats {
  trace_count: number;
  run_count: number;
  /** Runs with status error, over all runs of the traces. */
  run_error_count: number;
  /** Traces whose root run errored. */
  trace_error_count: number;
  /** Traces with a first-token time (streamed). */
  streaming_trace_count: number;
  latency_p50: number | null;
  latency_p99: number | null;
  latency_avg: number | null;
  first_token_p50: number | null;
  first_token_p99: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  tokens_p50: number | null;
  tokens_p99: number | null;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
  cost_p50: number | null;
  cost_p99: number | null;
  first_start_time: number | null;
  last_start_time: number | null;
  last_end_time: number | null;
  last_run_start_time: number | null;
}

/** The stats of an empty set of traces. */
export const NO_TRACES: TraceSetStats = {
  trace_count: 0,
  run_count: 0,
  run_error_count: 0,
  trace_error_count: 0,
  streaming_trace_count: 0,
  latency_p50: null,
  latency_p99: null,
  latency_avg: null,
  first_token_p50: null,
  first_token_p99: null,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  tokens_p50: null,
  tokens_p99: null,
  prompt_cost: 0,
  completion_cost: 0,
  total_cost: 0,
  cost_p50: null,
  cost_p99: null,
  first_start_time: null,
  last_start_time: null,
  last_end_time: null,
  last_run_start_time: null,
};

// Latency of a trace is its root run's; end_time is NULL while it runs, and aggregates skip NULLs.
// Aliases never repeat a column name (ClickHouse would read the alias inside the quantiles).
// Constant SQL, no values. Percentiles are ClickHouse's `quantiles` (exact up to 8192 values,
// sampled beyond, linearly interpolated).
const AGGREGATES = raw(`
  count() AS trace_count,
  sum(run_count) AS sum_run_count,
  sum(error_count) AS sum_error_count,
  countIf(status = 'error') AS trace_error_count,
  countIf(isNotNull(first_token_time)) AS streaming_trace_count,
  quantiles(0.5, 0.99)((end_time - start_time) / 1000000) AS latency,
  avg((end_time - start_time) / 1000000) AS latency_avg,
  quantiles(0.5, 0.99)((first_token_time - start_time) / 1000000) AS first_token,
  sum(prompt_tokens) AS sum_prompt_tokens,
  sum(completion_tokens) AS sum_completion_tokens,
  sum(total_tokens) AS sum_total_tokens,
  quantiles(0.5, 0.99)(total_tokens) AS tokens_q,
  sum(prompt_cost) AS sum_prompt_cost,
  sum(completion_cost) AS sum_completion_cost,
  sum(total_cost) AS sum_total_cost,
  quantiles(0.5, 0.99)(total_cost) AS cost_q,
  if(count() = 0, NULL, min(start_time)) AS first_start_time,
  if(count() = 0, NULL, max(start_time)) AS last_start_time,
  max(end_time) AS last_end_time,
  if(count() = 0, NULL, max(last_run_start_time)) AS latest_run_start_time`);

const quantile = (v: unknown, i: number): number | null => numOrNull((v as unknown[] | undefined)?.[i]);

function statsFromClickHouse(r: Record<string, unknown>): TraceSetStats {
  const none = num(r.trace_count) === 0; // quantiles of nothing come back as 0 for non-nullable columns
  return {
    trace_count: num(r.trace_count),
    run_count: num(r.sum_run_count),
    run_error_count: num(r.sum_error_count),
    trace_error_count: num(r.trace_error_count),
    streaming_trace_count: num(r.streaming_trace_count),
    latency_p50: quantile(r.latency, 0),
    latency_p99: quantile(r.latency, 1),
    latency_avg: numOrNull(r.latency_avg),
    first_token_p50: quantile(r.first_token, 0),
    first_token_p99: quantile(r.first_token, 1),
    prompt_tokens: num(r.sum_prompt_tokens),
    completion_tokens: num(r.sum_completion_tokens),
    total_tokens: num(r.sum_total_tokens),
    tokens_p50: none ? null : quantile(r.tokens_q, 0),
    tokens_p99: none ? null : quantile(r.tokens_q, 1),
    prompt_cost: num(r.sum_prompt_cost),
    completion_cost: num(r.sum_completion_cost),
    total_cost: num(r.sum_total_cost),
    cost_p50: none ? null : quantile(r.cost_q, 0),
    cost_p99: none ? null : quantile(r.cost_q, 1),
    first_start_time: numOrNull(r.first_start_time),
    last_start_time: numOrNull(r.last_start_time),
    last_end_time: numOrNull(r.last_end_time),
    last_run_start_time: numOrNull(r.latest_run_start_time),
  };
}

/**
 * Percentiles are exact (ClickHouse's `quantiles`, exact up to 8192 values) for sets of at most
 * this many traces, read from their rows; larger sets take them from the hour stats' histograms
 * (within 1 % of a value of the set), so their cost does not grow with the set.
 */
export const EXACT_QUANTILE_TRACES = 8192;

/** The sets the hour stats answer for: a time range of projects, errored or not; not one trace or one thread. */
async function hourSetOf(ch: ClickHouseClient, set: TraceSet): Promise<HourSet | null> {
  if (set.traceId !== undefined || set.threadId !== undefined || set.inThreads) return null;
  return (await copyUsable(ch, 'byHour')) ? set : null;
}

/** Rollups of an hour set, through the request's shared reads when there are some. */
const rollupsOf = (
  ch: ClickHouseClient,
  tables: Tables,
  set: HourSet,
  grouping: RollupGrouping,
  shared?: SharedRollups,
) => (shared ? shared.rollups(set, grouping) : hourRollups(ch, tables, set, grouping));

/** Stats from a rollup of the hour stats, percentiles from its histograms. */
function statsFromRollup(r: Rollup): TraceSetStats {
  const t = r.totals;
  if (t.trace_count === 0) return NO_TRACES;
  const [latencyP50, latencyP99] = rollupQuantiles(r, 'latency');
  const [firstTokenP50, firstTokenP99] = rollupQuantiles(r, 'first_token');
  const [tokensP50, tokensP99] = rollupQuantiles(r, 'tokens');
  const [costP50, costP99] = rollupQuantiles(r, 'cost');
  return {
    trace_count: t.trace_count,
    run_count: t.run_count,
    run_error_count: t.run_error_count,
    trace_error_count: t.trace_error_count,
    streaming_trace_count: t.streaming_trace_count,
    latency_p50: latencyP50 ?? null,
    latency_p99: latencyP99 ?? null,
    latency_avg: t.finished_trace_count === 0 ? null : t.latency_sum / t.finished_trace_count,
    first_token_p50: firstTokenP50 ?? null,
    first_token_p99: firstTokenP99 ?? null,
    prompt_tokens: t.prompt_tokens,
    completion_tokens: t.completion_tokens,
    total_tokens: t.total_tokens,
    tokens_p50: tokensP50 ?? null,
    tokens_p99: tokensP99 ?? null,
    prompt_cost: t.prompt_cost,
    completion_cost: t.completion_cost,
    total_cost: t.total_cost,
    cost_p50: costP50 ?? null,
    cost_p99: costP99 ?? null,
    first_start_time: t.first_start_time,
    last_start_time: t.last_start_time,
    last_end_time: t.last_end_time === 0 ? null : t.last_end_time,
    last_run_start_time: t.last_run_start_time,
  };
}

/** Totals per project over all of each project's traces; projects without traces get NO_TRACES. */
export async function statsPerProjectQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  projectIds: readonly string[],
): Promise<Map<string, TraceSetStats>> {
  const out = new Map<string, TraceSetStats>();
  if (projectIds.length === 0) return out;
  let exact: string[] = [...projectIds];
  const hourSet = await hourSetOf(ch, { tenantId, projectIds });
  if (hourSet) {
    const rollups = await hourRollups(ch, tables, hourSet, { by: 'project' });
    exact = [];
    for (const id of projectIds) {
      const r = rollups.get(id);
      if (r && r.totals.trace_count > EXACT_QUANTILE_TRACES) out.set(id, statsFromRollup(r));
      else if (r && r.totals.trace_count > 0) exact.push(id);
    }
  }
  if (exact.length > 0) {
    const { table, where } = await traceSetSource(ch, tables, { tenantId, projectIds: exact });
    const rows = await ch.query<Record<string, unknown>>(
      sql`SELECT toString(session_id) AS project_id, ${AGGREGATES} FROM ${table} FINAL WHERE ${where} GROUP BY session_id`,
    );
    for (const r of rows) out.set(String(r.project_id), statsFromClickHouse(r));
  }
  for (const id of projectIds) if (!out.has(id)) out.set(id, NO_TRACES);
  return out;
}

/** Totals over a set of traces (one row even when the set is empty). */
export async function traceSetStatsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
  shared?: SharedRollups,
): Promise<TraceSetStats> {
  const hourSet = await hourSetOf(ch, set);
  if (hourSet) {
    const rollup = (await rollupsOf(ch, tables, hourSet, { by: 'none' }, shared)).get('') ?? emptyRollup();
    if (rollup.totals.trace_count === 0) return NO_TRACES;
    if (rollup.totals.trace_count > EXACT_QUANTILE_TRACES) return statsFromRollup(rollup);
  }
  const { table, where } = await traceSetSource(ch, tables, set);
  const [row] = await ch.query(sql`SELECT ${AGGREGATES} FROM ${table} FINAL WHERE ${where}`);
  return statsFromClickHouse(row ?? {});
}

/** The totals over the traces of threads, with what only thread aggregates ask for. */
export interface ThreadSetStats extends TraceSetStats {
  thread_count: number;
  /** Traces with at least one errored run. */
  traces_with_errors: number;
  /** Finished traces, and those of them that streamed (have a first-token time). */
  finished_trace_count: number;
  finished_streaming_trace_count: number;
}

/** Totals over the traces of a set that belong to threads (`inThreads` is implied), and how many threads they make. */
export async function threadSetStatsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
): Promise<ThreadSetStats> {
  const { table, where } = await traceSetSource(ch, tables, { ...set, inThreads: true });
  const [row = {}] = await ch.query(
    sql`SELECT ${AGGREGATES}, uniqExact(thread_id) AS thread_count, countIf(error_count > 0) AS traces_with_errors,
          countIf(isNotNull(end_time)) AS finished_trace_count,
          countIf(isNotNull(end_time) AND isNotNull(first_token_time)) AS finished_streaming_trace_count
        FROM ${table} FINAL WHERE ${where}`,
  );
  return {
    ...statsFromClickHouse(row),
    thread_count: num(row.thread_count),
    traces_with_errors: num(row.traces_with_errors),
    finished_trace_count: num(row.finished_trace_count),
    finished_streaming_trace_count: num(row.finished_streaming_trace_count),
  };
}

export interface StatsBucket extends TraceSetStats {
  /** Start of the bucket, microseconds (a multiple of the bucket size since the epoch, UTC). */
  bucket_start: number;
}

/** The same totals per time bucket of root start time; only buckets that hold traces. */
export async function traceSetSeriesQuery(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
  bucketMicros: number,
  shared?: SharedRollups,
): Promise<StatsBucket[]> {
  const hourSet = bucketMicros % HOUR_MICROS === 0 ? await hourSetOf(ch, set) : null;
  if (hourSet) {
    const rollups = await rollupsOf(ch, tables, hourSet, { by: 'bucket', size: bucketMicros }, shared);
    const traces = [...rollups.values()].reduce((n, r) => n + r.totals.trace_count, 0);
    if (traces > EXACT_QUANTILE_TRACES)
      return [...rollups]
        .filter(([, r]) => r.totals.trace_count > 0)
        .map(([start, r]) => ({ bucket_start: Number(start), ...statsFromRollup(r) }))
        .sort((a, b) => a.bucket_start - b.bucket_start);
    if (traces === 0) return [];
  }
  const { table, where } = await traceSetSource(ch, tables, set);
  const rows = await ch.query(
    sql`SELECT intDiv(start_time, ${bucketMicros}) * ${bucketMicros} AS bucket_start, ${AGGREGATES}
        FROM ${table} FINAL
        WHERE ${where}
        GROUP BY bucket_start
        ORDER BY bucket_start`,
  );
  return rows.map((r) => ({ bucket_start: num(r.bucket_start), ...statsFromClickHouse(r) }));
}

export interface RunBreakdown {
  /** Runs per run_type. */
  run_types: Record<string, number>;
  /** Runs per status (success, error, pending). */
  statuses: Record<string, number>;
}

/**
 * Run counts by run type and by status: of all runs of the traces (summed from the traces'
 * parallel count arrays), or of their root runs only (the trace row's own run_type and status).
 */
export async function runBreakdownQuery(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
  of: 'all' | 'roots',
  shared?: SharedRollups,
): Promise<RunBreakdown> {
  const hourSet = await hourSetOf(ch, set);
  if (hourSet) {
    const r = (await rollupsOf(ch, tables, hourSet, { by: 'none' }, shared)).get('') ?? emptyRollup();
    const record = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, n]) => n > 0));
    return of === 'all'
      ? { run_types: record(r.counted.run_types), statuses: record(r.counted.statuses) }
      : { run_types: record(r.counted.root_run_types), statuses: record(r.counted.root_statuses) };
  }
  const { table, where } = await traceSetSource(ch, tables, set);
  const counted = (kind: string, keys: string, counts: string): Sql =>
    of === 'all'
      ? sql`SELECT ${kind} AS kind, key, sum(n) AS runs
            FROM (SELECT ${raw(keys)}, ${raw(counts)} FROM ${table} FINAL WHERE ${where})
            ARRAY JOIN ${raw(keys)} AS key, ${raw(counts)} AS n
            GROUP BY key`
      : sql`SELECT ${kind} AS kind, ${raw(kind)} AS key, count() AS runs FROM ${table} FINAL WHERE ${where} GROUP BY key`;
  const rows = await ch.query<{ kind: string; key: string; runs: string }>(
    sql`${counted('run_type', 'run_types', 'run_type_counts')} UNION ALL ${counted('status', 'statuses', 'status_counts')}`,
  );
  const out: RunBreakdown = { run_types: {}, statuses: {} };
  for (const r of rows) (r.kind === 'run_type' ? out.run_types : out.statuses)[r.key] = Number(r.runs);
  return out;
}

/** One project's traces in one time bucket (only buckets that hold traces). */
export interface ProjectActivityBucket {
  project_id: string;
  /** Start of the bucket, microseconds (a multiple of the bucket size since the epoch, UTC). */
  bucket_start: number;
  trace_count: number;
  /** Traces whose root run errored. */
  trace_error_count: number;
}

/**
 * Trace and errored-trace counts per project and time bucket of root start time, for the
 * activity charts of a list of projects in one statement (the projects page: no query per row).
 */
export async function activityPerProjectQuery(
  ch: ClickHouseClient,
  tables: Tables,
  set: TraceSet,
  bucketMicros: number,
): Promise<ProjectActivityBucket[]> {
  const hourSet = bucketMicros % HOUR_MICROS === 0 ? await hourSetOf(ch, set) : null;
  if (hourSet) {
    const rollups = await hourRollups(ch, tables, hourSet, { by: 'project-bucket', size: bucketMicros });
    return [...rollups]
      .filter(([, r]) => r.totals.trace_count > 0)
      .map(([key, r]) => {
        const [project_id, bucket] = key.split('|') as [string, string];
        return {
          project_id,
          bucket_start: Number(bucket),
          trace_count: r.totals.trace_count,
          trace_error_count: r.totals.trace_error_count,
        };
      })
      .sort((a, b) =>
        a.project_id < b.project_id ? -1 : a.project_id > b.project_id ? 1 : a.bucket_start - b.bucket_start,
      );
  }
  const { table, where } = await traceSetSource(ch, tables, set);
  const rows = await ch.query(
    sql`SELECT toString(session_id) AS project_id, intDiv(start_time, ${bucketMicros}) * ${bucketMicros} AS bucket_start,
          count() AS trace_count, countIf(status = 'error') AS trace_error_count
        FROM ${table} FINAL
        WHERE ${where}
        GROUP BY session_id, bucket_start
        ORDER BY project_id, bucket_start`,
  );
  return rows.map((r) => ({
    project_id: String(r.project_id),
    bucket_start: num(r.bucket_start),
    trace_count: num(r.trace_count),
    trace_error_count: num(r.trace_error_count),
  }));
}
