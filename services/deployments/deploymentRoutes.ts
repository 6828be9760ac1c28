// The control plane's API under /v2/deployments: create, list, read, patch and delete
// deployments; list and read their revisions, redeploy one; a presigned URL to upload an
// internal_source deployment's tarball. Writes are commands appended to the deployments topic
// (deploymentCommands.ts); reads answer from its fold. Invalid input is a 422 in FastAPI's shape
// (validationDetail.ts), an unknown id a 404 naming it, another workspace's ids 404s too.
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../platform/blobStore.ts';
import { blobStoreReadiness } from '../../platform/blobStoreReadiness.ts';
import { errorResponses, timeSchema } from '../../platform/http/openapi.ts';
import { parseTimestampMicros } from '../../platform/time.ts';
import { errors } from '../../platform/errors.ts';
import { toUuid } from '../../platform/ids.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import { tenantOf } from '../tenancy/index.ts';
import { DeploymentCommands, type DeploymentPatch } from './deploymentCommands.ts';
import {
  deploymentResponse,
  deploymentSchema,
  pageSchema,
  revisionResponse,
  revisionSchema,
} from './deploymentResponse.ts';
import type { Deployment, DeploymentState } from './deploymentState.ts';
import {
  DEPLOYMENT_SOURCES,
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  REVISION_STATUSES,
  type DeploymentSecret,
} from './deploymentTypes.ts';
import { reservedEnvProblem } from './reservedEnvNames.ts';
import type { LogKind, LogQuery, RevisionLogs } from './revisionLogs.ts';
import type { SourceLocationPolicy } from './sourceLocations.ts';
import { newUploadObjectPath, UPLOAD_URL_EXPIRES_SECONDS } from './sourceUploads.ts';
import {
  httpValidationErrorSchema,
  queryBool,
  queryInt,
  RequestValidationError,
  validationErrorOf,
  type ValidationDetail,
} from './validationDetail.ts';

/** What the deployment routes are given by the process that serves them. */
export interface DeploymentRouteOptions {
  eventLog: EventLog;
  /** The fold of the deployments topic. */
  deployments: DeploymentState;
  /** Encrypts deployment secrets; null when SECRETS_ENCRYPTION_KEY is unset (then only deployments without secrets). */
  secrets: SecretBox | null;
  /** The control plane's base URL as clients reach it: deployments' URLs (custom_url) start with it. */
  publicUrl: string;
  /** The object store internal_source tarballs are uploaded to (its payload bucket). */
  objects: BlobStore;
  /** Where github deployments may build from (a 400 for a repo_url elsewhere). */
  sources?: SourceLocationPolicy;
  /** The revisions' build and deploy logs (written by the deployment worker). */
  logs?: RevisionLogs;
}

const tags = ['deployments'];
const uuid = { type: 'string', format: 'uuid' } as const;
const nullableString = (maxLength: number, description?: string) => ({
  type: ['string', 'null'],
  maxLength,
  ...(description ? { description } : {}),
});

const sourceConfigBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  description:
    'settings that make no revision (but resource_spec); integration_id, repo_url, deployment_type and listener_* are fixed at creation',
  properties: {
    integration_id: { type: ['string', 'null'], format: 'uuid' },
    repo_url: nullableString(2048),
    deployment_type: { type: ['string', 'null'], enum: [...DEPLOYMENT_TYPES, null] },
    build_on_push: { type: ['boolean', 'null'] },
    custom_url: nullableString(2048, 'the agent server’s URL'),
    resource_spec: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'replicas, sizing, Kubernetes settings; a change makes a revision',
    },
    listener_id: { type: ['string', 'null'], format: 'uuid' },
    listener_config: { type: ['object', 'null'], additionalProperties: true },
    install_command: nullableString(4096),
    build_command: nullableString(4096),
  },
} as const;

const sourceRevisionConfigBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'any non-null field makes a new revision',
  properties: {
    repo_ref: nullableString(1024, 'a branch, or a full tag ref (refs/tags/v1.0.0)'),
    langgraph_config_path: nullableString(1024, 'e.g. langgraph.json'),
    image_uri: nullableString(2048),
    source_tarball_path: nullableString(
      2048,
      'internal_source: the object_path POST …/upload-url returned, once the tarball is PUT there',
    ),
    repo_commit_sha: nullableString(64, 'read-only (the commit a github revision was built from): ignored when sent'),
  },
} as const;

