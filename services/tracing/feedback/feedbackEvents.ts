// The events of the feedback topic, built in one place. Every event of one feedback item has the
// key tenant/feedback id, so they land in one partition in order: the projector applies an
// update or a deletion after the submission it changes, live and in a replay.
import { event, type EventToAppend } from '../../../platform/kafka/eventLog.ts';
import type { FeedbackUpdated } from '../../../schemas/events.generated.ts';
import type { FeedbackDraft } from '../ingest/feedbackDraft.ts';

export const feedbackKey = (tenantId: string, feedbackId: string): string => `${tenantId}/${feedbackId}`;

export function feedbackSubmitted(
  tenantId: string,
  f: FeedbackDraft,
  receivedAt: number,
): EventToAppend<'FeedbackSubmitted'> {
  return event('FeedbackSubmitted', feedbackKey(tenantId, f.id), {
    tenant_id: tenantId,
    feedback_id: f.id,
    run_id: f.runId,
    trace_id: f.traceId,
    key: f.key,
    score: f.score,
    value: f.value,
    comment: f.comment,
    correction: f.correction,
    feedback_source: f.feedbackSource,
    session_id: f.sessionId,
    created_at: f.createdAt ?? receivedAt,
    received_at: receivedAt,
    comparative_experiment_id: f.comparativeExperimentId,
    feedback_group_id: f.feedbackGroupId,
    feedback_config: f.feedbackConfig,
    extra: f.extra,
  });
}

export type FeedbackChanges = Pick<
  FeedbackUpdated,
  'fields' | 'score' | 'value' | 'comment' | 'correction' | 'feedback_config'
>;

/** `runId`: the item's (the zero UUID for feedback on a project), so the projector finds its row by key. */
export function feedbackUpdated(
  tenantId: string,
  id: string,
  runId: string,
  changes: FeedbackChanges,
  at: number,
): EventToAppend<'FeedbackUpdated'> {
  const payload = { tenant_id: tenantId, feedback_id: id, run_id: runId, ...changes, modified_at: at };
  return event('FeedbackUpdated', feedbackKey(tenantId, id), payload);
}

export function feedbackDeleted(
  tenantId: string,
  id: string,
  runId: string,
  at: number,
): EventToAppend<'FeedbackDeleted'> {
  return event('FeedbackDeleted', feedbackKey(tenantId, id), {
    tenant_id: tenantId,
    feedback_id: id,
    run_id: runId,
    deleted_at: at,
  });
}

export interface FeedbackTokenDraft {
  tokenId: string;
  runId: string;
  feedbackKey: string;
  feedbackId: string | null;
  /** JSON text. */
  feedbackConfig: string | null;
  /** Microseconds since the epoch, as createdAt. */
  expiresAt: number;
  createdAt: number;
}

/** A presigned token: keyed tenant/token/id (its own key space beside the items' tenant/id). */
export function feedbackTokenCreated(tenantId: string, t: FeedbackTokenDraft): EventToAppend<'FeedbackTokenCreated'> {
  return event('FeedbackTokenCreated', `${tenantId}/token/${t.tokenId}`, {
    tenant_id: tenantId,
    token_id: t.tokenId,
    run_id: t.runId,
    feedback_key: t.feedbackKey,
    feedback_id: t.feedbackId,
    feedback_config: t.feedbackConfig,
    expires_at: t.expiresAt,
    created_at: t.createdAt,
  });
}
