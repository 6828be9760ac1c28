// The bulk-export API under /bulk-exports: destinations (create, list, read, rotate
// credentials), exports (create, list, read, cancel) and their runs (list, read). An export is of
// a project's runs (the default, LangSmith's) or, with `"resource": "examples"`, of a dataset's
// examples at a version. Writes are commands appended to the bulk-export topic
// (services/bulk-export/exportCommands.ts); reads answer from its fold. Bad input is a 4xx naming
// the field; another workspace's ids are 404s.
import { errorResponses, timeSchema, uuidSchema } from '../../platform/http/openapi.ts';
import type { FastifyPluginAsync, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { errors } from '../../platform/errors.ts';
import { ExportCommands } from './exportCommands.ts';
import {
  destinationResponse,
  destinationSchema,
  exportResponse,
  exportRunResponse,
  exportRunSchema,
  exportSchema,
} from './exportResponse.ts';
import type { BulkExport, ExportState } from './exportState.ts';
import {
  EXPORT_COMPRESSIONS,
  EXPORT_FORMAT_VERSIONS,
  EXPORT_RESOURCES,
  type DestinationCredentials,
  type ExportCompression,
  type ExportFormatVersion,
} from './exportTypes.ts';
import { destinationHostPolicy, normalisePrefix } from './destinations/destinationS3.ts';
import { DEFAULT_EXPORT_FIELDS, unknownExportFields } from './parquet/exportColumns.ts';
import { DEFAULT_EXAMPLE_FIELDS } from './parquet/exampleColumns.ts';
import { exportFilterCondition } from './parquet/exportQuery.ts';
import { exportRunDirectory } from './parquet/objectKey.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import { requireBlobStore, type BlobStoreReadiness } from '../../platform/blobStoreReadiness.ts';
import { tenantOf } from '../tenancy/index.ts';
import { time, uuid } from '../../platform/http/routeInput.ts';
import type { Config } from '../../platform/config.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import type { DatasetVersions } from '../datasets/index.ts';

/** What the bulk-export routes are given by the process that serves them. */
export interface BulkExportRouteOptions {
  config: Pick<
    Config,
    'FF_BULK_EXPORT_DEFAULT_COMPRESSION' | 'S3_ENDPOINT' | 'BULK_EXPORT_ALLOWED_HOSTS' | 'BULK_EXPORT_DENIED_HOSTS'
  >;
  eventLog: EventLog;
  projects: ProjectRegistry;
  /** Read-model table names an export's filter is checked against. */
  tables: ReadModelTables;
  /** The datasets an examples export reads, and the versions its as_of names (none: only runs are exported). */
  datasets?: DatasetVersions;
  /** The fold of the bulk-export topic. */
  exports: ExportState;
  /** Encrypts destination credentials; null when SECRETS_ENCRYPTION_KEY is unset (destinations cannot be created). */
  secrets: SecretBox | null;
  /**
   * Object storage, which exports need (the payloads they read; locally, the destinations too): until it has
   * answered, every route answers 503 with Retry-After (platform/blobStoreReadiness.ts). None: not checked.
   */
  storage?: BlobStoreReadiness;
}

const tags = ['bulk-exports'];

const credentialsBody = {
  type: 'object',
  required: ['access_key_id', 'secret_access_key'],
  additionalProperties: false,
  description: 'write-only: never returned or logged; encrypted before it is stored',
  properties: {
    access_key_id: { type: 'string', minLength: 1, maxLength: 256 },
    secret_access_key: { type: 'string', minLength: 1, maxLength: 512 },
    session_token: { type: ['string', 'null'], maxLength: 8192 },
  },
} as const;

const SUPPORTED_CONFIG = new Set(['bucket_name', 'prefix', 'endpoint_url', 'region']);

const destinationBody = {
  type: 'object',
  required: ['display_name', 'config', 'credentials'],
  additionalProperties: true,
  properties: {
    destination_type: { type: 'string', enum: ['s3'], description: 'only s3 (any S3-compatible store)' },
    display_name: { type: 'string', minLength: 1, maxLength: 256 },
    config: {
      type: 'object',
      required: ['bucket_name'],
      additionalProperties: true,
      properties: {
        bucket_name: { type: 'string', minLength: 3, maxLength: 63 },
        prefix: {
          type: 'string',
          maxLength: 512,
          description: 'folder in the bucket; a test object is written under <prefix>/tmp/',
        },
        endpoint_url: {
          type: ['string', 'null'],
          maxLength: 2048,
          description: 'S3-compatible endpoint; absent for AWS S3',
        },
        region: { type: ['string', 'null'], maxLength: 64 },
      },
    },
    credentials: credentialsBody,
  },
} as const;

/** The fields of one resource's exports only: the other's may not name them (absent, or null). */
const RESOURCE_FIELDS = {
  runs: ['session_id', 'start_time', 'end_time', 'interval_hours', 'filter'],
  examples: ['dataset_id', 'as_of'],
} as const;
const REQUIRED_FIELDS = { runs: ['session_id', 'start_time'], examples: ['dataset_id'] } as const;
const COLUMNS = { runs: DEFAULT_EXPORT_FIELDS, examples: DEFAULT_EXAMPLE_FIELDS } as const;
const WHAT = {
  runs: 'an export of runs (the default) names session_id and start_time',
  examples: 'an export of examples ("resource": "examples") names dataset_id and, optionally, as_of',
} as const;

const notFor = (resource: string) => ({ type: 'null', description: `not for an export of ${resource}` }) as const;
/** One shape per resource: what it requires, what it may not name, the columns it has. */
const resourceShape = (resource: 'runs' | 'examples') => {
  const other = resource === 'runs' ? 'examples' : 'runs';
  return {
    title: `an export of ${resource}`,
    required: resource === 'runs' ? [...REQUIRED_FIELDS.runs] : ['resource', ...REQUIRED_FIELDS.examples],
    properties: {
      resource: { type: 'string', enum: [resource] },
      ...Object.fromEntries(RESOURCE_FIELDS[other].map((f) => [f, notFor(resource)])),
      export_fields: { type: ['array', 'null'], items: { type: 'string', enum: [...COLUMNS[resource]] } },
    },
  };
};

const exportBody = {
  type: 'object',
  required: ['bulk_export_destination_id'],
  additionalProperties: true,
  properties: {
    bulk_export_destination_id: uuidSchema,
    resource: {
      type: 'string',
      enum: [...EXPORT_RESOURCES],
      description:
        'not in LangSmith’s API: runs (the default): a project’s runs in a time range; examples: a dataset’s examples at one version',
    },
    session_id: { ...uuidSchema, description: 'runs: the project to export' },
    dataset_id: { ...uuidSchema, description: 'examples: the dataset to export' },
    as_of: {
      type: ['string', 'null'],
      maxLength: 1024,
      description:
        'examples: the version, as the examples API reads as_of: an ISO 8601 time (the newest version at or before it), a tag of the dataset, or latest (the default); pinned when the export is created',
    },
    start_time: timeSchema('query', 'runs: inclusive', { nullable: false }),
    end_time: timeSchema('query', 'runs: exclusive; makes a one-time export'),
    interval_hours: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 168,
      description: 'makes a scheduled export, in place of end_time',
    },
    format: { type: 'string', enum: ['Parquet'] },
    format_version: {
      type: 'string',
      enum: [...EXPORT_FORMAT_VERSIONS],
      description: 'v1: naive timestamps (UTC); v2_beta: UTC timezone-aware timestamps',
    },
    compression: {
      type: 'string',
      enum: [...EXPORT_COMPRESSIONS],
      description: 'default: FF_BULK_EXPORT_DEFAULT_COMPRESSION (gzip when unset)',
    },
    export_fields: {
      type: ['array', 'null'],
      items: { type: 'string', enum: [...new Set([...DEFAULT_EXPORT_FIELDS, ...DEFAULT_EXAMPLE_FIELDS])] },
      minItems: 1,
      uniqueItems: true,
      description: 'the columns to write, of the resource’s; default: all',
    },
    filter: {
      type: ['string', 'null'],
      maxLength: 64 * 1024,
      description:
        'runs: only runs that match, in the runs filter language, e.g. and(eq(run_type, "llm"), gt(total_tokens, 100))',
    },
  },
  oneOf: [resourceShape('runs'), resourceShape('examples')],
} as const;