const secretsBody = {
  type: 'array',
  maxItems: 200,
  description:
    'environment variables of the agent server; write-only (responses mask the values). Send a value back masked to keep it.',
  items: {
    type: 'object',
    required: ['name', 'value'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 256 },
      value: { type: 'string', maxLength: 64 * 1024 },
    },
  },
} as const;

const createBody = {
  type: 'object',
  required: ['name', 'source', 'source_config', 'source_revision_config', 'secrets'],
  additionalProperties: true,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      pattern: '^[A-Za-z][A-Za-z0-9-]*$',
      description: 'letters, digits and dashes, starting with a letter; cannot change',
    },
    source: { type: 'string', enum: [...DEPLOYMENT_SOURCES], description: 'cannot change' },
    source_config: sourceConfigBody,
    source_revision_config: sourceRevisionConfigBody,
    secrets: secretsBody,
  },
} as const;

const patchBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    source_config: sourceConfigBody,
    source_revision_config: sourceRevisionConfigBody,
    secrets: {
      ...secretsBody,
      type: ['array', 'null'],
      description: 'replaces the list (a new revision); null keeps it',
    },
    revision_source: {
      type: ['string', 'null'],
      enum: ['github', 'internal_docker', 'internal_source', null],
      description: 'the source of this revision only',
    },
  },
} as const;

const uploadUrlSchema = {
  type: 'object',
  required: ['upload_url', 'object_path'],
  additionalProperties: false,
  properties: {
    upload_url: {
      type: 'string',
      description: `PUT the source .tar.gz here (any Content-Type), within ${UPLOAD_URL_EXPIRES_SECONDS} s`,
    },
    object_path: {
      type: 'string',
      description: 'then PATCH the deployment with source_revision_config.source_tarball_path = this',
    },
  },
} as const;

const deploymentParams = { type: 'object', required: ['deployment_id'], properties: { deployment_id: uuid } } as const;
const revisionParams = {
  type: 'object',
  required: ['deployment_id', 'revision_id'],
  properties: { deployment_id: uuid, revision_id: uuid },
} as const;

const pageQuery = {
  limit: { type: 'integer', minimum: 1, maximum: 100, description: 'default 20' },
  offset: {
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'default 0: the offset a previous page returned',
  },
} as const;

/** A comma-separated list of `item`s (blanks around and between them ignored), as FastAPI services take lists in one parameter. */
const commaSeparated = (item: string) => `^[ \\t]*(?:(?:${item})[ \\t]*)?(?:,[ \\t]*(?:(?:${item})[ \\t]*)?)*$`;
const UUID_TEXT = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32}';

const listQuery = {
  type: 'object',
  properties: {
    ...pageQuery,
    name_contains: { type: 'string', maxLength: 256 },
    status: { type: 'string', enum: [...DEPLOYMENT_STATUSES] },
    deployment_type: { type: 'string', enum: [...DEPLOYMENT_TYPES] },
    deployment_ids: { type: 'string', pattern: commaSeparated(UUID_TEXT), description: 'comma-separated UUIDs' },
    image_version: { type: 'string', description: 'no deployment reports one yet: matches none' },
  },
} as const;

const revisionsQuery = {
  type: 'object',
  properties: {
    ...pageQuery,
    status: {
      type: 'string',
      pattern: commaSeparated(REVISION_STATUSES.join('|')),
      description: `comma-separated revision statuses: ${REVISION_STATUSES.join(', ')}`,
    },
  },
} as const;

const deleteQuery = {
  type: 'object',
  properties: {
    delete_tracing_project: {
      type: 'boolean',
      description: 'default false: also delete the deployment’s tracing project',
    },
    force: {
      type: 'boolean',
      description:
        'default false: remove the control-plane record of a deployment already AWAITING_DELETE, skipping cleanup (400 otherwise)',
    },
  },
} as const;

/** An integer of a query (read as one: platform/http/queryParameters.ts), or of a body, where a string of digits is one too. */
const digits = (where: 'body' | 'query') =>
  ({ type: where === 'query' ? 'integer' : ['integer', 'string', 'null'] }) as const;
