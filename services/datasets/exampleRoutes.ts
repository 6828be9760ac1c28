// The examples API as the official clients call it. Writes: the multipart routes under
// /v1/platform/datasets/{dataset_id}/examples (JS only writes through them; Python does when
// /info says dataset_examples_multipart_enabled) and Python's JSON routes (POST /examples,
// /examples/bulk, PATCH /examples/{id}, /examples/bulk); deletions; splits. Reads: GET /examples
// (by dataset, ids, splits, metadata, at a version) and GET /examples/{id}. A dataset's versions:
// GET /datasets/{id}/versions, /version, /versions/diff, /splits, PUT /datasets/{id}/tags.
// Every write is one version of its dataset (exampleCommands.ts); reads wait until the projector
// has what was written before them. An unknown id, or another workspace's, is a 404 whose text
// says "… not found" (the clients match it).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../platform/blobStore.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { errors } from '../../platform/errors.ts';
import { errorResponses, jsonObjectQuerySchema, timeSchema, uuidSchema } from '../../platform/http/openapi.ts';
import { int, jsonObjectQuery, list, uuid } from '../../platform/http/routeInput.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import { metadataMatches } from '../../platform/json/metadataMatch.ts';
import type { Logger } from '../../platform/logger.ts';
import { formatIsoMicros, parseTimestampMicros, ISO_TIMESTAMP } from '../../platform/time.ts';
import { datasetTaggedEvent, type Dataset, type DatasetRegistry } from '../../projections/datasets/datasetRegistry.ts';
import {
  datasetSplitsQuery,
  datasetVersionsQuery,
  exampleDatasetsQuery,
  examplesQuery,
  exampleVersionsAtQuery,
} from '../../projections/examples/exampleQueries.ts';
import type { ExampleRow } from '../../projections/examples/exampleRow.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import { datasetResponses, datasetSchema } from './datasetResponse.ts';
import { tenantOf } from '../tenancy/index.ts';
import { toUuid } from '../../platform/ids.ts';
import { ExampleCommands, type ExampleChange, type NewExample, type WriteResult } from './exampleCommands.ts';
import { exampleChange, newExample, splitsOf } from './exampleInput.ts';
import { readExampleParts, readForm } from './exampleParts.ts';
import { examplesAsCsv, examplesAsJsonl, examplesAsOpenAiFineTuning } from './datasetExports.ts';
import { DatasetCommands } from './datasetCommands.ts';
import { versionNamed } from './datasetVersions.ts';
import { parse as parseCsv } from 'csv-parse/sync';
import { DATA_TYPES, type DataType } from '../../projections/datasets/datasetRegistry.ts';
import { exampleResponse, exampleSchema } from './exampleResponse.ts';

export interface ExampleRouteOptions {
  eventLog: EventLog;
  datasets: DatasetRegistry;
  projects: ProjectRegistry;
  blobs: BlobStore;
  ch: ClickHouseClient;
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
  projection: Pick<ConsumerLagMonitor, 'caughtUp'>;
  logger: Logger;
  /** The largest request body (multipart or JSON), decoded. */
  bodyLimitBytes: number;
}

const MAX_LIMIT = 100;
/** Ids, splits or selects one GET /examples may list. */
const MAX_LISTED = 100;
/** Example ids one request may name (the clients send at most 99 per read, 10,000 per split change). */
const MAX_IDS = 10_000;
const tags = ['examples'];

const idParams = (name: string, what: string) =>
  ({
    type: 'object',
    required: [name],
    properties: { [name]: { ...uuidSchema, description: `UUID of the ${what}` } },
  }) as const;
const datasetIdParams = idParams('dataset_id', 'dataset');
const exampleIdParams = idParams('example_id', 'example');

const writeResult = {
  type: 'object',
  additionalProperties: false,
  required: ['example_ids', 'count', 'as_of'],
  properties: {
    example_ids: { type: 'array', items: { type: 'string' } },
    count: { type: 'integer' },
    as_of: { type: 'string', description: 'ISO 8601: the version the write made' },
  },
} as const;
const written = (r: WriteResult) => ({ example_ids: r.exampleIds, count: r.count, as_of: formatIsoMicros(r.asOf) });

const multipartSchema = (summary: string, description: string) => ({
  tags,
  summary,
  description,
  consumes: ['multipart/form-data'],
  body: {
    content: {
      'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } } },
    },
  },
});

