// The annotation queues' calls (docs/evaluation.md, "Annotation queues"): the workspace's queues,
// create, change and delete one; send runs to a queue; the caller's to-do in a queue (its size,
// the run at an index) and marking an item done or viewed; and the feedback configs a rubric's
// keys are offered from and scored by.
import { apiCall, type Credentials, type Run } from '../core/api.ts';

/** A rubric item: the feedback key a reviewer scores, and what its scores (or values) mean. */
export interface RubricItem {
  feedback_key: string;
  description?: string | null;
  /** Score (as text, e.g. "1") -> what it means. */
  score_descriptions?: Record<string, string> | null;
  /** Value (a category's label) -> what it means. */
  value_descriptions?: Record<string, string> | null;
  is_required?: boolean | null;
}

/** A queue as GET /annotation-queues answers it. */
export interface AnnotationQueue {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  default_dataset: string | null;
  num_reviewers_per_item: number;
  rubric_instructions: string | null;
  rubric_items: RubricItem[];
  total_runs: number;
  pending_runs: number;
}

/** What the queue dialog writes (POST creates, PATCH replaces what is given). */
export interface QueueFields {
  name: string;
  description: string | null;
  rubric_instructions: string | null;
  rubric_items: RubricItem[];
  default_dataset: string | null;
  num_reviewers_per_item: number;
}

/** A run of a queue, as GET /runs/{id} answers it, with its item's place in the queue. */
export interface QueueRun extends Run {
  queue_run_id: string;
  added_at: string;
  last_reviewed_time: string | null;
  reviewed_by_me: 'completed' | 'viewed' | null;
  completed_count: number;
}

/** The API's largest page of queues. */
export const QUEUES_PAGE = 100;

export function listQueues(c: Credentials, offset: number, search: string): Promise<AnnotationQueue[]> {
  const params = new URLSearchParams({ limit: String(QUEUES_PAGE), offset: String(offset) });
  if (search) params.set('name_contains', search);
  return apiCall<AnnotationQueue[]>(c, 'GET', `/annotation-queues?${params}`);
}

export const getQueue = (c: Credentials, id: string) => apiCall<AnnotationQueue>(c, 'GET', `/annotation-queues/${id}`);
export const createQueue = (c: Credentials, fields: QueueFields) =>
  apiCall<AnnotationQueue>(c, 'POST', '/annotation-queues', fields);
export const updateQueue = (c: Credentials, id: string, fields: QueueFields) =>
  apiCall<AnnotationQueue>(c, 'PATCH', `/annotation-queues/${id}`, fields);
export const deleteQueue = (c: Credentials, id: string) => apiCall<null>(c, 'DELETE', `/annotation-queues/${id}`);

/** Adds runs by id; a run already in the queue keeps its place (answered among the items all the same). */
export const sendRuns = (c: Credentials, queueId: string, runIds: string[]) =>
  apiCall<Array<{ id: string; run_id: string }>>(c, 'POST', `/annotation-queues/${queueId}/runs`, runIds);

/** How many runs still need the caller's review. */
export const todoSize = (c: Credentials, queueId: string) =>
  apiCall<{ size: number }>(c, 'GET', `/annotation-queues/${queueId}/size?status=needs_my_review`).then((s) => s.size);

/** The run at `index` of the caller's to-do (0: the next to review). */
export const todoRun = (c: Credentials, queueId: string, index: number) =>
  apiCall<QueueRun>(c, 'GET', `/annotation-queues/${queueId}/run/${index}`);

/** Marks an item reviewed by the caller: completed takes it out of their to-do; viewed leaves it there. */
export const markItem = (c: Credentials, queueRunId: string, status: 'completed' | 'viewed') =>
  apiCall<{ completed_count: number }>(c, 'POST', `/annotation-queues/status/${queueRunId}`, { status });

// ---- feedback configs: what a key's feedback holds ----

export interface FeedbackCategory {
  value: number;
  label?: string | null;
}

export type FeedbackConfig =
  | { type: 'continuous'; min?: number | null; max?: number | null }
  | { type: 'categorical'; categories: FeedbackCategory[]; allows_multiple_categories?: boolean | null }
  | { type: 'freeform' };

export interface FeedbackConfigEntry {
  feedback_key: string;
  feedback_config: FeedbackConfig;
  is_lower_score_better: boolean;
}

/** The workspace's feedback configs (one a key), the first hundred keys, or those of `keys`. */
export function listFeedbackConfigs(c: Credentials, keys?: readonly string[]): Promise<FeedbackConfigEntry[]> {
  const params = new URLSearchParams({ limit: '100' });
  for (const k of keys ?? []) params.append('key', k);
  return apiCall<FeedbackConfigEntry[]>(c, 'GET', `/feedback-configs?${params}`);
}