/**
 * The filters of a log request, as the body of a POST (`where: 'body'`: times also as epoch
 * milliseconds; limit and offset also as strings of digits: the CLIs send back next_offset, a
 * string, as offset) or the query of a GET.
 */
const logFilters = (where: 'body' | 'query') =>
  ({
    limit: {
      ...digits(where),
      minimum: 1,
      maximum: 1000,
      pattern: '^(?:[1-9]\\d{0,2}|1000)?$',
      description: 'entries per page, 1-1000 (default 100)',
    },
    order: { type: 'string', enum: ['asc', 'desc'], description: 'asc: oldest first; desc (default): newest first' },
    offset: {
      ...digits(where),
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      pattern: '^\\d{0,15}$',
      description: 'the next_offset of the previous page',
    },
    level: { type: ['string', 'null'], description: 'this level and above: DEBUG, INFO, WARNING, ERROR, CRITICAL' },
    query: {
      type: ['string', 'null'],
      maxLength: 1024,
      description: 'entries whose message contains this text (any case)',
    },
    start_time: timeSchema('query', 'entries at or after it', { text: where === 'query' }),
    end_time: timeSchema('query', 'entries at or before it', { text: where === 'query' }),
  }) as const;
const logsBody = { type: ['object', 'null'], additionalProperties: true, properties: logFilters('body') } as const;
const logsQuery = { type: 'object', properties: logFilters('query') } as const;
const logProjectParams = { type: 'object', required: ['project_id'], properties: { project_id: uuid } } as const;
const logRevisionParams = {
  type: 'object',
  required: ['project_id', 'revision_id'],
  properties: { project_id: uuid, revision_id: uuid },
} as const;
const logsSchema = {
  type: 'object',
  required: ['logs', 'next_offset'],
  additionalProperties: false,
  properties: {
    logs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'timestamp', 'level', 'message'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          timestamp: { type: 'integer', description: 'milliseconds since the epoch' },
          level: { type: 'string', enum: ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] },
          message: { type: 'string' },
        },
      },
    },
    next_offset: {
      type: ['string', 'null'],
      description: 'send it back as offset for the next page; null when there is no more (order desc)',
    },
  },
} as const;

/** The filters of a log request (the body of a POST, the query of a GET); a 422 naming a bad one. */
function logQuery(filters: Record<string, unknown>, where: 'body' | 'query'): LogQuery {
  const invalid = (name: string, msg: string, input: unknown) =>
    new RequestValidationError([{ loc: [where, name], msg, type: 'value_error', input }]);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const value = filters[name];
    if (value === undefined || value === null || value === '') return fallback;
    const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw invalid(name, `Input should be an integer from ${min} to ${max}`, value);
    return n;
  };
  const time = (name: string): number | undefined => {
    const value = filters[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'number') return value;
    try {
      return Math.floor(parseTimestampMicros(String(value), name)! / 1000);
    } catch {
      throw invalid(name, 'Input should be an ISO 8601 date-time', value);
    }
  };
  const order = filters.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalid('order', "Input should be 'asc' or 'desc'", order);
  const text = (name: string) =>
    typeof filters[name] === 'string' && filters[name] !== '' ? (filters[name] as string) : undefined;
  return {
    limit: int('limit', 100, 1, 1000),
    order,
    offset: int('offset', 0, 0, Number.MAX_SAFE_INTEGER),
    level: text('level'),
    query: text('query'),
    startTime: time('start_time'),
    endTime: time('end_time'),
  };
}

const responses = (ok: Record<number, unknown>, ...statuses: number[]) => ({
  ...ok,
  ...errorResponses(...statuses),
  422: httpValidationErrorSchema,
});

type Query = Record<string, string | number | boolean | undefined>;

const notFound = (id: string) => errors.notFound(`Deployment ID ${id}`);

/** Secrets named like a variable the platform sets (reservedEnvNames.ts): a 422 naming each. */
function refuseReservedNames(secrets: unknown): void {
  const detail: ValidationDetail[] = [];
  for (const [i, secret] of ((secrets as DeploymentSecret[] | null | undefined) ?? []).entries()) {
    const problem = reservedEnvProblem(secret.name);
    if (problem)
      detail.push({
        loc: ['body', 'secrets', i, 'name'],
        msg: `Value error, ${problem}`,
        type: 'value_error',
        input: secret.name,
        ctx: { error: problem },
      });
  }
  if (detail.length > 0) throw new RequestValidationError(detail);
}

