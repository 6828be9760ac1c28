// The projects API (projects are "sessions" on the wire): POST /sessions[?upsert=true],
// GET /sessions, GET/PATCH/DELETE /sessions/{session_id}, and GET /sessions/resolutions (the
// project an address names). Projects live in the projects topic
// (projections/projects/projectRegistry.ts); statistics come from the `traces` read model.
// Bad input is a 422 naming the field; an unknown id, or another workspace's, is a 404.
import {
  errorResponses,
  jsonObjectQuerySchema,
  timeSchema,
  UUID_PATTERN,
  uuidSchema,
} from '../../../platform/http/openapi.ts';
import { toUuid } from '../../../platform/ids.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import { ProjectCommands } from '../projects/projectCommands.ts';
import { matchesFilter, type ProjectFilter } from '../projects/projectFilter.ts';
import { projectResponse, projectSchema } from '../projects/projectResponse.ts';
import { projectStatsQuery } from '../projects/projectStatsQuery.ts';
import type { Project } from '../../../projections/projects/projectRegistry.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { bool, boundedObject, int, jsonObjectQuery, time, uuid } from '../../../platform/http/routeInput.ts';
import type { RouteDeps } from './routeDeps.ts';

const MAX_LIMIT = 100;
/** A project travels in one Kafka message: keep it well below the broker's message size. */
const MAX_EXTRA_BYTES = 256 * 1024;
const MAX_NAME_LENGTH = 1000;
const MAX_DESCRIPTION_LENGTH = 64 * 1024;

// ---- input: every problem is a 422 that names the field ----

/** An address, as the clients' `langsmith.address` module defines one. */
type Address =
  | { kind: 'AGENT'; id: string; environment: string }
  | { kind: 'EXPERIMENT'; id: string }
  | { kind: 'EVALUATOR' };

const AGENT_ID = '[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?';
const KINDS = ['AGENT', 'EXPERIMENT', 'EVALUATOR'];
const ENVIRONMENTS = ['LOCAL', 'DEVELOPMENT', 'STAGING', 'PRODUCTION'];
/** One of `words`, in any case. */
const anyCase = (words: string[]) =>
  `^(?:${words.map((w) => [...w].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('')).join('|')})$`;

/**
 * The address the query names; each part's form is the schema's (a 422 for one that does not
 * fit). Parts that do not make one address of their kind name no project: a 404 saying why.
 */
function addressInput(q: { kind: string; id?: string; environment?: string }): Address {
  const kind = q.kind.toUpperCase();
  const environment = q.environment?.toUpperCase();
  const namesNone = (why: string) => errors.notFound(`a project for this ${kind} address (${why})`);
  const absent = (field: 'id' | 'environment') => {
    if (q[field] !== undefined) throw namesNone(`${field} is not part of an ${kind} address`);
  };
  if (kind === 'AGENT') {
    if (q.id === undefined || !new RegExp(`^${AGENT_ID}$`).test(q.id))
      throw namesNone('an AGENT address has an id of 1 to 63 lowercase letters, digits or hyphens');
    if (environment === undefined) throw namesNone('an AGENT address has an environment');
    return { kind, id: q.id, environment };
  }
  if (kind === 'EXPERIMENT') {
    absent('environment');
    const id = q.id === undefined ? null : toUuid(q.id);
    if (!id) throw namesNone("an EXPERIMENT address has the experiment's UUID as its id");
    return { kind, id };
  }
  absent('id');
  absent('environment');
  return { kind: 'EVALUATOR' };
}

// ---- schemas (validation and the OpenAPI document) ----

const queryText = (description: string) => ({ type: 'string', description });
const queryBool = (description: string) => ({ type: 'boolean', description });
/** Ids, the parameter repeated (`?id=a&id=b`) or given once. */
const uuids = (description: string) => ({ type: 'array', items: uuidSchema, description });

const sessionIdParams = {
  type: 'object',
  required: ['session_id'],
  properties: { session_id: { ...uuidSchema, description: 'UUID of the project' } },
} as const;
const includeStatsQuery = {
  include_stats: queryBool('add run_count, latencies, tokens, costs, error_rate, last_run_start_time'),
};

const createBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: true,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
    description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION_LENGTH },
    extra: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: `metadata goes in extra.metadata; at most ${MAX_EXTRA_BYTES / 1024} KiB`,
    },
    reference_dataset_id: { type: ['string', 'null'], format: 'uuid' },
    id: { type: ['string', 'null'], format: 'uuid', description: 'derived from the name when absent' },
    start_time: timeSchema('stored', 'defaults to now'),
    end_time: timeSchema('stored', 'when the project ended'),
  },
} as const;

const updateBody = {
  type: 'object',
  description: 'null or absent leaves a field as it is',
  additionalProperties: true,
  properties: {
    name: { type: ['string', 'null'], minLength: 1, maxLength: MAX_NAME_LENGTH },
    description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION_LENGTH },
    extra: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: `replaces the whole extra; at most ${MAX_EXTRA_BYTES / 1024} KiB`,
    },
    end_time: timeSchema('stored', 'when the project ended'),
  },
} as const;

interface ListQuery {
  id?: string[];
  name?: string;
  name_contains?: string;
  reference_free?: boolean;
  reference_dataset?: string[];
  metadata?: string;
  offset?: number;
  limit?: number;
  include_stats?: boolean;
}

const listQuery = {
  type: 'object',
  properties: {
    id: uuids('only these project ids'),
    name: queryText('exactly this name (an empty array when there is none)'),
    name_contains: queryText('case-insensitive part of the name'),
    reference_free: queryBool('true: only projects without a reference dataset; false: only with one'),
    reference_dataset: uuids('only experiments against these dataset ids'),
    metadata: jsonObjectQuerySchema('a JSON object; every key must be in extra.metadata with an equal value'),
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `default ${MAX_LIMIT}` },
    ...includeStatsQuery,
  },
} as const;

function listFilter(q: ListQuery): ProjectFilter {
  return {
    ids: q.id?.map((v) => uuid(v, 'id')),
    name: q.name,
    nameContains: q.name_contains === '' ? undefined : q.name_contains,
    referenceFree: bool(q.reference_free, 'reference_free'),
    referenceDatasets: q.reference_dataset?.map((v) => uuid(v, 'reference_dataset')),
    metadata: jsonObjectQuery(q.metadata, 'metadata'),
  };
}

// ---- routes ----

