// Project statistics (`include_stats`) for a page of projects: the per-project totals over the
// `traces` read model (projections/traces/statsQueries.ts, one grouped query), seen as
// `POST /runs/stats` with is_root=true sees them, and the feedback_stats of the projects' runs
// and of the feedback on each project itself (projections/feedback/feedbackQueries.ts).
// Counts, latencies and the error rate are over traces (root runs), as LangSmith reports them
// (an experiment's run_count is compared with its number of examples); tokens and costs are
// the totals of every run, which a trace row carries.
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { statsPerProjectQuery } from '../../../projections/traces/statsQueries.ts';
import {
  projectFeedbackStatsQuery,
  sessionFeedbackStatsQuery,
  type FeedbackStat,
} from '../../../projections/feedback/feedbackQueries.ts';
import type { Usage } from '../../../projections/shared/usage.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';

/** Usage (tokens, cost): totals over every run of the project. */
export interface ProjectStats extends Usage {
  /** Traces (root runs). */
  run_count: number;
  /** Seconds, over traces that have ended; null when none has. */
  latency_p50: number | null;
  latency_p99: number | null;
  /** Seconds from a trace's start to its first streamed token; null when no trace streamed. */
  first_token_p50: number | null;
  first_token_p99: number | null;
  /** Share of traces whose root run errored; null for a project without traces. */
  error_rate: number | null;
  /** Microseconds since the epoch. */
  last_run_start_time: number | null;
  /** Per feedback key over the project's runs; null when none has feedback. */
  feedback_stats: Record<string, FeedbackStat> | null;
  /** Per feedback key over the feedback on the project itself (summary evaluators'); null when it has none. */
  session_feedback_stats: Record<string, FeedbackStat> | null;
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
  feedback_stats: null,
  session_feedback_stats: null,
};

/** Stats of each of `projectIds` (all of one workspace); projects without traces get EMPTY_STATS. */
export async function projectStatsQuery(
  ch: ClickHouseClient,
  tables: Pick<
    ReadModelTables,
    'traces' | 'feedback' | 'runLocations' | 'tracesByHour' | 'traceHourWrites' | 'traceHourStats' | 'tracesByThread'
  >,
  tenantId: string,
  projectIds: readonly string[],
): Promise<Map<string, ProjectStats>> {
  const out = new Map<string, ProjectStats>();
  const [traces, feedback, sessionFeedback] = await Promise.all([
    statsPerProjectQuery(ch, tables, tenantId, projectIds),
    projectFeedbackStatsQuery(ch, tables, tenantId, projectIds),
    sessionFeedbackStatsQuery(ch, tables.feedback, tenantId, projectIds),
  ]);
  for (const [id, t] of traces) {
    const feedback_stats = feedback.get(id) ?? null;
    const session_feedback_stats = sessionFeedback.get(id) ?? null;
    out.set(
      id,
      t.trace_count === 0
        ? { ...EMPTY_STATS, feedback_stats, session_feedback_stats }
        : {
            run_count: t.trace_count,
            latency_p50: t.latency_p50,
            latency_p99: t.latency_p99,
            first_token_p50: t.first_token_p50,
            first_token_p99: t.first_token_p99,
            prompt_tokens: t.prompt_tokens,
            completion_tokens: t.completion_tokens,
            total_tokens: t.total_tokens,
            prompt_cost: t.prompt_cost,
            completion_cost: t.completion_cost,
            total_cost: t.total_cost,
            error_rate: t.trace_error_count / t.trace_count,
            last_run_start_time: t.last_run_start_time,
            feedback_stats,
            session_feedback_stats,
          },
    );
  }
  return out;
}
