// A dataset as the clients' Dataset models read it (langsmith's schemas: `metadata` at the top
// level, the schemas as *_schema_definition), with the JSON schema the routes declare for it.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { formatIsoMicros } from '../../platform/time.ts';
import type { Dataset } from '../../projections/datasets/datasetRegistry.ts';
import { exampleCountsQuery } from '../../projections/examples/exampleQueries.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';

const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});

export const datasetSchema = {
  type: 'object',
  description: 'A dataset of examples, with what its experiments (projects run against it) add up to',
  additionalProperties: false,
  required: ['id', 'tenant_id', 'name', 'data_type', 'created_at', 'modified_at', 'example_count', 'session_count'],
  properties: {
    id: { type: 'string', description: 'UUID' },
    tenant_id: { type: 'string', description: 'UUID of the workspace' },
    name: { type: 'string' },
    description: nullable('string'),
    data_type: { type: 'string', enum: ['kv', 'llm', 'chat'] },
    inputs_schema_definition: { type: ['object', 'null'], additionalProperties: true },
    outputs_schema_definition: { type: ['object', 'null'], additionalProperties: true },
    transformations: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
    metadata: { type: ['object', 'null'], additionalProperties: true, description: "the dataset's extra.metadata" },
    extra: { type: ['object', 'null'], additionalProperties: true },
    created_at: { type: 'string', description: 'ISO 8601, UTC' },
    modified_at: { type: 'string', description: 'ISO 8601, UTC: the last change' },
    example_count: { type: 'integer', description: 'examples in the current version' },
    session_count: { type: 'integer', description: 'experiments (projects) run against the dataset' },
    last_session_start_time: nullable('string', 'ISO 8601, UTC: the newest experiment’s start'),
  },
} as const;

/** What a dataset's experiments add up to (from the projects that name it as their reference dataset). */
export interface DatasetExperiments {
  count: number;
  /** Microseconds since the epoch; null without experiments. */
  lastStartTime: number | null;
}

export function datasetResponse(d: Dataset, experiments: DatasetExperiments, exampleCount: number) {
  const metadata = d.extra?.metadata;
  return {
    id: d.id,
    tenant_id: d.tenantId,
    name: d.name,
    description: d.description,
    data_type: d.dataType,
    inputs_schema_definition: d.inputsSchema,
    outputs_schema_definition: d.outputsSchema,
    transformations: d.transformations,
    metadata: typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata : null,
    extra: d.extra,
    created_at: formatIsoMicros(d.createdAt),
    modified_at: formatIsoMicros(d.modifiedAt),
    example_count: exampleCount,
    session_count: experiments.count,
    last_session_start_time: experiments.lastStartTime === null ? null : formatIsoMicros(experiments.lastStartTime),
  };
}

/** The workspace's experiments per dataset: the projects that name a reference dataset. */
function experimentsOf(projects: ProjectRegistry, tenantId: string): (datasetId: string) => DatasetExperiments {
  const byDataset = new Map<string, DatasetExperiments>();
  for (const p of projects.list(tenantId)) {
    if (p.referenceDatasetId === null) continue;
    const e = byDataset.get(p.referenceDatasetId) ?? { count: 0, lastStartTime: null };
    e.count += 1;
    e.lastStartTime = e.lastStartTime === null ? p.startTime : Math.max(e.lastStartTime, p.startTime);
    byDataset.set(p.referenceDatasetId, e);
  }
  return (datasetId) => byDataset.get(datasetId) ?? { count: 0, lastStartTime: null };
}

/** Datasets as the clients read them: their experiments, and their examples counted at the newest version. */
export async function datasetResponses(
  deps: { projects: ProjectRegistry; ch: ClickHouseClient; tables: Pick<ReadModelTables, 'examples' | 'exampleIds'> },
  tenantId: string,
  page: Dataset[],
) {
  const experiments = experimentsOf(deps.projects, tenantId);
  const counts = await exampleCountsQuery(
    deps.ch,
    deps.tables,
    tenantId,
    page.map((d) => d.id),
  );
  return page.map((d) => datasetResponse(d, experiments(d.id), counts.get(d.id) ?? 0));
}