export function sessionRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const commands = new ProjectCommands(deps.projects, deps.eventLog);
  const tags = ['sessions'];

  /** Reads see what any replica appended before them; with Kafka away, what this replica has. */
  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await deps.projects
      .catchUp()
      .catch((err: Error) => request.log.warn({ err: err.message }, 'projects served without catching up'));
  };

  const respond = async (tenantId: string, projects: Project[], includeStats: boolean | undefined) => {
    // One project read by id or by name carries its run_count even without include_stats: the
    // JS client's evaluateComparative() waits on it for experiments it has just run.
    const countOnly = !includeStats && projects.length === 1;
    const stats =
      includeStats || countOnly
        ? await projectStatsQuery(
            deps.ch,
            deps.tables,
            tenantId,
            projects.map((p) => p.id),
          )
        : undefined;
    return projects.map((p) => {
      if (!countOnly) return projectResponse(p, stats?.get(p.id));
      return { ...projectResponse(p, undefined), run_count: stats?.get(p.id)?.run_count ?? 0 };
    });
  };

  app.post<{ Querystring: { upsert?: boolean }; Body: Record<string, unknown> }>(
    '/sessions',
    {
      schema: {
        tags,
        summary: 'Create a project; with upsert=true, a project of that name is updated and returned instead of a 409',
        querystring: {
          type: 'object',
          properties: { upsert: queryBool('update the project of that name if there is one') },
        },
        body: createBody,
        response: { 200: projectSchema, ...errorResponses(409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const project = await commands.create(
        tenantOf(request),
        {
          id: b.id == null ? null : uuid(b.id, 'id'),
          name: b.name as string,
          description: (b.description as string | null | undefined) ?? null,
          extra: boundedObject(b.extra, 'extra', MAX_EXTRA_BYTES),
          referenceDatasetId:
            b.reference_dataset_id == null ? null : uuid(b.reference_dataset_id, 'reference_dataset_id'),
          startTime: time(b.start_time, 'start_time'),
          endTime: time(b.end_time, 'end_time'),
        },
        bool(request.query.upsert, 'upsert') ?? false,
      );
      return projectResponse(project);
    },
  );

  // A static path: the router matches it before /sessions/:session_id, whatever the order.
  app.get<{ Querystring: { kind: string; id?: string; environment?: string } }>(
    '/sessions/resolutions',
    {
      schema: {
        tags,
        summary:
          "The project an address names (the clients' sessions.resolve): EXPERIMENT by its id; AGENT and EVALUATOR addresses name none here (404)",
        description:
          '`kind` and `environment` are matched case-insensitively. An experiment is a project of the workspace with a reference ' +
          'dataset; its address id is the project id. This server does not route traces by agent address, and has no ' +
          "evaluators project, so those addresses are well-formed 404s. Parts of the form of one kind's address given with " +
          'another kind name no project either (404).',
        querystring: {
          type: 'object',
          required: ['kind'],
          properties: {
            kind: {
              type: 'string',
              pattern: anyCase(KINDS),
              description: 'AGENT, EXPERIMENT or EVALUATOR, in any case',
            },
            id: {
              type: 'string',
              pattern: `^(?:${AGENT_ID}|${UUID_PATTERN.source.slice(1, -1)})$`,
              description: "the agent's id (AGENT) or the experiment's UUID (EXPERIMENT); absent for EVALUATOR",
            },
            environment: {
              type: 'string',
              pattern: anyCase(ENVIRONMENTS),
              description: 'LOCAL, DEVELOPMENT, STAGING or PRODUCTION, in any case (AGENT only)',
            },
          },
        },
        response: {
          200: { type: 'object', required: ['session_id'], properties: { session_id: { type: 'string' } } },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const address = addressInput(request.query);
      if (address.kind === 'AGENT')
        throw errors.notFound(`a project for agent "${address.id}" in environment ${address.environment}`);
      if (address.kind === 'EVALUATOR') throw errors.notFound("the workspace's evaluators project");
      await upToDate(request);
      const project = deps.projects.get(tenantId, address.id);
      if (!project?.referenceDatasetId) throw errors.notFound(`experiment ${address.id}`);
      return { session_id: project.id };
    },
  );

  app.get<{ Params: { session_id: string }; Querystring: { include_stats?: boolean } }>(
    '/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Read a project',
        params: sessionIdParams,
        querystring: { type: 'object', properties: includeStatsQuery },
        response: { 200: projectSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const id = uuid(request.params.session_id, 'session_id');
      const includeStats = bool(request.query.include_stats, 'include_stats');
      await upToDate(request);
      const project = deps.projects.get(tenantId, id);
      if (!project) throw errors.notFound(`project ${id}`);
      return (await respond(tenantId, [project], includeStats))[0];
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/sessions',
    {
      schema: {
        tags,
        summary: 'List projects, newest first',
        querystring: listQuery,
        response: { 200: { type: 'array', items: projectSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const q = request.query;
      const filter = listFilter(q);
      const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      const includeStats = bool(q.include_stats, 'include_stats');
      await upToDate(request);
      const page = deps.projects
        .list(tenantId)
        .filter((p) => matchesFilter(p, filter))
        .slice(offset, offset + limit);
      return respond(tenantId, page, includeStats);
    },
  );

  app.patch<{ Params: { session_id: string }; Body: Record<string, unknown> }>(
    '/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Update a project (name, description, extra, end_time)',
        params: sessionIdParams,
        body: updateBody,
        response: { 200: projectSchema, ...errorResponses(404, 409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const project = await commands.update(tenantOf(request), uuid(request.params.session_id, 'session_id'), {
        name: b.name as string | null | undefined,
        description: b.description as string | null | undefined,
        extra: boundedObject(b.extra, 'extra', MAX_EXTRA_BYTES),
        endTime: time(b.end_time, 'end_time'),
      });
      return projectResponse(project);
    },
  );

  app.delete<{ Params: { session_id: string } }>(
    '/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Delete a project; its runs are removed from the read models in the background',
        params: sessionIdParams,
        response: { 202: { type: 'null', description: 'accepted' }, ...errorResponses(404, 503) },
      },
    },
    async (request, reply) => {
      await commands.delete(tenantOf(request), uuid(request.params.session_id, 'session_id'));
      return reply.code(202).send();
    },
  );
}
