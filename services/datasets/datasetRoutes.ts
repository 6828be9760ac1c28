// The datasets API as the official clients call it: POST /datasets, GET /datasets (by id, name,
// part of the name, data type, metadata), GET/PATCH/DELETE /datasets/{dataset_id}. Datasets live
// in the datasets topic (projections/datasets/datasetRegistry.ts); what their experiments add up
// to comes from the projects that name them. Bad input is a 422 naming the field; an unknown id,
// or another workspace's, is a 404 ("dataset … not found": the clients match that text).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { errors } from '../../platform/errors.ts';
import { errorResponses, jsonObjectQuerySchema, uuidSchema } from '../../platform/http/openapi.ts';
import { boundedObject, int, jsonObjectQuery, list, uuid } from '../../platform/http/routeInput.ts';
import { checkJsonSchema } from '../../platform/json/jsonSchemas.ts';
import { metadataMatches } from '../../platform/json/metadataMatch.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import {
  comparativeExperimentCreatedEvent,
  DATA_TYPES,
  type ComparativeExperiment,
  type Dataset,
  type DatasetRegistry,
  type DataType,
} from '../../projections/datasets/datasetRegistry.ts';
import { randomUUID } from 'node:crypto';
import { formatIsoMicros } from '../../platform/time.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import { comparativeFeedbackStatsQuery, type FeedbackStat } from '../../projections/feedback/feedbackQueries.ts';
import { tenantOf } from '../tenancy/index.ts';
import { DatasetCommands } from './datasetCommands.ts';
import { datasetResponses, datasetSchema } from './datasetResponse.ts';

export interface DatasetRouteOptions {
  eventLog: EventLog;
  datasets: DatasetRegistry;
  projects: ProjectRegistry;
  ch: ClickHouseClient;
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds' | 'feedback'>;
  /** The examples projector's lag: example counts wait for it. */
  examples: Pick<ConsumerLagMonitor, 'caughtUp'>;
  /** The feedback projector's lag: a comparison's feedback_stats wait for it. */
  feedback: Pick<ConsumerLagMonitor, 'caughtUp'>;
}

const MAX_LIMIT = 100;
const MAX_NAME_LENGTH = 1000;
const MAX_DESCRIPTION_LENGTH = 64 * 1024;
/** A dataset travels in one Kafka message: its extra, schemas and transformations each stay well below it. */
const MAX_OBJECT_BYTES = 256 * 1024;

const objectOrNull = (description: string) => ({ type: ['object', 'null'], additionalProperties: true, description });
const transformationsSchema = {
  type: ['array', 'null'],
  maxItems: 100,
  description: 'applied to runs added to the dataset: each a path into the example and a transformation type',
  items: {
    type: 'object',
    required: ['path', 'transformation_type'],
    additionalProperties: false,
    properties: {
      path: { type: 'array', minItems: 1, maxItems: 32, items: { type: 'string', maxLength: 256 } },
      transformation_type: {
        type: 'string',
        enum: [
          'convert_to_openai_message',
          'convert_to_openai_tool',
          'remove_system_messages',
          'remove_extra_fields',
          'extract_tools_from_run',
        ],
      },
    },
  },
} as const;

const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: true,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
    description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION_LENGTH },
    data_type: { type: ['string', 'null'], enum: [...DATA_TYPES, null], description: 'kv (the default), llm or chat' },
    id: { type: ['string', 'null'], format: 'uuid', description: 'chosen by the server when absent' },
    extra: objectOrNull(`metadata goes in extra.metadata; at most ${MAX_OBJECT_BYTES / 1024} KiB`),
    inputs_schema_definition: objectOrNull("a JSON Schema (draft-07) every example's inputs must satisfy"),
    outputs_schema_definition: objectOrNull("a JSON Schema (draft-07) every example's outputs must satisfy"),
    transformations: transformationsSchema,
  },
} as const;

const updateBody = {
  type: 'object',
  description: 'null or absent leaves a field as it is',
  additionalProperties: true,
  properties: {
    name: { type: ['string', 'null'], minLength: 1, maxLength: MAX_NAME_LENGTH },
    description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION_LENGTH },
    extra: objectOrNull('replaces the whole extra'),
    metadata: objectOrNull('replaces extra.metadata, the rest of extra kept'),
    inputs_schema_definition: objectOrNull('a JSON Schema (draft-07); replaces the one before'),
    outputs_schema_definition: objectOrNull('a JSON Schema (draft-07); replaces the one before'),
  },
} as const;

const datasetIdParams = {
  type: 'object',
  required: ['dataset_id'],
  properties: { dataset_id: { ...uuidSchema, description: 'UUID of the dataset' } },
} as const;

interface ListQuery {
  id?: string[];
  data_type?: string[];
  name?: string;
  name_contains?: string;
  metadata?: string;
  offset?: number;
  limit?: number;
}

