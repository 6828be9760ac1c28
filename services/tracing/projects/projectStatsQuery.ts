// Project statistics (`include_stats`) for a page of projects, in one grouped query over the
// `traces` read model (one row per trace, already summed over its runs; read with FINAL).
// Counts, latencies and the error rate are over traces (root runs), as LangSmith reports them
// (an experiment's run_count is compared with its number of examples); tokens and costs are
// the totals of every run, which a trace row carries.
import type { ClickHouseClient } from '../../common/clickhouse/client.ts';
import { ident, join, sql } from '../../common/clickhouse/sql.ts';

export interface ProjectStats {
  /** Traces (root runs). */
  run_count: number;
  /** Seconds, over traces that have ended; null when none has. */
  latency_p50: number | null;
  latency_p99: number | null;
  /** Seconds from a trace's start to its first streamed token; null when no trace streamed. */
  first_token_p50: number | null;
  first_token_p99: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
  /** Share of traces whose root run errored; null for a project without traces. */
  error_rate: number | null;
  /** Microseconds since the epoch. */
  last_run_start_time: number | null;
}

export const EMPTY_STATS: ProjectStats = {
  run_count: 0,
  latency_p50: null,
  latency_p99: null,
  first_token_p50: null,
  first_token_p99: null,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  prompt_cost: 0,
  completion_cost: 0,
  total_cost: 0,
  error_rate: null,
  last_run_start_time: null,
};

interface StatsRow {
  session_id: string;
  traces: string;
  latency: Array<number | null>;
  first_token: Array<number | null>;
  prompt_tokens: string;
  completion_tokens: string;
  total_tokens: string;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
  errored: string;
  last_run_start_time: string;
}

/** Stats of each of `projectIds` (all of one workspace); projects without traces get EMPTY_STATS. */
export async function projectStatsQuery(ch: ClickHouseClient, tracesTable: string, tenantId: string, projectIds: readonly string[]): Promise<Map<string, ProjectStats>> {
  const out = new Map<string, ProjectStats>();
  if (projectIds.length === 0) return out;
  const rows = await ch.query<StatsRow>(sql`
    SELECT
      session_id,
      count() AS traces,
      quantiles(0.5, 0.99)((end_time - start_time) / 1000000) AS latency,
      quantiles(0.5, 0.99)((first_token_time - start_time) / 1000000) AS first_token,
      sum(prompt_tokens) AS prompt_tokens,
      sum(completion_tokens) AS completion_tokens,
      sum(total_tokens) AS total_tokens,
      sum(prompt_cost) AS prompt_cost,
      sum(completion_cost) AS completion_cost,
      sum(total_cost) AS total_cost,
      countIf(status = 'error') AS errored,
      max(last_run_start_time) AS last_run_start_time
    FROM ${ident(tracesTable)} FINAL
    WHERE tenant_id = toUUID(${tenantId})
      AND session_id IN (${join(projectIds.map((id) => sql`toUUID(${id})`))})
    GROUP BY session_id`);
  for (const r of rows) {
    const traces = Number(r.traces);
    out.set(r.session_id, {
      run_count: traces,
      latency_p50: r.latency[0] ?? null,
      latency_p99: r.latency[1] ?? null,
      first_token_p50: r.first_token[0] ?? null,
      first_token_p99: r.first_token[1] ?? null,
      prompt_tokens: Number(r.prompt_tokens),
      completion_tokens: Number(r.completion_tokens),
      total_tokens: Number(r.total_tokens),
      prompt_cost: r.prompt_cost,
      completion_cost: r.completion_cost,
      total_cost: r.total_cost,
      error_rate: traces === 0 ? null : Number(r.errored) / traces,
      last_run_start_time: Number(r.last_run_start_time),
    });
  }
  for (const id of projectIds) if (!out.has(id)) out.set(id, EMPTY_STATS);
  return out;
}
