// A feedback item as the clients send it (a multipart feedback.<id> part, or the body of
// POST /feedback: the clients' FeedbackCreate), validated into what the FeedbackSubmitted event
// carries. Every problem is a 422 naming the field.
import { errors } from '../../../platform/errors.ts';
import { optionalUuid, requireUuid } from '../../../platform/ids.ts';
import { storableTimestampMicros } from '../../../platform/time.ts';

export interface FeedbackDraft {
  id: string;
  runId: string | null;
  traceId: string | null;
  key: string;
  score: number | null;
  /** JSON text, as every JSON field below. */
  value: string | null;
  comment: string | null;
  correction: string | null;
  feedbackSource: string | null;
  sessionId: string | null;
  createdAt: number | null;
  comparativeExperimentId: string | null;
  feedbackGroupId: string | null;
  feedbackConfig: string | null;
  extra: string | null;
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** A score as stored: a number (booleans are 1 and 0), or null. */
export function feedbackScore(value: unknown, where: string): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null || value === undefined) return null;
  throw errors.invalidField(`${where}score must be a number or boolean`);
}

/** A JSON object field (feedback_config, extra) as JSON text, or null. */
export function jsonObjectOrNull(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw errors.invalidField(`${field} must be a JSON object`);
  return JSON.stringify(value);
}

export function optionalText(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw errors.invalidField(`${field} must be a string`);
  return value;
}

/**
 * `id` is the part's name (multipart) or the body's id (POST /feedback); `where` prefixes every
 * message ("part feedback.<id>", "body").
 */
export function toFeedbackDraft(body: unknown, id: string, where: string): FeedbackDraft {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.invalidField(`${where} must be a JSON object`);
  const b = body as Record<string, unknown>;
  const at = `${where}: `;
  if (typeof b.key !== 'string' || b.key === '') throw errors.invalidField(`${at}key is required`);
  return {
    id: requireUuid(id, `${at}feedback id`),
    runId: optionalUuid(b.run_id, `${at}run_id`),
    traceId: optionalUuid(b.trace_id, `${at}trace_id`),
    key: b.key,
    score: feedbackScore(b.score, at),
    value: jsonOrNull(b.value),
    comment: optionalText(b.comment, `${at}comment`),
    correction: jsonOrNull(b.correction),
    feedbackSource: jsonOrNull(b.feedback_source),
    sessionId: optionalUuid(b.session_id, `${at}session_id`),
    createdAt: storableTimestampMicros(b.created_at ?? b.start_time, `${at}created_at`),
    comparativeExperimentId: optionalUuid(b.comparative_experiment_id, `${at}comparative_experiment_id`),
    feedbackGroupId: optionalUuid(b.feedback_group_id, `${at}feedback_group_id`),
    // the npm client names it feedbackConfig
    feedbackConfig: jsonObjectOrNull(b.feedback_config ?? b.feedbackConfig, `${at}feedback_config`),
    extra: jsonObjectOrNull(b.extra, `${at}extra`),
  };
}