const listQuery = {
  type: 'object',
  properties: {
    id: { type: 'array', items: uuidSchema, description: 'only these dataset ids (repeated)' },
    data_type: { type: 'array', items: { type: 'string', enum: [...DATA_TYPES] }, description: 'only these types' },
    name: { type: 'string', description: 'exactly this name (an empty array when there is none)' },
    name_contains: { type: 'string', description: 'case-insensitive part of the name' },
    metadata: jsonObjectQuerySchema('a JSON object; every key must be in the metadata with an equal value'),
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `default ${MAX_LIMIT}` },
  },
} as const;

const schemaField = (value: unknown, field: string): Record<string, unknown> | null => {
  const schema = boundedObject(value, field, MAX_OBJECT_BYTES);
  return schema === null ? null : checkJsonSchema(schema, field);
};

export const datasetRoutes: FastifyPluginAsync<DatasetRouteOptions> = async (app, options) => {
  const { datasets, projects } = options;
  const commands = new DatasetCommands(datasets, options.eventLog);
  const tags = ['datasets'];

  /** Reads see what any replica appended before them; with Kafka away, what this replica has. */
  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await Promise.all([datasets.catchUp(), projects.catchUp(), options.examples.caughtUp(5000)]).catch((err: Error) =>
      request.log.warn({ err: err.message }, 'datasets served without catching up'),
    );
  };

  const respond = (tenantId: string, page: Dataset[]) => datasetResponses(options, tenantId, page);

  app.post<{ Body: Record<string, unknown> }>(
    '/datasets',
    {
      schema: {
        tags,
        summary: 'Create a dataset (a 409 when the workspace has one of that name)',
        body: createBody,
        response: { 200: datasetSchema, ...errorResponses(409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const tenantId = tenantOf(request);
      const dataset = await commands.create(tenantId, {
        id: b.id == null ? null : uuid(b.id, 'id'),
        name: b.name as string,
        description: (b.description as string | null | undefined) ?? null,
        dataType: ((b.data_type as DataType | null | undefined) ?? 'kv') as DataType,
        extra: boundedObject(b.extra, 'extra', MAX_OBJECT_BYTES),
        inputsSchema: schemaField(b.inputs_schema_definition, 'inputs_schema_definition'),
        outputsSchema: schemaField(b.outputs_schema_definition, 'outputs_schema_definition'),
        transformations: (b.transformations as unknown[] | null | undefined) ?? null,
      });
      return (await respond(tenantId, [dataset]))[0];
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/datasets',
    {
      schema: {
        tags,
        summary: 'List datasets, newest first',
        querystring: listQuery,
        response: { 200: { type: 'array', items: datasetSchema }, ...errorResponses(400, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const q = request.query;
      const ids = q.id === undefined ? undefined : list(q.id).map((v) => uuid(v, 'id'));
      const types = q.data_type === undefined ? undefined : list(q.data_type);
      const nameContains = q.name_contains ? q.name_contains.toLowerCase() : undefined;
      const metadata = jsonObjectQuery(q.metadata, 'metadata');
      const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      await upToDate(request);
      const page = datasets
        .list(tenantId)
        .filter(
          (d) =>
            (!ids || ids.includes(d.id)) &&
            (!types || types.includes(d.dataType)) &&
            (q.name === undefined || d.name === q.name) &&
            (!nameContains || d.name.toLowerCase().includes(nameContains)) &&
            (!metadata || metadataMatches(d.extra?.metadata, metadata)),
        )
        .slice(offset, offset + limit);
      return respond(tenantId, page);
    },
  );

  app.get<{ Params: { dataset_id: string } }>(
    '/datasets/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Read a dataset',
        params: datasetIdParams,
        response: { 200: datasetSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = uuid(request.params.dataset_id, 'dataset_id');
      await upToDate(request);
      const dataset = datasets.get(tenantId, id);
      if (!dataset) throw errors.notFound(`dataset ${id}`);
      return (await respond(tenantId, [dataset]))[0];
    },
  );

  app.patch<{ Params: { dataset_id: string }; Body: Record<string, unknown> }>(
    '/datasets/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Update a dataset (name, description, metadata or extra, schemas)',
        params: datasetIdParams,
        body: updateBody,
        response: { 200: datasetSchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const tenantId = tenantOf(request);
      const id = uuid(request.params.dataset_id, 'dataset_id');
      const dataset = await commands.update(tenantId, id, {
        name: b.name as string | null | undefined,
        description: b.description as string | null | undefined,
        extra: boundedObject(b.extra, 'extra', MAX_OBJECT_BYTES),
        metadata: boundedObject(b.metadata, 'metadata', MAX_OBJECT_BYTES),
        inputsSchema: schemaField(b.inputs_schema_definition, 'inputs_schema_definition'),
        outputsSchema: schemaField(b.outputs_schema_definition, 'outputs_schema_definition'),
      });
      return (await respond(tenantId, [dataset]))[0];
    },
  );

  app.delete<{ Params: { dataset_id: string } }>(
    '/datasets/:dataset_id',
    {
      schema: {
        tags,
        summary: 'Delete a dataset',
        params: datasetIdParams,
        response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses(404, 503) },
      },
    },
    async (request, reply) => {
      await commands.delete(tenantOf(request), uuid(request.params.dataset_id, 'dataset_id'));
      return reply.code(204).send();
    },
  );
  // ---- comparisons of a dataset's experiments (pairwise evaluation) ----

  const comparativeSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'tenant_id', 'created_at', 'modified_at', 'reference_dataset_id', 'experiments_info'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: ['string', 'null'] },
      tenant_id: { type: 'string' },
      created_at: { type: 'string' },
      modified_at: { type: 'string' },
      reference_dataset_id: { type: 'string' },
      extra: { type: ['object', 'null'], additionalProperties: true },
      experiments_info: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { id: { type: 'string' }, name: { type: ['string', 'null'] } },
        },
      },
      feedback_stats: { type: ['object', 'null'], additionalProperties: true },
    },
  } as const;
  const comparativeResponse = (c: ComparativeExperiment, stats: ReadonlyMap<string, Record<string, FeedbackStat>>) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    tenant_id: c.tenantId,
    created_at: formatIsoMicros(c.createdAt),
    modified_at: formatIsoMicros(c.createdAt),
    reference_dataset_id: c.datasetId,
    extra: c.extra,
    experiments_info: c.experimentIds.map((id) => ({ id, name: projects.get(c.tenantId, id)?.name ?? null })),
    feedback_stats: stats.get(c.id) ?? null,
  });
  /** The comparisons with their feedback_stats: of the (pairwise) feedback that names each. */
  const comparativeResponses = async (tenantId: string, page: ComparativeExperiment[]) => {
    const stats = await comparativeFeedbackStatsQuery(
      options.ch,
      tenantId,
      options.tables.feedback,
      page.map((c) => c.id),
    );
    return page.map((c) => comparativeResponse(c, stats));
  };

  app.post<{ Body: Record<string, unknown> }>(
    '/datasets/comparative',
    {
      schema: {
        tags,
        summary: "Compare two or more of a dataset's experiments (pairwise feedback names the comparison)",
        body: {
          type: 'object',
          required: ['experiment_ids', 'reference_dataset_id'],
          additionalProperties: true,
          properties: {
            id: { type: ['string', 'null'], format: 'uuid', description: 'chosen by the server when absent' },
            name: { type: ['string', 'null'], maxLength: MAX_NAME_LENGTH },
            description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION_LENGTH },
            experiment_ids: { type: 'array', items: uuidSchema, minItems: 2, maxItems: 100 },
            reference_dataset_id: uuidSchema,
            created_at: { type: ['string', 'null'] },
            extra: objectOrNull(`at most ${MAX_OBJECT_BYTES / 1024} KiB`),
          },
        },
        response: { 200: comparativeSchema, ...errorResponses(400, 404, 409, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const b = request.body;
      const datasetId = uuid(b.reference_dataset_id, 'reference_dataset_id');
      const experimentIds = [...new Set((b.experiment_ids as string[]).map((v) => uuid(v, 'experiment_ids')))];
      await upToDate(request);
      if (!datasets.get(tenantId, datasetId)) throw errors.notFound(`dataset ${datasetId}`);
      for (const id of experimentIds) {
        const project = projects.get(tenantId, id);
        if (!project) throw errors.notFound(`experiment ${id}`);
        if (project.referenceDatasetId !== datasetId)
          throw errors.badRequest(`experiment ${id} is not an experiment of dataset ${datasetId}`);
      }
      if (experimentIds.length < 2) throw errors.badRequest('a comparison needs two different experiments');
      const id = b.id == null ? randomUUID() : uuid(b.id, 'id');
      if (datasets.comparative(tenantId, id)) throw errors.conflict(`comparative experiment ${id} already exists`);
      const name =
        (b.name as string | null | undefined) ??
        experimentIds.map((e) => projects.get(tenantId, e)!.name).join(' vs. ');
      await options.eventLog.append([
        comparativeExperimentCreatedEvent({
          id,
          tenantId,
          datasetId,
          name,
          description: (b.description as string | null | undefined) ?? null,
          experimentIds,
          extra: boundedObject(b.extra, 'extra', MAX_OBJECT_BYTES),
        }),
      ]);
      await datasets.catchUp();
      const made = datasets.comparative(tenantId, id);
      if (!made) throw errors.notFound(`dataset ${datasetId}`);
      return (await comparativeResponses(tenantId, [made]))[0];
    },
  );

  app.get<{ Params: { dataset_id: string } }>(
    '/datasets/:dataset_id/comparative',
    {
      schema: {
        tags,
        summary: "The comparisons of a dataset's experiments, newest first",
        params: datasetIdParams,
        response: { 200: { type: 'array', items: comparativeSchema }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = uuid(request.params.dataset_id, 'dataset_id');
      await Promise.all([upToDate(request), options.feedback.caughtUp(5000).catch(() => false)]);
      if (!datasets.get(tenantId, id)) throw errors.notFound(`dataset ${id}`);
      return comparativeResponses(tenantId, datasets.comparatives(tenantId, id));
    },
  );
};