const asOfSchema = {
  type: 'string',
  description: 'a version: an ISO 8601 time (the dataset as it was then), a tag, or `latest`',
};

const splitSchema = {
  type: ['string', 'array', 'null'],
  minLength: 1,
  maxLength: 256,
  maxItems: 100,
  items: { type: 'string', minLength: 1, maxLength: 256 },
  description: 'a split name, or a list of them',
} as const;
const exampleMetadata = {
  type: ['object', 'null'],
  additionalProperties: true,
  properties: { dataset_split: splitSchema },
} as const;

const exampleBody = {
  type: 'object',
  required: ['dataset_id'],
  additionalProperties: true,
  properties: {
    id: { type: ['string', 'null'], format: 'uuid', description: 'chosen by the server when absent' },
    dataset_id: uuidSchema,
    inputs: { type: ['object', 'null'], additionalProperties: true },
    outputs: { type: ['object', 'null'], additionalProperties: true },
    metadata: exampleMetadata,
    split: splitSchema,
    source_run_id: { type: ['string', 'null'], format: 'uuid' },
    use_source_run_io: { type: ['boolean', 'null'], description: 'inputs and outputs from the source run' },
    created_at: timeSchema('stored', 'when the example was made; now when absent'),
  },
} as const;

const exampleUpdateBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: ['string', 'null'], format: 'uuid' },
    dataset_id: { type: ['string', 'null'], format: 'uuid' },
    inputs: { type: ['object', 'null'], additionalProperties: true },
    outputs: { type: ['object', 'null'], additionalProperties: true },
    metadata: exampleMetadata,
    split: splitSchema,
    attachments_operations: { type: ['object', 'null'], additionalProperties: true },
  },
} as const;

interface ListQuery {
  dataset?: string;
  id?: string[];
  as_of?: string;
  splits?: string[];
  metadata?: string;
  offset?: number;
  limit?: number;
  inline_s3_urls?: string;
  select?: string[];
  exclude_default_fields?: string;
  filter?: string;
}

const listQuery = {
  type: 'object',
  properties: {
    dataset: { ...uuidSchema, description: 'the dataset (needed unless `id` is given)' },
    // Lists without maxItems: a fuzzer's list one past a bound is a request head past the server's
    // 16 KiB. More than MAX_LISTED ids, splits or selects are a 400 (the clients send at most 99 ids).
    id: { type: 'array', items: uuidSchema, description: `only these example ids (repeated; at most ${MAX_LISTED})` },
    as_of: asOfSchema,
    splits: {
      type: 'array',
      items: { type: 'string' },
      description: `only examples in any of these splits (at most ${MAX_LISTED})`,
    },
    metadata: jsonObjectQuerySchema('a JSON object; every key must be in the metadata with an equal value'),
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `default ${MAX_LIMIT}` },
    inline_s3_urls: { type: 'string', description: 'accepted; attachment URLs are always presigned' },
    select: { type: 'array', items: { type: 'string' }, description: 'accepted; every field is returned' },
    exclude_default_fields: { type: 'string', description: 'accepted; every field is returned' },
    filter: { type: 'string', description: 'not supported: a 400 when given' },
  },
} as const;