/**
 * The control plane's HTTP surface, a fastify plugin: registered by the control-plane process
 * inside its API-key scope (request.tenantId is set by services/tenancy's requireApiKey).
 */
export const deploymentRoutes: FastifyPluginAsync<DeploymentRouteOptions> = async (app, deps) => {
  const commands = new DeploymentCommands(deps.deployments, deps.eventLog, deps.secrets, deps.sources ?? null);
  const respond = (d: Deployment) => deploymentResponse(d, deps.publicUrl);

  // 422s in FastAPI's shape; everything else goes on to the server's handler (its `{error, detail}`).
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const invalid = validationErrorOf(err, request);
    if (!invalid) throw err;
    return reply.code(422).send({ detail: invalid.detail });
  });

  /** Reads see what any replica appended before them; with Kafka away, what this replica has. */
  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await deps.deployments
      .catchUp()
      .catch((err: Error) => request.log.warn({ err: err.message }, 'deployments served without catching up'));
  };

  const deploymentOf = (request: FastifyRequest, id: string): Deployment => {
    const d = deps.deployments.deployment(tenantOf(request), toUuid(id)!);
    if (!d) throw notFound(id);
    return d;
  };

  const page = <T>(items: T[], query: Query) => {
    const limit = queryInt(query, 'limit', 20, 1, 100);
    const offset = queryInt(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const resources = items.slice(offset, offset + limit);
    return { resources, offset: offset + resources.length };
  };

  app.post<{ Body: Record<string, unknown> }>(
    '/v2/deployments',
    {
      schema: {
        tags,
        summary: 'Create a deployment and its first revision (QUEUED for the deployer)',
        body: createBody,
        response: responses({ 201: deploymentSchema }, 400, 409),
      },
    },
    async (request, reply) => {
      const b = request.body;
      refuseReservedNames(b.secrets);
      const d = await commands.create(tenantOf(request), {
        name: b.name as string,
        source: b.source as string,
        sourceConfig: Object.fromEntries(
          Object.entries((b.source_config as Record<string, unknown> | null) ?? {}).filter(([, v]) => v !== undefined),
        ),
        sourceRevisionConfig: (b.source_revision_config as Record<string, unknown> | null) ?? {},
        secrets: b.secrets as DeploymentSecret[],
      });
      return reply.code(201).send(respond(d));
    },
  );

  app.get<{ Querystring: Query }>(
    '/v2/deployments',
    {
      schema: {
        tags,
        summary: 'The workspace’s deployments, newest first',
        querystring: listQuery,
        response: responses({ 200: pageSchema(deploymentSchema) }),
      },
    },
    async (request) => {
      const q = request.query;
      let ids: Set<string> | null = null;
      if (q.deployment_ids !== undefined) {
        ids = new Set();
        for (const text of String(q.deployment_ids)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const id = toUuid(text);
          if (!id)
            throw new RequestValidationError([
              {
                loc: ['query', 'deployment_ids'],
                msg: 'Input should be a valid UUID',
                type: 'uuid_parsing',
                input: text,
              },
            ]);
          ids.add(id);
        }
      }
      await upToDate(request);
      const nameContains = (q.name_contains as string | undefined)?.toLowerCase();
      const matches = deps.deployments
        .deployments(tenantOf(request))
        .filter(
          (d) =>
            (nameContains === undefined || d.name.toLowerCase().includes(nameContains)) &&
            (q.status === undefined || d.status === q.status) &&
            (q.deployment_type === undefined || d.sourceConfig.deployment_type === q.deployment_type) &&
            (ids === null || ids.has(d.id)) &&
            q.image_version === undefined,
        );
      const { resources, offset } = page(matches, q);
      return { resources: resources.map(respond), offset };
    },
  );

  app.get<{ Params: { deployment_id: string } }>(
    '/v2/deployments/:deployment_id',
    {
      schema: {
        tags,
        summary: 'A deployment',
        params: deploymentParams,
        response: responses({ 200: deploymentSchema }, 404),
      },
    },
    async (request) => {
      await upToDate(request);
      return respond(deploymentOf(request, request.params.deployment_id));
    },
  );

  app.patch<{ Params: { deployment_id: string }; Body: Record<string, unknown> }>(
    '/v2/deployments/:deployment_id',
    {
      schema: {
        tags,
        summary:
          'Change a deployment: a new revision when source_revision_config, secrets or source_config.resource_spec is given (400 once AWAITING_DELETE)',
        params: deploymentParams,
        body: patchBody,
        response: responses({ 200: deploymentSchema }, 400, 404),
      },
    },
    async (request) => {
      const b = request.body;
      refuseReservedNames(b.secrets);
      const patch: DeploymentPatch = {
        sourceConfig: (b.source_config as Record<string, unknown> | null | undefined) ?? null,
        sourceRevisionConfig: (b.source_revision_config as Record<string, unknown> | null | undefined) ?? null,
        secrets: (b.secrets as DeploymentSecret[] | null | undefined) ?? null,
        revisionSource: (b.revision_source as string | null | undefined) ?? null,
      };
      return respond(await commands.patch(tenantOf(request), toUuid(request.params.deployment_id)!, patch));
    },
  );

  app.delete<{ Params: { deployment_id: string }; Querystring: Query }>(
    '/v2/deployments/:deployment_id',
    {
      schema: {
        tags,
        summary:
          'Delete a deployment: a soft delete (AWAITING_DELETE); with force=true, remove one already AWAITING_DELETE (400 otherwise)',
        params: deploymentParams,
        querystring: deleteQuery,
        response: responses({ 204: { description: 'deleted', type: 'null' } }, 400, 404),
      },
    },
    async (request, reply) => {
      const force = queryBool(request.query, 'force', false);
      const deleteTracingProject = queryBool(request.query, 'delete_tracing_project', false);
      const id = toUuid(request.params.deployment_id)!;
      if (force) await commands.forceDelete(tenantOf(request), id);
      else await commands.softDelete(tenantOf(request), id, deleteTracingProject);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { deployment_id: string }; Querystring: Query }>(
    '/v2/deployments/:deployment_id/revisions',
    {
      schema: {
        tags,
        summary: 'A deployment’s revisions, newest first',
        params: deploymentParams,
        querystring: revisionsQuery,
        response: responses({ 200: pageSchema(revisionSchema) }, 404),
      },
    },
    async (request) => {
      const statuses = (request.query.status as string | undefined)
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const s of statuses ?? [])
        if (!(REVISION_STATUSES as readonly string[]).includes(s)) {
          const expected = REVISION_STATUSES.map((x) => `'${x}'`).join(', ');
          throw new RequestValidationError([
            {
              loc: ['query', 'status'],
              msg: `Input should be one of ${expected}`,
              type: 'enum',
              input: s,
              ctx: { expected },
            },
          ]);
        }
      await upToDate(request);
      const d = deploymentOf(request, request.params.deployment_id);
      const { resources, offset } = page(
        d.revisions.filter((r) => !statuses?.length || statuses.includes(r.status)),
        request.query,
      );
      return { resources: resources.map(revisionResponse), offset };
    },
  );

  app.get<{ Params: { deployment_id: string; revision_id: string } }>(
    '/v2/deployments/:deployment_id/revisions/:revision_id',
    {
      schema: {
        tags,
        summary: 'A revision: poll it until its status is DEPLOYED or *_FAILED',
        params: revisionParams,
        response: responses({ 200: revisionSchema }, 404),
      },
    },
    async (request) => {
      await upToDate(request);
      const d = deploymentOf(request, request.params.deployment_id);
      const revisionId = toUuid(request.params.revision_id)!;
      const r = d.revisions.find((x) => x.id === revisionId);
      if (!r) throw errors.notFound(`Revision ID ${request.params.revision_id} of deployment ${d.id}`);
      return revisionResponse(r);
    },
  );

  app.post<{ Params: { deployment_id: string; revision_id: string } }>(
    '/v2/deployments/:deployment_id/revisions/:revision_id/redeploy',
    {
      schema: {
        tags,
        summary:
          'Deploy a revision that was DEPLOYED again (a rollback): a new revision with its source_revision_config ' +
          'and secrets, rolled out like a PATCH; latest_revision_id is the new one ' +
          '(400 for a revision never DEPLOYED, or once AWAITING_DELETE)',
        params: revisionParams,
        response: responses({ 200: deploymentSchema }, 400, 404),
      },
    },
    async (request) => {
      const { deployment_id: deploymentId, revision_id: revisionId } = request.params;
      return respond(await commands.redeploy(tenantOf(request), toUuid(deploymentId)!, toUuid(revisionId)!));
    },
  );

  /**
   * The bucket, made when the first upload URL or log is asked for: the control plane starts without the object
   * store (a first `npm start` builds it meanwhile); until then those routes answer 503 with Retry-After.
   */
  const ensureBucket = blobStoreReadiness(deps.objects, 'source uploads and revision logs');

  app.post<{ Params: { deployment_id: string } }>(
    '/v2/deployments/:deployment_id/upload-url',
    {
      schema: {
        tags,
        summary:
          'A presigned URL to PUT an internal_source deployment’s source tarball ' +
          '(.tar.gz of the directory holding langgraph.json, ' +
          'at most 200 MiB), and its object_path for the PATCH that deploys it (400 for other sources)',
        params: deploymentParams,
        response: responses({ 200: uploadUrlSchema }, 400, 404, 503),
      },
    },
    async (request) => {
      await upToDate(request);
      const d = deploymentOf(request, request.params.deployment_id);
      if (d.source !== 'internal_source')
        throw errors.badRequest(
          `upload-url is only available for 'internal_source' source deployments; Deployment ID ${d.id} is a ${d.source} deployment`,
        );
      if (d.status === 'AWAITING_DELETE')
        throw errors.badRequest(`Deployment ID ${d.id} is AWAITING_DELETE (soft-deleted): it takes no new source`);
      await ensureBucket();
      const objectPath = newUploadObjectPath(d.tenantId, d.id);
      const uploadUrl = await deps.objects.presignedPutUrl(objectPath, UPLOAD_URL_EXPIRES_SECONDS);
      return { upload_url: uploadUrl, object_path: objectPath };
    },
  );

  // ---- logs, as both `langgraph deploy` CLIs read them (POST with filters in the body; GET with them in the query) ----

  const logsOf = async (
    request: FastifyRequest<{
      Params: { project_id: string; revision_id?: string };
      Body?: Record<string, unknown> | null;
      Querystring: Query;
    }>,
    kind: LogKind,
  ) => {
    const filters = request.method === 'GET' ? request.query : (request.body ?? {});
    const where = request.method === 'GET' ? 'query' : 'body';
    const q = logQuery(filters, where);
    await upToDate(request);
    const d = deploymentOf(request, request.params.project_id);
    const wanted = request.params.revision_id === undefined ? null : toUuid(request.params.revision_id)!;
    // Without a revision: the one serving, else the newest.
    const r =
      wanted === null
        ? (d.revisions.find((x) => x.id === d.activeRevisionId) ?? d.revisions[0])
        : d.revisions.find((x) => x.id === wanted);
    if (!r) {
      if (wanted === null) return { logs: [], next_offset: null };
      throw errors.notFound(`Revision ID ${request.params.revision_id} of deployment ${d.id}`);
    }
    if (!deps.logs) throw errors.notConfigured('this control plane keeps no revision logs');
    await ensureBucket();
    return deps.logs.read({ tenantId: d.tenantId, deploymentId: d.id, revisionId: r.id }, kind, q);
  };
  const logRoutes: [string, LogKind, string][] = [
    [
      '/v1/projects/:project_id/revisions/:revision_id/build_logs',
      'build',
      'A revision’s build log: what the deployer did and what git, the install and the build commands wrote',
    ],
    [
      '/v1/projects/:project_id/revisions/:revision_id/deploy_logs',
      'deploy',
      'A revision’s deploy log: what its agent server wrote',
    ],
    [
      '/v1/projects/:project_id/deploy_logs',
      'deploy',
      'The deploy log of the revision serving the deployment (else its newest)',
    ],
  ];
  for (const [url, kind, summary] of logRoutes) {
    const params = url.includes(':revision_id') ? logRevisionParams : logProjectParams;
    const response = responses({ 200: logsSchema }, 404, 503);
    app.post(url, { schema: { tags, summary, params, body: logsBody, response } }, (request) =>
      logsOf(request as never, kind),
    );
    app.get(url, { schema: { tags, summary, params, querystring: logsQuery, response } }, (request) =>
      logsOf(request as never, kind),
    );
  }
};
