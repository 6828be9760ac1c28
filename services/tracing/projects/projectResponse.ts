// A project as the clients' TracerSession / TracerSessionResult models expect it: one place,
// with the JSON schema the routes declare for it (OpenAPI, serialization).
import { formatIsoMicros } from '../../../platform/time.ts';
import type { Project } from '../../../projections/projects/projectRegistry.ts';
import type { ProjectStats } from './projectStatsQuery.ts';

const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});

export const projectSchema = {
  type: 'object',
  description: 'A tracing project (session). The statistics are present with include_stats=true.',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID' },
    tenant_id: { type: 'string', description: 'UUID of the workspace' },
    name: { type: 'string' },
    description: nullable('string'),
    extra: { type: ['object', 'null'], additionalProperties: true },
    start_time: { type: 'string', description: 'ISO 8601, UTC' },
    end_time: nullable('string', 'ISO 8601, UTC'),
    reference_dataset_id: nullable('string', 'UUID of the dataset an experiment ran against'),
    run_count: nullable('integer', 'traces (root runs)'),
    latency_p50: nullable('number', 'seconds, over traces that ended'),
    latency_p99: nullable('number', 'seconds, over traces that ended'),
    first_token_p50: nullable('number', 'seconds from a trace start to its first token'),
    first_token_p99: nullable('number', 'seconds from a trace start to its first token'),
    prompt_tokens: nullable('integer'),
    completion_tokens: nullable('integer'),
    total_tokens: nullable('integer'),
    prompt_cost: nullable('number'),
    completion_cost: nullable('number'),
    total_cost: nullable('number'),
    error_rate: nullable('number', 'share of traces whose root run errored'),
    last_run_start_time: nullable('string', 'ISO 8601, UTC'),
    feedback_stats: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'per feedback key over the runs: {n, avg, stdev, errors, values}',
    },
    session_feedback_stats: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'per feedback key over the feedback on the project itself (summary evaluators give it)',
    },
  },
} as const;

export function projectResponse(p: Project, stats?: ProjectStats): Record<string, unknown> {
  const base = {
    id: p.id,
    tenant_id: p.tenantId,
    name: p.name,
    description: p.description,
    extra: p.extra,
    start_time: formatIsoMicros(p.startTime),
    end_time: p.endTime === null ? null : formatIsoMicros(p.endTime),
    reference_dataset_id: p.referenceDatasetId,
  };
  if (!stats) return base;
  return {
    ...base,
    ...stats,
    last_run_start_time: stats.last_run_start_time === null ? null : formatIsoMicros(stats.last_run_start_time),
  };
}