export const exampleRoutes: FastifyPluginAsync<ExampleRouteOptions> = async (app, options) => {
  const { datasets, ch, tables, blobs } = options;
  const commands = new ExampleCommands(options);
  // The clients put /v1/platform after their API URL, or /platform when it ends in /v1 already.
  const platform = app.prefix.endsWith('/v1') ? '/platform' : '/v1/platform';

  const respond = (rows: ExampleRow[]) => Promise.all(rows.map((r) => exampleResponse(r, blobs)));

  /** The live examples among `ids`, in the datasets the workspace has, at `asOf` (a time or tag of their dataset). */
  const examplesById = async (tenantId: string, ids: string[], asOf?: string): Promise<ExampleRow[]> => {
    const where = await exampleDatasetsQuery(ch, tables, tenantId, ids);
    const byDataset = new Map<string, string[]>();
    for (const [id, d] of where) byDataset.set(d, [...(byDataset.get(d) ?? []), id]);
    const rows: ExampleRow[] = [];
    for (const [d, some] of byDataset) {
      const dataset = datasets.get(tenantId, d);
      if (!dataset) continue;
      rows.push(
        ...(await examplesQuery(ch, tables, tenantId, { datasetId: d, ids: some, asOf: versionNamed(dataset, asOf) })),
      );
    }
    return rows.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  };

  /** Creates examples, with each one's inputs and outputs from its source run when it asks for them. */
  const create = async (
    tenantId: string,
    datasetId: string,
    examples: Array<NewExample & { useSourceRunIo: boolean }>,
  ) => {
    for (const e of examples)
      if (e.useSourceRunIo) Object.assign(e, await commands.sourceRunIo(tenantId, e.sourceRunId!));
    return commands.create(tenantId, datasetId, examples);
  };

  // ---- multipart writes (both clients) ----

  app.post<{ Params: { dataset_id: string } }>(
    `${platform}/datasets/:dataset_id/examples`,
    {
      schema: {
        ...multipartSchema(
          'Create examples (one version of the dataset)',
          'Parts per example: `<id>` (JSON: metadata, split, created_at, source_run_id, use_source_run_io), `<id>.inputs`, ' +
            '`<id>.outputs` (JSON) and `<id>.attachment.<name>` (raw bytes of their own type). A 409 when an id is taken.',
        ),
        params: datasetIdParams,
        response: { 200: writeResult, ...errorResponses(404, 409, 413, 415, 503) },
      },
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest<{ Params: { dataset_id: string } }>) => {
      const tenantId = tenantOf(request);
      const datasetId = uuid(request.params.dataset_id, 'dataset_id');
      const parts = await readExampleParts(request.body, request.headers, options.bodyLimitBytes);
      const examples = parts.map((p) =>
        newExample(
          p.id,
          { main: p.main ?? {}, inputs: p.inputs, outputs: p.outputs, attachments: p.attachments },
          `example ${p.id}`,
        ),
      );
      return written(await create(tenantId, datasetId, examples));
    },
  );

  app.patch<{ Params: { dataset_id: string } }>(
    `${platform}/datasets/:dataset_id/examples`,
    {
      schema: {
        ...multipartSchema(
          'Change examples (one version of the dataset)',
          'Parts per example: `<id>` (JSON: metadata, split), `<id>.inputs`, `<id>.outputs`, `<id>.attachment.<name>` and ' +
            '`<id>.attachments_operations` (JSON: {retain: [names], rename: {old: new}}). What a part gives replaces what was.',
        ),
        params: datasetIdParams,
        response: { 200: writeResult, ...errorResponses(404, 413, 415, 503) },
      },
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest<{ Params: { dataset_id: string } }>) => {
      const tenantId = tenantOf(request);
      const datasetId = uuid(request.params.dataset_id, 'dataset_id');
      const parts = await readExampleParts(request.body, request.headers, options.bodyLimitBytes);
      const changes = parts.map((p) =>
        exampleChange(
          p.id,
          {
            main: p.main ?? {},
            inputs: p.inputs,
            outputs: p.outputs,
            outputsGiven: p.outputs !== undefined,
            attachments: p.attachments,
            attachmentsOperations: p.attachmentsOperations,
          },
          `example ${p.id}`,
        ),
      );
      return written(await commands.update(tenantId, datasetId, changes));
    },
  );

  app.patch<{
    Params: { dataset_id: string };
    Body: { example_ids: string[]; operations: Array<Record<string, unknown>> };
  }>(
    `${platform}/datasets/:dataset_id/examples/metadata`,
    {
      schema: {
        tags,
        summary: "Add examples to a split, or take them out of one (metadata.dataset_split's operations)",
        params: datasetIdParams,
        body: {
          type: 'object',
          required: ['example_ids', 'operations'],
          additionalProperties: false,
          properties: {
            example_ids: { type: 'array', items: uuidSchema, minItems: 1, maxItems: MAX_IDS },
            operations: {
              type: 'array',
              minItems: 1,
              maxItems: 100,
              items: {
                type: 'object',
                required: ['key', 'operation', 'values'],
                additionalProperties: false,
                properties: {
                  key: { type: 'string', enum: ['dataset_split'] },
                  operation: { type: 'string', enum: ['array_add', 'array_remove'] },
                  values: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, maxItems: 100 },
                },
              },
            },
          },
        },
        response: { 200: writeResult, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const datasetId = uuid(request.params.dataset_id, 'dataset_id');
      const ops = request.body.operations.map((o) => ({
        add: o.operation === 'array_add',
        values: o.values as string[],
      }));
      return written(await changeSplits(tenantId, datasetId, request.body.example_ids, ops));
    },
  );

  /** Applies split additions and removals to each example's splits (one version). */
  const changeSplits = async (
    tenantId: string,
    datasetId: string,
    ids: string[],
    ops: Array<{ add: boolean; values: string[] }>,
  ): Promise<WriteResult> => {
    await commands.dataset(tenantId, datasetId);
    await commands.upToDate();
    const unique = [...new Set(ids)];
    const rows = await examplesQuery(ch, tables, tenantId, { datasetId, ids: unique });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const missing = unique.find((id) => !byId.has(id));
    if (missing) throw errors.notFound(`example ${missing} in dataset ${datasetId}`);
    const changes: ExampleChange[] = unique.map((id) => {
      const splits = new Set(byId.get(id)!.splits);
      for (const op of ops) for (const v of op.values) op.add ? splits.add(v) : splits.delete(v);
      return { id, splits: [...splits] };
    });
    return commands.update(tenantId, datasetId, changes);
  };

  app.post<{ Body: { example_ids: string[]; hard_delete?: boolean } }>(
    `${platform}/datasets/examples/delete`,
    {
      schema: {
        tags,
        summary: 'Delete examples (each dataset they are in gets a version without them)',
        body: {
          type: 'object',
          required: ['example_ids'],
          additionalProperties: false,
          properties: {
            example_ids: { type: 'array', items: uuidSchema, minItems: 1, maxItems: MAX_IDS },
            hard_delete: {
              type: 'boolean',
              description:
                'true: out of every version of the dataset, not only the ones from now on (the event log keeps them until its retention)',
            },
          },
        },
        response: { 200: writeResult, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      return written(
        await commands.delete(tenantOf(request), request.body.example_ids, { hard: request.body.hard_delete === true }),
      );
    },
  );

  // ---- a dataset from a CSV file ----

  const badId = (id: string): never => {
    throw errors.badRequest(`id is not a UUID: "${id.slice(0, 64)}"`);
  };

  app.post(
    '/datasets/upload',
    {
      schema: {
        ...multipartSchema(
          'Create a dataset from a CSV file: each row an example, its input and output columns named',
          'Form fields: `file` (the CSV, with a header row), `input_keys` and `output_keys` (repeated: column names), and ' +
            '`name` (default: the file name), `description`, `data_type`, `id`. A 409 when the name is taken.',
        ),
        response: { 200: datasetSchema, ...errorResponses(400, 409, 413, 415, 503) },
      },
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest) => {
      const tenantId = tenantOf(request);
      const { fields, files } = await readForm(request.body, request.headers, options.bodyLimitBytes);
      const file = files.get('file');
      if (!file) throw errors.badRequest('the form has no `file` part (the CSV)');
      const field = (name: string) => fields.get(name)?.[0];
      const inputKeys = fields.get('input_keys') ?? [];
      const outputKeys = fields.get('output_keys') ?? [];
      if (inputKeys.length === 0) throw errors.badRequest('name the input columns (input_keys, repeated)');
      const dataType = (field('data_type') ?? 'kv') as DataType;
      if (!DATA_TYPES.includes(dataType)) throw errors.badRequest(`data_type must be one of ${DATA_TYPES.join(', ')}`);
      let records: Array<Record<string, string>>;
      try {
        records = parseCsv(file.bytes, { columns: true, bom: true, skip_empty_lines: true });
      } catch (err) {
        throw errors.badRequest(`file is not a CSV with a header row: ${(err as Error).message}`);
      }
      const header = new Set(records.length > 0 ? Object.keys(records[0]!) : []);
      const unknown = [...inputKeys, ...outputKeys].find((k) => !header.has(k));
      if (records.length > 0 && unknown !== undefined)
        throw errors.badRequest(`the CSV has no column "${unknown}" (its columns: ${[...header].join(', ')})`);
      const pick = (row: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[k]]));
      const name = field('name') ?? file.filename?.replace(/\.csv$/i, '') ?? '';
      if (!name) throw errors.badRequest('name the dataset (name), or give the file a name');
      const dataset = await new DatasetCommands(datasets, options.eventLog).create(tenantId, {
        id: field('id') ? (toUuid(field('id')!) ?? badId(field('id')!)) : null,
        name,
        description: field('description') ?? null,
        dataType,
      });
      if (records.length > 0)
        await commands.create(
          tenantId,
          dataset.id,
          records.map((row) => ({
            inputs: pick(row, inputKeys),
            outputs: outputKeys.length > 0 ? pick(row, outputKeys) : null,
            metadata: null,
            splits: null,
            sourceRunId: null,
            createdAt: null,
            attachments: [],
          })),
        );
      await commands.upToDate();
      return (await datasetResponses(options, tenantId, [dataset]))[0];
    },
  );

  // ---- a dataset's examples as files ----

  const FORMATS = {
    jsonl: { type: 'application/jsonl; charset=utf-8', summary: 'as JSON Lines (one example a line)' },
    csv: { type: 'text/csv; charset=utf-8', summary: 'as CSV (inputs.<key>, outputs.<key>, splits, metadata)' },
    openai_ft: {
      type: 'application/jsonl; charset=utf-8',
      summary: "in OpenAI's fine-tuning format (chat and LLM datasets)",
    },
  } as const;
  for (const [format, { type, summary }] of Object.entries(FORMATS))
    app.get<{ Params: { dataset_id: string }; Querystring: { as_of?: string } }>(
      `/datasets/:dataset_id/${format}`,
      {
        schema: {
          tags,
          summary: `A dataset's examples ${summary}, at a version (as_of), oldest first`,
          params: datasetIdParams,
          querystring: { type: 'object', properties: { as_of: asOfSchema } },
          // The file's type for the 200 alone: refusals are JSON, as everywhere.
          response: {
            200: { description: summary, content: { [type.split(';')[0]!]: { schema: { type: 'string' } } } },
            ...errorResponses(404, 503),
          },
        },
      },
      async (request, reply) => {
        const tenantId = tenantOf(request);
        const dataset = await commands.dataset(tenantId, uuid(request.params.dataset_id, 'dataset_id'));
        await commands.upToDate();
        const rows = await examplesQuery(ch, tables, tenantId, {
          datasetId: dataset.id,
          asOf: versionNamed(dataset, request.query.as_of),
        });
        const body =
          format === 'csv'
            ? examplesAsCsv(rows)
            : format === 'jsonl'
              ? examplesAsJsonl(rows)
              : examplesAsOpenAiFineTuning(rows, dataset.dataType);
        const file = `${dataset.name.replace(/[^\w.-]+/g, '_')}.${format === 'csv' ? 'csv' : 'jsonl'}`;
        return reply.type(type).header('content-disposition', `attachment; filename="${file}"`).send(body);
      },
    );

  // ---- JSON writes (Python, when /info does not offer the multipart routes) ----

  const legacyExample = async (tenantId: string, b: Record<string, unknown>, where: string) => {
    const example = newExample(
      b.id == null ? null : uuid(b.id, `${where}: id`),
      { main: b, inputs: b.inputs, outputs: b.outputs, attachments: [] },
      where,
    );
    return { datasetId: uuid(b.dataset_id, `${where}: dataset_id`), example };
  };

  app.post<{ Body: Record<string, unknown> }>(
    '/examples',
    {
      schema: {
        tags,
        summary: 'Create an example',
        body: exampleBody,
        response: { 200: exampleSchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { datasetId, example } = await legacyExample(tenantId, request.body, 'example');
      const result = await create(tenantId, datasetId, [example]);
      await commands.upToDate();
      const [row] = await examplesById(tenantId, result.exampleIds);
      if (!row)
        throw errors.storageUnavailable('the examples read model', 'the example is not readable yet; read it again');
      return exampleResponse(row, blobs);
    },
  );

  app.post<{ Body: Array<Record<string, unknown>> }>(
    '/examples/bulk',
    {
      schema: {
        tags,
        summary: 'Create examples (one version of each dataset they go to)',
        body: { type: 'array', items: exampleBody, minItems: 1, maxItems: MAX_IDS },
        response: { 200: { type: 'array', items: exampleSchema }, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const given = await Promise.all(request.body.map((b, i) => legacyExample(tenantId, b, `examples[${i}]`)));
      const byDataset = new Map<string, Array<NewExample & { useSourceRunIo: boolean }>>();
      for (const g of given) byDataset.set(g.datasetId, [...(byDataset.get(g.datasetId) ?? []), g.example]);
      for (const d of byDataset.keys()) await commands.dataset(tenantId, d);
      const ids: string[] = [];
      for (const [d, examples] of byDataset) ids.push(...(await create(tenantId, d, examples)).exampleIds);
      await commands.upToDate();
      return respond(await examplesById(tenantId, ids));
    },
  );

  app.patch<{ Body: Array<Record<string, unknown>> }>(
    '/examples/bulk',
    {
      schema: {
        tags,
        summary: 'Change examples (one version of each dataset they are in)',
        body: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_IDS,
          items: {
            ...exampleUpdateBody,
            required: ['id'],
            properties: { ...exampleUpdateBody.properties, id: uuidSchema },
          },
        },
        response: { 200: writeResult, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const changes = request.body.map((b, i) =>
        exampleChange(
          uuid(b.id, `examples[${i}].id`),
          { main: b, inputs: b.inputs, outputs: b.outputs, outputsGiven: b.outputs != null, attachments: [] },
          `examples[${i}]`,
        ),
      );
      return written(await commands.update(tenantId, null, changes));
    },
  );

  app.patch<{ Params: { example_id: string }; Body: Record<string, unknown> }>(
    '/examples/:example_id',
    {
      schema: {
        tags,
        summary: 'Change an example (a version of its dataset)',
        params: exampleIdParams,
        body: exampleUpdateBody,
        response: { 200: writeResult, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = uuid(request.params.example_id, 'example_id');
      const b = request.body;
      const change = exampleChange(
        id,
        { main: b, inputs: b.inputs, outputs: b.outputs, outputsGiven: b.outputs != null, attachments: [] },
        `example ${id}`,
      );
      const datasetId = b.dataset_id == null ? null : uuid(b.dataset_id, 'dataset_id');
      return written(await commands.update(tenantId, datasetId, [change]));
    },
  );

  // ---- deletions ----

  app.delete<{ Params: { example_id: string } }>(
    '/examples/:example_id',
    {
      schema: {
        tags,
        summary: 'Delete an example (its dataset gets a version without it)',
        params: exampleIdParams,
        response: { 200: writeResult, ...errorResponses(404, 503) },
      },
    },
    async (request) =>
      written(await commands.delete(tenantOf(request), [uuid(request.params.example_id, 'example_id')])),
  );

  app.delete<{ Querystring: { example_ids?: string[] } }>(
    '/examples',
    {
      schema: {
        tags,
        summary: 'Delete examples (each dataset they are in gets a version without them)',
        querystring: {
          type: 'object',
          required: ['example_ids'],
          // 250 ids are ~12 KiB of query string, within the server's 16 KiB of request head
          properties: { example_ids: { type: 'array', items: uuidSchema, minItems: 1, maxItems: 250 } },
        },
        response: { 200: writeResult, ...errorResponses(404, 503) },
      },
    },
    async (request) => written(await commands.delete(tenantOf(request), list(request.query.example_ids))),
  );

  // ---- reads ----

  app.get<{ Querystring: ListQuery }>(
    '/examples',
    {
      schema: {
        tags,
        summary: "List a dataset's examples (at a version), or examples by id; oldest first",
        querystring: listQuery,
        response: { 200: { type: 'array', items: exampleSchema }, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const q = request.query;
      if (q.filter) throw errors.badRequest('filter is not supported by this server; filter by metadata, splits or id');
      for (const [name, values] of [
        ['id', q.id],
        ['splits', q.splits],
        ['select', q.select],
      ] as const)
        if (list(values).length > MAX_LISTED)
          throw errors.badRequest(`${name} lists more than ${MAX_LISTED} values; read in several requests`);
      const ids = q.id === undefined ? undefined : list(q.id).map((v) => uuid(v, 'id'));
      const metadata = jsonObjectQuery(q.metadata, 'metadata');
      const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      const splits = q.splits === undefined ? undefined : list(q.splits);
      await Promise.all([commands.upToDate(), datasets.catchUp()]);
      let rows: ExampleRow[];
      if (q.dataset === undefined) {
        if (!ids) throw errors.badRequest('name the dataset (dataset=<id>) or the examples (id=<id>, repeated)');
        rows = await examplesById(tenantId, ids, q.as_of);
        if (splits) rows = rows.filter((r) => r.splits.some((s) => splits.includes(s)));
        if (metadata) rows = rows.filter((r) => metadataMatches(JSON.parse(r.metadata), metadata));
        return respond(rows.slice(offset, offset + limit));
      }
      const dataset = datasets.get(tenantId, uuid(q.dataset, 'dataset'));
      if (!dataset) throw errors.notFound(`dataset ${q.dataset}`);
      const selection = { datasetId: dataset.id, asOf: versionNamed(dataset, q.as_of), ids, splits };
      if (!metadata) return respond(await examplesQuery(ch, tables, tenantId, selection, { offset, limit }));
      // The metadata filter is applied here, over the whole selection, so that pages stay pages.
      rows = (await examplesQuery(ch, tables, tenantId, selection)).filter((r) =>
        metadataMatches(JSON.parse(r.metadata), metadata),
      );
      return respond(rows.slice(offset, offset + limit));
    },
  );

  app.get<{ Params: { example_id: string }; Querystring: { as_of?: string } }>(
    '/examples/:example_id',
    {
      schema: {
        tags,
        summary: 'Read an example (at a version of its dataset)',
        params: exampleIdParams,
        querystring: { type: 'object', properties: { as_of: asOfSchema } },
        response: { 200: exampleSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = uuid(request.params.example_id, 'example_id');
      await Promise.all([commands.upToDate(), datasets.catchUp()]);
      const [row] = await examplesById(tenantId, [id], request.query.as_of);
      if (!row) throw errors.notFound(`example ${id}`);
      return exampleResponse(row, blobs);
    },
  );

  // ---- a dataset's versions, tags and splits ----

  const readDataset = async (request: FastifyRequest<{ Params: { dataset_id: string } }>): Promise<Dataset> => {
    const dataset = await commands.dataset(tenantOf(request), uuid(request.params.dataset_id, 'dataset_id'));
    await commands.upToDate();
    return dataset;
  };
  const tagsOf = (dataset: Dataset, asOf: number): string[] =>
    Object.entries(dataset.tags)
      .filter(([, at]) => at === asOf)
      .map(([tag]) => tag)
      .sort();
  const versionSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['as_of', 'tags'],
    properties: { as_of: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  } as const;

  app.get<{ Params: { dataset_id: string }; Querystring: { search?: string; offset?: number; limit?: number } }>(
    '/datasets/:dataset_id/versions',
    {
      schema: {
        tags,
        summary: "A dataset's versions (each write of its examples), newest first, with their tags",
        params: datasetIdParams,
        querystring: {
          type: 'object',
          properties: {
            search: { type: 'string', maxLength: 256, description: 'only versions with a tag containing this' },
            offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
          },
        },
        response: { 200: { type: 'array', items: versionSchema }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const dataset = await readDataset(request);
      const offset = int(request.query.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(request.query.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      const search = request.query.search?.toLowerCase();
      if (search) {
        // Only tagged versions can match: answered from the tags.
        const tagged = [...new Set(Object.values(dataset.tags))].sort((a, b) => b - a);
        return tagged
          .map((at) => ({ as_of: formatIsoMicros(at), tags: tagsOf(dataset, at) }))
          .filter((v) => v.tags.some((t) => t.toLowerCase().includes(search)))
          .slice(offset, offset + limit);
      }
      const versions = await datasetVersionsQuery(ch, tables, tenantOf(request), dataset.id, { offset, limit });
      return versions.map((v) => ({ as_of: formatIsoMicros(v.modifiedAt), tags: tagsOf(dataset, v.modifiedAt) }));
    },
  );

  app.get<{ Params: { dataset_id: string }; Querystring: { as_of?: string; tag?: string } }>(
    '/datasets/:dataset_id/version',
    {
      schema: {
        tags,
        summary: 'The version of a dataset at a time, or the one a tag names',
        params: datasetIdParams,
        querystring: {
          type: 'object',
          properties: {
            as_of: timeSchema('query', 'the newest version at or before it', { nullable: false, text: true }),
            tag: { type: 'string', maxLength: 1024 },
          },
        },
        response: { 200: versionSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const { as_of, tag } = request.query;
      if ((as_of === undefined) === (tag === undefined)) throw errors.badRequest('give exactly one of as_of and tag');
      const dataset = await readDataset(request);
      const at = tag !== undefined ? versionNamed(dataset, tag, 'tag') : parseTimestampMicros(as_of, 'as_of');
      const [version] = await datasetVersionsQuery(ch, tables, tenantOf(request), dataset.id, {
        offset: 0,
        limit: 1,
        before: at,
      });
      if (!version) throw errors.notFound(`a version of dataset ${dataset.id} at or before ${as_of ?? tag}`);
      return { as_of: formatIsoMicros(version.modifiedAt), tags: tagsOf(dataset, version.modifiedAt) };
    },
  );

  app.put<{ Params: { dataset_id: string }; Body: { as_of: string; tag: string } }>(
    '/datasets/:dataset_id/tags',
    {
      schema: {
        tags,
        summary: 'Tag a version of a dataset (a tag on another version moves here)',
        params: datasetIdParams,
        body: {
          type: 'object',
          required: ['as_of', 'tag'],
          additionalProperties: false,
          properties: {
            as_of: timeSchema('query', 'the newest version at or before it is tagged', { nullable: false, text: true }),
            tag: { type: 'string', minLength: 1, maxLength: 1024 },
          },
        },
        response: { 200: versionSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const dataset = await readDataset(request);
      const { tag } = request.body;
      if (tag === 'latest' || ISO_TIMESTAMP.test(tag.trim()))
        throw errors.badRequest(
          `"${tag}" cannot be a tag: as_of would read it as ${tag === 'latest' ? 'the newest version' : 'a time'}`,
        );
      const at = parseTimestampMicros(request.body.as_of, 'as_of')!;
      const [version] = await datasetVersionsQuery(ch, tables, tenantId, dataset.id, {
        offset: 0,
        limit: 1,
        before: at,
      });
      if (!version) throw errors.notFound(`a version of dataset ${dataset.id} at or before ${request.body.as_of}`);
      await options.eventLog.append([datasetTaggedEvent(tenantId, dataset.id, tag, version.modifiedAt)]);
      await datasets.catchUp();
      const now = datasets.get(tenantId, dataset.id);
      if (!now) throw errors.notFound(`dataset ${dataset.id}`);
      return { as_of: formatIsoMicros(version.modifiedAt), tags: tagsOf(now, version.modifiedAt) };
    },
  );

  app.get<{ Params: { dataset_id: string }; Querystring: { from_version: string; to_version: string } }>(
    '/datasets/:dataset_id/versions/diff',
    {
      schema: {
        tags,
        summary: 'What changed in a dataset from one version to another: examples added, removed and modified',
        params: datasetIdParams,
        querystring: {
          type: 'object',
          required: ['from_version', 'to_version'],
          properties: { from_version: asOfSchema, to_version: asOfSchema },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['examples_modified', 'examples_added', 'examples_removed'],
            properties: {
              examples_modified: { type: 'array', items: { type: 'string' } },
              examples_added: { type: 'array', items: { type: 'string' } },
              examples_removed: { type: 'array', items: { type: 'string' } },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const dataset = await readDataset(request);
      const tenantId = tenantOf(request);
      const at = (v: string, field: string) =>
        exampleVersionsAtQuery(ch, tables, tenantId, dataset.id, versionNamed(dataset, v, field));
      const from = await at(request.query.from_version, 'from_version');
      const to = await at(request.query.to_version, 'to_version');
      const sorted = (ids: Iterable<string>) => [...ids].sort();
      return {
        examples_modified: sorted([...to.keys()].filter((id) => from.has(id) && from.get(id) !== to.get(id))),
        examples_added: sorted([...to.keys()].filter((id) => !from.has(id))),
        examples_removed: sorted([...from.keys()].filter((id) => !to.has(id))),
      };
    },
  );

  app.get<{ Params: { dataset_id: string }; Querystring: { as_of?: string } }>(
    '/datasets/:dataset_id/splits',
    {
      schema: {
        tags,
        summary: "The splits a dataset's examples are in (at a version)",
        params: datasetIdParams,
        querystring: { type: 'object', properties: { as_of: asOfSchema } },
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const dataset = await readDataset(request);
      return datasetSplitsQuery(ch, tables, tenantOf(request), dataset.id, versionNamed(dataset, request.query.as_of));
    },
  );

  app.put<{ Params: { dataset_id: string }; Body: { split_name: string; examples: string[]; remove?: boolean } }>(
    '/datasets/:dataset_id/splits',
    {
      schema: {
        tags,
        summary: 'Put examples in a split, or take them out of it (remove: true)',
        params: datasetIdParams,
        body: {
          type: 'object',
          required: ['split_name', 'examples'],
          additionalProperties: false,
          properties: {
            split_name: { type: 'string', minLength: 1, maxLength: 256 },
            examples: { type: 'array', items: uuidSchema, minItems: 1, maxItems: MAX_IDS },
            remove: { type: 'boolean' },
          },
        },
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses(404, 503) },
      },
    },
    async (request, reply: FastifyReply) => {
      const tenantId = tenantOf(request);
      const datasetId = uuid(request.params.dataset_id, 'dataset_id');
      const [split] = splitsOf(request.body.split_name, 'split_name')!;
      const result = await changeSplits(tenantId, datasetId, request.body.examples, [
        { add: !request.body.remove, values: [split!] },
      ]);
      return reply.send(result.exampleIds);
    },
  );
};
