// The threads views' calls to the v2 thread routes (services/tracing/routes/threads.ts): a
// project's threads in a time window, a thread's turns (traces, oldest first) and its totals,
// and the root runs' inputs and outputs for the list's previews (one POST /runs/query a page).
import { apiCall, type Credentials } from '../core/api.ts';

/** A thread as POST /api/v2/threads/query lists it (over the window's traces). */
export interface ThreadItem {
  thread_id: string;
  /** Turns (traces) in the window. */
  count: number;
  first_trace_id: string;
  last_trace_id: string;
  min_start_time: string;
  last_activity: string;
  latency_p50: number | null;
  latency_p99: number | null;
  num_errored_turns: number;
  total_tokens: number;
  total_cost: number | null;
}

export interface ThreadsPage {
  items: ThreadItem[];
  next_cursor: string | null;
}

export const THREADS_PAGE_SIZE = 25;

export const queryThreads = (c: Credentials, projectId: string, minStartTime: string, cursor: string | null) =>
  apiCall<ThreadsPage>(c, 'POST', '/api/v2/threads/query', {
    project_id: projectId,
    min_start_time: minStartTime,
    page_size: THREADS_PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
  });

/** The inputs and outputs of root runs by id (a root run's id is its trace's). */
export async function rootPayloads(
  c: Credentials,
  projectId: string,
  traceIds: string[],
): Promise<Map<string, { inputs: unknown; outputs: unknown }>> {
  const ids = [...new Set(traceIds)];
  if (ids.length === 0) return new Map();
  const page = await apiCall<{ runs: { id: string; inputs?: unknown; outputs?: unknown }[] }>(
    c,
    'POST',
    '/runs/query',
    {
      session: [projectId],
      id: ids,
      select: ['inputs', 'outputs'],
      limit: Math.min(100, ids.length),
    },
  );
  return new Map(page.runs.map((r) => [r.id, { inputs: r.inputs, outputs: r.outputs }]));
}

/** A turn of a thread, with the selects asked for below. */
export interface Turn {
  trace_id: string;
  turn_number: number;
  name: string;
  start_time: string;
  end_time: string | null;
  latency: number | null;
  total_tokens: number | null;
  total_cost: number | null;
  status: string;
  run_count: number;
  inputs?: unknown;
  outputs?: unknown;
  error?: string | null;
}

const TURN_SELECTS = [
  'TRACE_ID',
  'TURN_NUMBER',
  'NAME',
  'START_TIME',
  'END_TIME',
  'LATENCY',
  'TOTAL_TOKENS',
  'TOTAL_COST',
  'INPUTS',
  'OUTPUTS',
  'ERROR',
];
/** Turns shown at most on one thread's page (10 pages of the API's largest page). */
const MAX_TURNS = 1000;

/** A thread's turns in order, following the API's pages. */
export async function threadTurns(
  c: Credentials,
  projectId: string,
  threadId: string,
): Promise<{ turns: Turn[]; more: boolean }> {
  const turns: Turn[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ project_id: projectId, page_size: '100' });
    for (const s of TURN_SELECTS) params.append('selects', s);
    if (cursor) params.set('cursor', cursor);
    const page: { items: Turn[]; next_cursor: string | null } = await apiCall(
      c,
      'GET',
      `/api/v2/threads/${encodeURIComponent(threadId)}/traces?${params}`,
    );
    turns.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor && turns.length < MAX_TURNS);
  return { turns, more: cursor !== null };
}

export interface ThreadStats {
  turns: number;
  first_start_time: string | null;
  last_start_time: string | null;
  latency_p50_seconds: number | null;
  latency_p99_seconds: number | null;
  total_tokens: number;
  total_cost: number;
  num_errored_turns: number;
}

export const threadStats = (c: Credentials, projectId: string, threadId: string) =>
  apiCall<ThreadStats>(c, 'GET', `/api/v2/threads/${encodeURIComponent(threadId)}/stats?session_id=${projectId}`);
