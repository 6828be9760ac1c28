import { errors } from '../../common/errors.ts';
import { optionalUuid, requireUuid } from './ids.ts';
import { storableTimestampMicros } from './timestamps.ts';

export interface FeedbackDraft {
  id: string;
  runId: string | null;
  traceId: string | null;
  key: string;
  score: number | null;
  value: string | null;
  comment: string | null;
  correction: string | null;
  feedbackSource: string | null;
  sessionId: string | null;
  createdAt: number | null;
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

export function toFeedbackDraft(body: unknown, partId: string, where: string): FeedbackDraft {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalidField(`${where} must be a JSON object`);
  const b = body as Record<string, unknown>;
  const id = requireUuid(partId, `${where}: feedback id`);
  if (typeof b.key !== 'string' || b.key === '') throw errors.invalidField(`${where}: key is required`);
  let score: number | null = null;
  if (typeof b.score === 'number') score = b.score;
  else if (typeof b.score === 'boolean') score = b.score ? 1 : 0;
  else if (b.score !== null && b.score !== undefined) throw errors.invalidField(`${where}: score must be a number or boolean`);
  if (b.comment !== null && b.comment !== undefined && typeof b.comment !== 'string') throw errors.invalidField(`${where}: comment must be a string`);
  return {
    id,
    runId: optionalUuid(b.run_id, `${where}: run_id`),
    traceId: optionalUuid(b.trace_id, `${where}: trace_id`),
    key: b.key,
    score,
    value: jsonOrNull(b.value),
    comment: (b.comment as string | undefined) ?? null,
    correction: jsonOrNull(b.correction),
    feedbackSource: jsonOrNull(b.feedback_source),
    sessionId: optionalUuid(b.session_id, `${where}: session_id`),
    createdAt: storableTimestampMicros(b.created_at ?? b.start_time, `${where}: created_at`),
  };
}