/**
 * What the body's oneOf says, said first and plainly (ajv's own words for a failed oneOf list
 * every branch): a field of the other resource is a 400, a field the resource requires missing
 * or a column it does not have a 422, each naming the field. The form of each field is the schema's.
 */
const checkResourceFields: preValidationAsyncHookHandler = async (request) => {
  const b = request.body as Record<string, unknown> | null | undefined;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return;
  const resource = b.resource ?? 'runs';
  if (resource !== 'runs' && resource !== 'examples')
    throw errors.validation(`body/resource must be equal to one of the allowed values: ${EXPORT_RESOURCES.join(', ')}`);
  const other = resource === 'runs' ? 'examples' : 'runs';
  const misplaced = RESOURCE_FIELDS[other].filter((f) => b[f] !== undefined && b[f] !== null);
  if (misplaced.length > 0)
    throw errors.badRequest(
      `${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} not for an export of ${resource}: ${WHAT[resource]}${resource === 'runs' ? '; an export of examples says "resource": "examples"' : ''}`,
    );
  const missing = REQUIRED_FIELDS[resource].filter((f) => b[f] === undefined);
  if (missing.length > 0) throw errors.invalidField(`${missing.join(' and ')} required: ${WHAT[resource]}`);
  if (Array.isArray(b.export_fields)) {
    const own = new Set<unknown>(COLUMNS[resource]);
    const others = b.export_fields.filter((f) => !own.has(f) && (COLUMNS[other] as readonly unknown[]).includes(f));
    if (others.length > 0)
      throw errors.invalidField(
        `export_fields names columns an export of ${resource} does not have: ${others.slice(0, 10).join(', ')}`,
      );
  }
};

