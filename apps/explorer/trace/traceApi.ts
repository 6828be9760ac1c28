// What the trace view reads and writes: the whole tree of a trace in one request with only the
// fields a row shows (GET /api/v2/traces/{id}/runs with `selects`), the selected run's payloads
// lazily (GET /runs/{id}), its feedback (GET/POST /feedback, PATCH/DELETE /feedback/{id}), its
// attachments (through the API, with the key: GET /runs/{id}/attachments/{name}).
import { ApiError, apiCall, apiErrorOf, authHeaders, getRun, type Credentials, type Run } from '../core/api.ts';
import type { FeedbackChanges } from './feedbackEdit.ts';
import type { TreeRun } from './runTree.ts';
import { saveFile } from '../core/saveFile.ts';

const TREE_SELECTS = [
  'ID',
  'NAME',
  'RUN_TYPE',
  'STATUS',
  'START_TIME',
  'END_TIME',
  'FIRST_TOKEN_TIME',
  'PARENT_RUN_IDS',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'TOTAL_TOKENS',
  'TOTAL_COST',
];

/** Every run of the trace in tree order (dotted_order), in one request. */
export async function traceTree(credentials: Credentials, projectId: string, traceId: string): Promise<TreeRun[]> {
  const query = new URLSearchParams({ project_id: projectId });
  for (const s of TREE_SELECTS) query.append('selects', s);
  const answer = await apiCall<{ items: TreeRun[] }>(credentials, 'GET', `/api/v2/traces/${traceId}/runs?${query}`);
  // The v2 shape has the clients' upper-case enums (LLM, SUCCESS); the explorer shows them as the v1 API does.
  return answer.items.map((r) => ({
    ...r,
    run_type: (r.run_type ?? '').toLowerCase(),
    status: (r.status || 'pending').toLowerCase(),
    parent_run_ids: r.parent_run_ids ?? [],
  }));
}

/** The selected run whole: payloads, error, extra, attachments (`s3_urls`). */
export interface RunDetail extends Run {
  first_token_time?: string | null;
  prompt_cost?: number | null;
  completion_cost?: number | null;
  events?: unknown;
  s3_urls?: Record<string, { presigned_url: string; mime_type?: string }> | null;
}

export const runDetail = (c: Credentials, runId: string) => getRun(c, runId) as Promise<RunDetail>;

export interface Feedback {
  id: string;
  key: string;
  score: number | null;
  value: unknown;
  comment: string | null;
  correction?: unknown;
  created_at: string;
  modified_at?: string;
  feedback_source?: { type?: string | null } | null;
}

export const runFeedback = (c: Credentials, runId: string) =>
  apiCall<Feedback[]>(c, 'GET', `/feedback?run=${runId}&limit=100`);

export const addFeedback = (
  c: Credentials,
  body: { run_id: string; trace_id: string; key: string; score: number | null; comment: string | null },
) => apiCall<Feedback>(c, 'POST', '/feedback', { ...body, feedback_source: { type: 'app' } });

export const updateFeedback = (c: Credentials, id: string, changes: FeedbackChanges) =>
  apiCall<Feedback>(c, 'PATCH', `/feedback/${id}`, changes);
export const deleteFeedback = (c: Credentials, id: string) => apiCall<null>(c, 'DELETE', `/feedback/${id}`);

/** The attachments of a run: name, type, and the API path of its bytes. */
export function attachmentsOf(run: RunDetail): { name: string; mimeType: string; path: string }[] {
  return Object.entries(run.s3_urls ?? {})
    .filter(([key]) => key.startsWith('attachment.'))
    .map(([key, a]) => {
      const name = key.slice('attachment.'.length);
      return {
        name,
        mimeType: a.mime_type ?? 'application/octet-stream',
        path: `/runs/${run.id}/attachments/${encodeURIComponent(name)}`,
      };
    });
}

/** An attachment's bytes, read with the key (a plain link or image cannot send it). */
export async function attachmentBlob(c: Credentials, path: string): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, { headers: authHeaders(c) });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `the tracing API could not be reached (${(err as Error).message})`);
  }
  if (!res.ok) throw apiErrorOf(res, await res.text());
  return res.blob();
}

/** Fetches an attachment and saves it under its name. */
export async function downloadAttachment(c: Credentials, path: string, name: string): Promise<void> {
  saveFile(await attachmentBlob(c, path), name);
}
