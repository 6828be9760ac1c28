// A feedback item as the clients' Feedback models read it (Python requires id, created_at,
// modified_at, key, and the keys run_id and trace_id present), with the JSON schema the routes
// declare for it (OpenAPI, serialization).
import { formatIsoMicros } from '../../../platform/time.ts';
import type { FeedbackRow } from '../../../projections/feedback/feedbackRow.ts';
import { ZERO_UUID } from '../../../projections/shared/runRow.ts';

const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});
/** Any JSON value (an empty schema): serialized as it is. */
const anyJson = (description: string) => ({ description });

export const feedbackSchema = {
  type: 'object',
  description: 'A feedback item on a run (or, without run_id, on a project)',
  additionalProperties: false,
  required: ['id', 'run_id', 'trace_id', 'key', 'created_at', 'modified_at'],
  properties: {
    id: { type: 'string', description: 'UUID' },
    run_id: nullable('string', 'UUID of the run; null for feedback on a project'),
    trace_id: nullable('string', 'UUID of the run’s trace, when known'),
    session_id: nullable('string', 'UUID of the project, when known'),
    key: { type: 'string' },
    score: { type: ['number', 'null'] },
    value: anyJson('any JSON value'),
    comment: nullable('string'),
    correction: anyJson('any JSON value'),
    feedback_source: anyJson('{type, metadata}: api, model, app, …'),
    feedback_config: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'how to read the key’s scores',
    },
    comparative_experiment_id: nullable('string', 'UUID'),
    feedback_group_id: nullable('string', 'UUID'),
    extra: { type: ['object', 'null'], additionalProperties: true },
    created_at: { type: 'string', description: 'ISO 8601, UTC' },
    modified_at: { type: 'string', description: 'ISO 8601, UTC' },
  },
} as const;

const parsed = (json: string): unknown => (json === '' ? null : JSON.parse(json));

/** `place`: the run's trace and project, for an item whose row does not hold them yet. */
export function feedbackResponse(
  row: FeedbackRow,
  place?: { traceId: string; sessionId: string },
): Record<string, unknown> {
  return {
    id: row.id,
    run_id: row.run_id === ZERO_UUID ? null : row.run_id,
    trace_id: row.trace_id ?? place?.traceId ?? null,
    session_id: row.session_id ?? place?.sessionId ?? null,
    key: row.key,
    score: row.score,
    value: parsed(row.value),
    comment: row.comment,
    correction: parsed(row.correction),
    feedback_source: parsed(row.feedback_source),
    feedback_config: parsed(row.feedback_config),
    comparative_experiment_id: row.comparative_experiment_id,
    feedback_group_id: row.feedback_group_id,
    extra: parsed(row.extra),
    created_at: formatIsoMicros(row.created_at),
    modified_at: formatIsoMicros(row.modified_at || row.created_at),
  };
}