const idParams = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((n) => [n, uuidSchema])),
});

const credentialsOf = (c: Record<string, unknown>): DestinationCredentials => ({
  access_key_id: c.access_key_id as string,
  secret_access_key: c.secret_access_key as string,
  ...(c.session_token ? { session_token: c.session_token as string } : {}),
});

/**
 * The bulk-export context's HTTP surface, a fastify plugin: registered by the API process inside
 * its API-key scope (request.tenantId is set by services/tenancy's requireApiKey).
 */
export const bulkExportRoutes: FastifyPluginAsync<BulkExportRouteOptions> = async (app, deps) => {
  if (deps.storage) requireBlobStore(app, deps.storage);
  const commands = new ExportCommands(
    deps.exports,
    deps.projects,
    deps.eventLog,
    deps.secrets,
    destinationHostPolicy(deps.config),
    deps.datasets ?? null,
  );

  /** Reads see what any replica appended before them; with Kafka away, what this replica has. */
  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await deps.exports
      .catchUp()
      .catch((err: Error) => request.log.warn({ err: err.message }, 'bulk exports served without catching up'));
  };

  const exportOf = (request: FastifyRequest, id: string): BulkExport => {
    const e = deps.exports.export(tenantOf(request), uuid(id, 'export_id'));
    if (!e) throw errors.notFound(`bulk export ${id}`);
    return e;
  };

  const runResponses = (e: BulkExport) => {
    const destination = deps.exports.destination(e.tenantId, e.destinationId);
    const prefix = destination?.prefix ?? '';
    return (run: Parameters<typeof exportRunResponse>[0]) =>
      exportRunResponse(
        run,
        exportRunDirectory(prefix, {
          exportId: e.id,
          tenantId: e.tenantId,
          ...(e.resource === 'examples' ? { datasetId: e.datasetId! } : { sessionId: e.sessionId! }),
          startMicros: run.startTime,
        }),
        prefix,
      );
  };

  // ---- destinations ----

  app.post<{ Body: Record<string, unknown> }>(
    '/bulk-exports/destinations',
    {
      schema: {
        tags,
        summary:
          'Create a destination: a test object is written under <prefix>/tmp/ first (400 with the reason when that fails)',
        body: destinationBody,
        response: { 200: destinationSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const config = b.config as Record<string, unknown>;
      for (const key of Object.keys(config))
        if (!SUPPORTED_CONFIG.has(key) && config[key] != null && config[key] !== false)
          throw errors.badRequest(
            `config.${key} is not supported; give bucket_name, prefix, endpoint_url, region and credentials`,
          );
      const destination = await commands.createDestination(
        tenantOf(request),
        {
          displayName: b.display_name as string,
          bucket: config.bucket_name as string,
          prefix: normalisePrefix((config.prefix as string | undefined) ?? ''),
          endpointUrl: (config.endpoint_url as string | null | undefined) || null,
          region: (config.region as string | null | undefined) || null,
          credentials: credentialsOf(b.credentials as Record<string, unknown>),
        },
        request.log,
      );
      return destinationResponse(destination);
    },
  );

  app.get(
    '/bulk-exports/destinations',
    {
      schema: {
        tags,
        summary: 'List the workspace’s destinations, newest first',
        response: { 200: { type: 'array', items: destinationSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      await upToDate(request);
      return deps.exports.destinations(tenantOf(request)).map(destinationResponse);
    },
  );

  app.get<{ Params: { destination_id: string } }>(
    '/bulk-exports/destinations/:destination_id',
    {
      schema: {
        tags,
        summary: 'Read a destination',
        params: idParams('destination_id'),
        response: { 200: destinationSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await upToDate(request);
      const id = uuid(request.params.destination_id, 'destination_id');
      const d = deps.exports.destination(tenantOf(request), id);
      if (!d) throw errors.notFound(`destination ${id}`);
      return destinationResponse(d);
    },
  );

  app.patch<{ Params: { destination_id: string }; Body: { credentials: Record<string, unknown> } }>(
    '/bulk-exports/destinations/:destination_id',
    {
      schema: {
        tags,
        summary:
          'Rotate a destination’s credentials (after a test write with them); runs already running finish with the old ones',
        params: idParams('destination_id'),
        body: {
          type: 'object',
          required: ['credentials'],
          additionalProperties: false,
          properties: { credentials: credentialsBody },
        },
        response: { 200: destinationSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const id = uuid(request.params.destination_id, 'destination_id');
      return destinationResponse(
        await commands.rotateCredentials(tenantOf(request), id, credentialsOf(request.body.credentials), request.log),
      );
    },
  );

  // ---- exports ----

  app.post<{ Body: Record<string, unknown> }>(
    '/bulk-exports',
    {
      schema: {
        tags,
        summary:
          'Create an export: of a project’s runs, one-time with end_time or scheduled with interval_hours; or, with "resource": "examples", of a dataset’s examples at a version (as_of)',
        body: exportBody,
        response: { 200: exportSchema, ...errorResponses(404, 503) },
      },
      preValidation: checkResourceFields,
    },
    async (request) => {
      const b = request.body;
      if (b.all_experiments) throw errors.badRequest('all_experiments is not supported; give session_id');
      const tenantId = tenantOf(request);
      const common = {
        destinationId: uuid(b.bulk_export_destination_id, 'bulk_export_destination_id'),
        formatVersion: (b.format_version as ExportFormatVersion | undefined) ?? 'v1',
        compression: (b.compression as ExportCompression | undefined) ?? deps.config.FF_BULK_EXPORT_DEFAULT_COMPRESSION,
        exportFields: (b.export_fields as string[] | null | undefined) ?? null,
      };
      if (b.resource === 'examples') {
        const e = await commands.createExport(tenantId, {
          ...common,
          resource: 'examples',
          datasetId: uuid(b.dataset_id, 'dataset_id'),
          asOf: (b.as_of as string | null | undefined) ?? null,
        });
        return exportResponse(e);
      }
      const startTime = time(b.start_time, 'start_time')!;
      const endTime = time(b.end_time, 'end_time');
      const intervalHours = (b.interval_hours as number | null | undefined) ?? null;
      if (endTime !== null && intervalHours !== null)
        throw errors.badRequest('give end_time (a one-time export) or interval_hours (a scheduled export), not both');
      if (endTime === null && intervalHours === null)
        throw errors.badRequest('end_time (a one-time export) or interval_hours (a scheduled export) is required');
      if (endTime !== null && endTime <= startTime) throw errors.badRequest('end_time must be after start_time');
      const { exportFields } = common;
      if (exportFields) {
        const unknown = unknownExportFields(exportFields);
        if (unknown.length)
          throw errors.invalidField(`export_fields has unknown fields: ${unknown.slice(0, 10).join(', ')}`);
        if (new Set(exportFields).size !== exportFields.length)
          throw errors.invalidField('export_fields names a field twice');
      }
      const sessionId = uuid(b.session_id, 'session_id');
      const filter = typeof b.filter === 'string' && b.filter.trim() !== '' ? b.filter : null;
      if (filter !== null) exportFilterCondition(filter, deps.tables, { tenantId, sessionId }); // a 400 naming the problem when invalid
      const e = await commands.createExport(tenantId, {
        ...common,
        sessionId,
        startTime,
        endTime,
        intervalHours,
        filter,
      });
      return exportResponse(e);
    },
  );

  app.get(
    '/bulk-exports',
    {
      schema: {
        tags,
        summary: 'List the workspace’s exports, newest first',
        response: { 200: { type: 'array', items: exportSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      await upToDate(request);
      return deps.exports.exports(tenantOf(request)).map(exportResponse);
    },
  );

  app.get<{ Params: { export_id: string } }>(
    '/bulk-exports/:export_id',
    {
      schema: {
        tags,
        summary: 'Read an export and its status',
        params: idParams('export_id'),
        response: { 200: exportSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await upToDate(request);
      return exportResponse(exportOf(request, request.params.export_id));
    },
  );

  app.patch<{ Params: { export_id: string }; Body: { status: string } }>(
    '/bulk-exports/:export_id',
    {
      schema: {
        tags,
        summary: 'Cancel an export ({"status": "Cancelled"}): final; work in flight stops, finished runs stay',
        params: idParams('export_id'),
        body: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['Cancelled'] } } },
        response: { 200: exportSchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      return exportResponse(
        await commands.cancelExport(tenantOf(request), uuid(request.params.export_id, 'export_id')),
      );
    },
  );

  app.get<{ Params: { export_id: string } }>(
    '/bulk-exports/:export_id/runs',
    {
      schema: {
        tags,
        summary: 'List an export’s runs (one per day partition and window)',
        params: idParams('export_id'),
        response: { 200: { type: 'array', items: exportRunSchema }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await upToDate(request);
      const e = exportOf(request, request.params.export_id);
      return [...e.runs.values()].map(runResponses(e));
    },
  );

  app.get<{ Params: { export_id: string; run_id: string } }>(
    '/bulk-exports/:export_id/runs/:run_id',
    {
      schema: {
        tags,
        summary: 'Read an export run',
        params: idParams('export_id', 'run_id'),
        response: { 200: exportRunSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await upToDate(request);
      const e = exportOf(request, request.params.export_id);
      const run = e.runs.get(uuid(request.params.run_id, 'run_id'));
      if (!run) throw errors.notFound(`export run ${request.params.run_id}`);
      return runResponses(e)(run);
    },
  );
};
