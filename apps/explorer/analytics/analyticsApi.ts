// The analytics view's one call: GET /sessions/{id}/stats over the time range, with the
// time-bucketed series (services/tracing/routes/projectStats.ts), the bucket picked by the API.
import { apiCall, type Credentials } from '../core/api.ts';

/** One bucket of the series (figures over the traces whose root started in it). */
export interface StatsBucket {
  start_time: string;
  trace_count: number;
  trace_error_count: number;
  run_count: number;
  error_count: number;
  latency_p50: number | null;
  latency_p99: number | null;
  total_tokens: number;
  total_cost: number;
}

export interface ProjectStats {
  trace_count: number;
  trace_error_count: number;
  trace_error_rate: number | null;
  run_count: number;
  error_rate: number | null;
  latency_p50: number | null;
  latency_p99: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  total_cost: number;
  /** The bucket size of the series, e.g. "1h". */
  interval: string | null;
  series: StatsBucket[];
}

export const projectStats = (c: Credentials, projectId: string, startTime: string) =>
  apiCall<ProjectStats>(
    c,
    'GET',
    `/sessions/${projectId}/stats?start_time=${encodeURIComponent(startTime)}&bucket=auto`,
  );
