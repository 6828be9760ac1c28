// The traces table's reads: POST /api/v2/traces/query (one row per trace from the `traces` read
// model, sorted and keyset-paged by the server, filtered by the filter language on the root
// run), and the rows flattened for the table and for export.
import { apiCall, type Credentials } from '../core/api.ts';
import type { SortBy, SortOrder } from './traceView.ts';

export interface TracesQuery {
  project_id: string;
  min_start_time: string;
  max_start_time?: string;
  trace_filter?: string;
  trace_ids?: string[];
  sort_by?: SortBy;
  sort_order?: SortOrder;
  selects?: string[];
  cursor?: string | null;
  page_size?: number;
}

/** An item as the route answers it; the root run holds only `id` until the root itself is projected. */
interface TraceItem {
  root_run: Record<string, unknown> & { id: string };
  trace_aggregates: { total_tokens?: number; total_cost?: number; run_count: number; error_count: number };
}

/** One row of the table (and of an export): the root run's fields and the trace's totals. */
export interface TraceRow extends Record<string, unknown> {
  id: string;
  name: string | null;
  run_type: string | null;
  status: string;
  start_time: string | null;
  end_time: string | null;
  latency_seconds: number | null;
  total_tokens: number | null;
  total_cost: number | null;
  tags: string[];
  run_count: number;
  error_count: number;
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null);

export function traceRowOf(item: TraceItem): TraceRow {
  const r = item.root_run;
  const a = item.trace_aggregates;
  return {
    ...r,
    id: r.id,
    name: (r.name as string | undefined) ?? null,
    // The v2 shape's enums are upper case; the filter language and the rest of the UI use lower.
    run_type: lower(r.run_type),
    status: lower(r.status) ?? 'pending',
    start_time: (r.start_time as string | undefined) ?? null,
    end_time: (r.end_time as string | null | undefined) ?? null,
    latency_seconds: (r.latency_seconds as number | null | undefined) ?? null,
    total_tokens: a.total_tokens ?? null,
    total_cost: a.total_cost ?? null,
    tags: (r.tags as string[] | undefined) ?? [],
    run_count: a.run_count,
    error_count: a.error_count,
  };
}

export async function queryTraces(
  c: Credentials,
  body: TracesQuery,
): Promise<{ rows: TraceRow[]; next: string | null }> {
  const page = await apiCall<{ items: TraceItem[]; next_cursor: string | null }>(
    c,
    'POST',
    '/api/v2/traces/query',
    body,
  );
  return { rows: page.items.map(traceRowOf), next: page.next_cursor };
}
