// A row of the `feedback` read model (projections/feedback/feedbackTable.ts) and how each event
// of the feedback topic makes or changes one. Pure: the projector applies these in topic order.
import type { FeedbackDeleted, FeedbackSubmitted, FeedbackUpdated } from '../../schemas/events.generated.ts';
import { ZERO_UUID } from '../shared/runRow.ts';

/** A row of the `feedback` table (projections/feedback/feedbackTable.ts). JSON fields are text, '' when absent. */
export interface FeedbackRow {
  tenant_id: string;
  /** The zero UUID for feedback on a project. */
  run_id: string;
  id: string;
  trace_id: string | null;
  session_id: string | null;
  key: string;
  score: number | null;
  value: string;
  comment: string | null;
  correction: string;
  feedback_source: string;
  created_at: number;
  version: number;
  modified_at: number;
  comparative_experiment_id: string | null;
  feedback_group_id: string | null;
  feedback_config: string;
  extra: string;
  deleted: 0 | 1;
}

/** The row a submission makes; null for feedback on neither a run nor a project (nothing to attach it to). */
export function feedbackRow(f: FeedbackSubmitted, version: number): FeedbackRow | null {
  if (!f.run_id && !f.session_id) return null;
  return {
    tenant_id: f.tenant_id,
    run_id: f.run_id ?? ZERO_UUID,
    id: f.feedback_id,
    trace_id: f.trace_id,
    session_id: f.session_id,
    key: f.key,
    score: f.score,
    value: f.value ?? '',
    comment: f.comment,
    correction: f.correction ?? '',
    feedback_source: f.feedback_source ?? '',
    created_at: f.created_at,
    version,
    modified_at: f.created_at,
    comparative_experiment_id: f.comparative_experiment_id,
    feedback_group_id: f.feedback_group_id,
    feedback_config: f.feedback_config ?? '',
    extra: f.extra ?? '',
    deleted: 0,
  };
}

/** The row after an update: the named fields changed, the rest as they were. */
export function updatedRow(current: FeedbackRow, u: FeedbackUpdated, version: number): FeedbackRow {
  const next: FeedbackRow = { ...current, version, modified_at: u.modified_at };
  for (const field of u.fields) {
    if (field === 'score') next.score = u.score;
    else if (field === 'value') next.value = u.value ?? '';
    else if (field === 'comment') next.comment = u.comment;
    else if (field === 'correction') next.correction = u.correction ?? '';
    else if (field === 'feedback_config') next.feedback_config = u.feedback_config ?? '';
  }
  return next;
}

/** The tombstone of a deleted item: it outranks the item's older rows, so FINAL reads see only it. */
export const deletedRow = (current: FeedbackRow, d: FeedbackDeleted, version: number): FeedbackRow => ({
  ...current,
  version,
  modified_at: d.deleted_at,
  deleted: 1,
});

/** A row read from ClickHouse (64-bit integers arrive as text). */
export function feedbackRowFromClickHouse(raw: Record<string, unknown>): FeedbackRow {
  return {
    ...(raw as unknown as FeedbackRow),
    created_at: Number(raw.created_at),
    version: Number(raw.version),
    modified_at: Number(raw.modified_at),
    deleted: Number(raw.deleted) === 1 ? 1 : 0,
  };
}
