// Assistants: the config file's graphs as system assistants (read-only, in every workspace) and
// the workspace's own, created, changed (each change a new version), pinned to a version and
// deleted through the API (assistants/). The auth module's handlers for assistants:* are asked
// before each action, and their filters apply to the assistants' metadata, as on the LangGraph server.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import { errors } from '../../../platform/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import type { ResolvedAssistant } from '../assistants/assistants.ts';
import { ASSISTANT_SORTABLE, versionOf, type AssistantPatch } from '../assistants/assistantStore.ts';
import type { Assistant, RegisteredGraph } from '../graphRegistry.ts';
import { jsonContains, type Json } from '../store/agentRecords.ts';
import { assistantIdParams, assistantSchema, errorResponse, noContent } from './routeSchemas.ts';
import { graphJsonSchemas } from '../graphSchemas.ts';
import { deleteThread } from '../threads/deleteThread.ts';

const SORTABLE = ASSISTANT_SORTABLE;

interface SearchBody {
  metadata?: Record<string, unknown> | null;
  graph_id?: string | null;
  name?: string | null;
  limit: number;
  offset: number;
  sort_by?: (typeof SORTABLE)[number] | null;
  sort_order?: 'asc' | 'desc' | null;
  select?: string[] | null;
}

const searchBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    metadata: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'assistants whose metadata contains this',
    },
    graph_id: { type: ['string', 'null'] },
    name: { type: ['string', 'null'], description: 'assistants whose name contains this (any case)' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    offset: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
    sort_by: { type: ['string', 'null'], enum: [...SORTABLE, null], description: 'default created_at' },
    sort_order: { type: ['string', 'null'], enum: ['asc', 'desc', null], description: 'default desc' },
    select: { type: ['array', 'null'], items: { type: 'string' }, description: 'the fields to answer with' },
  },
} as const;

const notFound = errorResponse('no such assistant (or one the auth module hides)');
const conflict = errorResponse('the assistant exists already, or is a system assistant (read-only)');
const invalid = errorResponse('a field is not valid (named in the message)');

/** A graph id (or system assistant id) the config file does not name: a 422 on the field. */
function unknownGraph(graphId: string, deps: AgentServerDeps) {
  const served = deps.graphs.all().map((g) => `"${g.assistant.graph_id}"`);
  return errors.validation(`graph_id: this server has no graph "${graphId}" (its graphs: ${served.join(', ')})`);
}

const jsonMatches = (value: Json, pattern: Json | null | undefined) => !pattern || jsonContains(value, pattern);

/** `?xray=`: true, false, or a depth. */
function xrayOf(value: string | undefined): boolean | number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  return value.toLowerCase() === 'true';
}

const assistantFields = {
  graph_id: {
    type: 'string',
    minLength: 1,
    description: 'a graph of the config file (its name, or its system assistant’s id)',
  },
  config: {
    type: ['object', 'null'],
    additionalProperties: true,
    properties: {
      tags: { type: 'array', items: { type: 'string' } },
      recursion_limit: { type: 'integer', minimum: 1 },
      configurable: { type: 'object', additionalProperties: true },
    },
    description: 'the config its runs start with (a run’s own configurable keys win)',
  },
  context: { type: ['object', 'null'], additionalProperties: true, description: 'the context its runs start with' },
  metadata: { type: ['object', 'null'], additionalProperties: true },
  name: { type: ['string', 'null'], minLength: 1 },
  description: { type: ['string', 'null'] },
} as const;

interface CreateBody {
  graph_id: string;
  assistant_id?: string | null;
  config?: Json | null;
  context?: Json | null;
  metadata?: Json | null;
  if_exists?: 'raise' | 'do_nothing' | null;
  name?: string | null;
  description?: string | null;
}

const createBody = {
  type: 'object',
  required: ['graph_id'],
  additionalProperties: true,
  properties: {
    ...assistantFields,
    assistant_id: { type: ['string', 'null'], format: 'uuid', description: 'its id (a new UUID when absent)' },
    if_exists: {
      type: ['string', 'null'],
      enum: ['raise', 'do_nothing', null],
      description: 'when the id is taken: raise (409, the default) or return the existing assistant',
    },
  },
} as const;

type PatchBody = Omit<CreateBody, 'graph_id' | 'assistant_id' | 'if_exists'> & { graph_id?: string | null };
const patchBody = {
  type: 'object',
  additionalProperties: true,
  properties: { ...assistantFields, graph_id: { ...assistantFields.graph_id, type: ['string', 'null'] } },
} as const;

interface VersionsBody {
  metadata?: Json | null;
  limit: number;
  offset: number;
}
const versionsBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    metadata: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'versions whose metadata contains this',
    },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    offset: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
  },
} as const;

const versionSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    assistant_id: { type: 'string', format: 'uuid' },
    graph_id: { type: 'string' },
    version: { type: 'integer' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    config: { type: 'object', additionalProperties: true },
    context: { type: 'object', additionalProperties: true },
    metadata: { type: 'object', additionalProperties: true },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const drawableGraph = {
  type: 'object',
  additionalProperties: true,
  properties: {
    nodes: { type: 'array', items: { type: 'object', additionalProperties: true, description: '{id, type, data}' } },
    edges: {
      type: 'array',
      items: { type: 'object', additionalProperties: true, description: '{source, target, conditional?, data?}' },
    },
  },
} as const;

const jsonSchema = (description: string) =>
  ({ type: ['object', 'null'], additionalProperties: true, description }) as const;
const graphSchemas = {
  type: 'object',
  additionalProperties: true,
  properties: {
    graph_id: { type: 'string' },
    input_schema: jsonSchema('JSON schema of the input'),
    output_schema: jsonSchema('JSON schema of the output'),
    state_schema: jsonSchema('JSON schema of the state'),
    config_schema: jsonSchema('JSON schema of the config (null: none declared)'),
    context_schema: jsonSchema('JSON schema of the context (null: none declared)'),
  },
} as const;

export function assistantRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { assistants } = deps;
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['assistants'], summary, ...schema },
  });

  /** One page of what the search matches (system assistants and the workspace's own), and how many match. */
  const matching = async (body: SearchBody, request: FastifyRequest, page: { limit: number; offset: number }) => {
    const scope = await callerOf(request).scope('assistants:search', {
      graph_id: body.graph_id,
      metadata: body.metadata,
      limit: body.limit,
      offset: body.offset,
    });
    return assistants.search(scope.workspaceId, {
      graphId: body.graph_id ?? undefined,
      name: body.name ?? undefined,
      metadata: body.metadata ?? undefined,
      filters: scope.filters,
      sortBy: body.sort_by ?? 'created_at',
      sortOrder: body.sort_order ?? 'desc',
      ...page,
    });
  };

  app.post<{ Body: CreateBody }>(
    '/assistants',
    doc('Create an assistant on a graph of the config file (its version 1)', {
      body: createBody,
      response: { 200: assistantSchema, 404: notFound, 409: conflict, 422: invalid },
    }),
    async (request) => {
      const body = request.body;
      const value = { ...body, metadata: { ...body.metadata } };
      const scope = await callerOf(request).scope('assistants:create', value);
      const graph = deps.graphs.find(body.graph_id);
      if (!graph) throw unknownGraph(body.graph_id, deps);
      const graphId = graph.assistant.graph_id;
      const assistantId = (body.assistant_id ?? uuidv4()).toLowerCase();
      if (deps.graphs.find(assistantId))
        throw errors.conflict(`assistant ${assistantId} is a system assistant (the config file's graph "${graphId}")`);
      const now = new Date().toISOString();
      const assistant: Assistant = {
        assistant_id: assistantId,
        graph_id: graphId,
        name: body.name ?? graphId,
        description: body.description ?? null,
        config: body.config ?? {},
        context: body.context ?? {},
        metadata: value.metadata ?? {},
        version: 1,
        created_at: now,
        updated_at: now,
      };
      const created = await assistants.store.create(scope.workspaceId, assistant);
      if (created) return created;
      if (body.if_exists === 'do_nothing') {
        const existing = await assistants.store.get(scope.workspaceId, assistantId, scope.filters);
        if (existing) return existing;
      }
      throw errors.conflict(`assistant ${assistantId} already exists (if_exists: "do_nothing" returns it instead)`);
    },
  );

  app.post<{ Body: SearchBody }>(
    '/assistants/search',
    doc('Search assistants', { body: searchBody, response: { 200: { type: 'array', items: assistantSchema } } }),
    async (request, reply) => {
      const body = request.body;
      const { assistants: page, total } = await matching(body, request, body);
      reply.header('X-Pagination-Total', String(total));
      if (body.offset + body.limit < total) reply.header('X-Pagination-Next', String(body.offset + body.limit));
      if (!body.select) return page;
      return page.map((a) =>
        Object.fromEntries(body.select!.map((k) => [k, (a as unknown as Record<string, unknown>)[k]])),
      );
    },
  );

  app.post<{ Body: SearchBody }>(
    '/assistants/count',
    doc('Count assistants', { body: searchBody, response: { 200: { type: 'integer' } } }),
    async (request) => (await matching(request.body, request, { limit: 0, offset: 0 })).total,
  );

  type AssistantParams = { Params: { assistant_id: string } };
  /** The assistant, if the caller may read it (as `event` asks), and the scope it was found in. */
  const assistantFor = async (
    request: FastifyRequest<AssistantParams>,
    event: 'assistants:read' | 'assistants:update' | 'assistants:delete',
    value: Json = {},
  ) => {
    const id = request.params.assistant_id;
    const system = deps.graphs.find(id);
    const scope = await callerOf(request).scope(event, {
      ...value,
      assistant_id: system?.assistant.assistant_id ?? id.toLowerCase(),
    } as never);
    const found = await assistants.find(scope.workspaceId, id, scope.filters);
    if (!found) throw errors.notFound(`assistant "${id}"`);
    return { found, scope };
  };
  /** The assistant's graph, which the API describes. */
  const graphOf = ({ assistant, registered }: ResolvedAssistant): RegisteredGraph => {
    if (!registered) throw unknownGraph(assistant.graph_id, deps);
    return registered;
  };
  const readable = async (request: FastifyRequest<AssistantParams>) => {
    const { found } = await assistantFor(request, 'assistants:read');
    return { ...graphOf(found), assistant: found.assistant };
  };
  /** A stored assistant the caller may change: a system assistant is the config file's. */
  const changeable = async (
    request: FastifyRequest<AssistantParams>,
    event: 'assistants:update' | 'assistants:delete',
    value: Json = {},
  ) => {
    const { found, scope } = await assistantFor(request, event, value);
    if (found.system)
      throw errors.conflict(
        `assistant "${request.params.assistant_id}" is a system assistant (the config file's graph "${found.assistant.graph_id}"): it cannot be changed or deleted; create an assistant on its graph instead`,
      );
    return { assistant: found.assistant, scope };
  };
  const withAssistant = { params: assistantIdParams };

  app.get<AssistantParams>(
    '/assistants/:assistant_id',
    doc('An assistant', { ...withAssistant, response: { 200: assistantSchema, 404: notFound } }),
    async (request) => (await assistantFor(request, 'assistants:read')).found.assistant,
  );

  app.patch<AssistantParams & { Body: PatchBody }>(
    '/assistants/:assistant_id',
    doc('Change an assistant: a new version, pinned', {
      ...withAssistant,
      body: patchBody,
      response: { 200: assistantSchema, 404: notFound, 409: conflict, 422: invalid },
    }),
    async (request) => {
      const body = request.body;
      const value = { ...body, ...(body.metadata ? { metadata: { ...body.metadata } } : {}) };
      const { assistant, scope } = await changeable(request, 'assistants:update', value);
      const patch: AssistantPatch = {};
      if (body.graph_id != null) {
        const graph = deps.graphs.find(body.graph_id);
        if (!graph) throw unknownGraph(body.graph_id, deps);
        patch.graph_id = graph.assistant.graph_id;
      }
      if (body.name != null) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      if (body.config != null) patch.config = body.config;
      if (body.context != null) patch.context = body.context;
      if (value.metadata != null) patch.metadata = value.metadata;
      const updated = await assistants.store.update(scope.workspaceId, assistant.assistant_id, patch, scope.filters);
      if (!updated) throw errors.notFound(`assistant "${request.params.assistant_id}"`);
      return updated;
    },
  );

  app.delete<AssistantParams & { Querystring: { delete_threads?: boolean } }>(
    '/assistants/:assistant_id',
    doc('Delete an assistant (and, with delete_threads, the threads it ran on)', {
      ...withAssistant,
      querystring: {
        type: 'object',
        properties: {
          delete_threads: {
            type: 'boolean',
            description:
              'also delete the threads whose metadata.assistant_id is this assistant, with their runs and checkpoints',
          },
        },
      },
      response: { 204: noContent, 404: notFound, 409: conflict },
    }),
    async (request, reply) => {
      const { assistant, scope } = await changeable(request, 'assistants:delete');
      if (request.query.delete_threads) await deleteThreadsOf(request, assistant.assistant_id);
      if (!(await assistants.store.delete(scope.workspaceId, assistant.assistant_id, scope.filters)))
        throw errors.notFound(`assistant "${request.params.assistant_id}"`);
      return reply.code(204).send();
    },
  );

  /** Deletes the caller's threads an assistant ran on, as DELETE /threads/{id} does. */
  const deleteThreadsOf = async (request: FastifyRequest, assistantId: string) => {
    const metadata = { assistant_id: assistantId };
    const scope = await callerOf(request).scope('threads:search', { metadata, limit: 100, offset: 0 });
    for (;;) {
      const { threads } = await deps.store.searchThreads(scope, {
        metadata,
        limit: 100,
        offset: 0,
        sortBy: 'created_at',
        sortOrder: 'asc',
      });
      if (threads.length === 0) return;
      for (const thread of threads) {
        await deleteThread(deps, scope, { workspaceId: scope.workspaceId, threadId: thread.thread_id });
      }
    }
  };

  app.post<AssistantParams & { Body: VersionsBody }>(
    '/assistants/:assistant_id/versions',
    doc('An assistant’s versions, newest first', {
      ...withAssistant,
      body: versionsBody,
      response: { 200: { type: 'array', items: versionSchema }, 404: notFound },
    }),
    async (request) => {
      const { found, scope } = await assistantFor(request, 'assistants:read');
      const { metadata, limit, offset } = request.body;
      if (found.system)
        return offset === 0 && jsonMatches(found.assistant.metadata, metadata) ? [versionOf(found.assistant)] : [];
      const versions = await assistants.store.versions(scope.workspaceId, found.assistant.assistant_id, {
        metadata: metadata ?? undefined,
        limit,
        offset,
        filters: scope.filters,
      });
      if (!versions) throw errors.notFound(`assistant "${request.params.assistant_id}"`);
      return versions;
    },
  );

  app.post<AssistantParams & { Body: { version: number } }>(
    '/assistants/:assistant_id/latest',
    doc('Pin one of an assistant’s versions: runs use it from now on', {
      ...withAssistant,
      body: {
        type: 'object',
        required: ['version'],
        properties: { version: { type: 'integer', minimum: 1, description: 'the version to pin' } },
      },
      response: { 200: assistantSchema, 404: notFound, 409: conflict },
    }),
    async (request) => {
      const { version } = request.body;
      const { assistant, scope } = await changeable(request, 'assistants:update', { version });
      const pinned = await assistants.store.setLatest(
        scope.workspaceId,
        assistant.assistant_id,
        version,
        scope.filters,
      );
      if (pinned === 'no-version')
        throw errors.notFound(`version ${version} of assistant "${request.params.assistant_id}"`);
      if (!pinned) throw errors.notFound(`assistant "${request.params.assistant_id}"`);
      return pinned;
    },
  );

  app.get<AssistantParams & { Querystring: { xray?: string } }>(
    '/assistants/:assistant_id/graph',
    doc('The assistant’s graph, drawable (nodes and edges)', {
      ...withAssistant,
      querystring: {
        type: 'object',
        properties: {
          xray: {
            type: 'string',
            pattern: '^(true|false|True|False|[0-9]+)$',
            description: 'draw subgraphs inside their nodes: true, or how many levels deep',
          },
        },
      },
      response: { 200: drawableGraph, 404: notFound },
    }),
    async (request) => {
      const { graph } = await readable(request);
      const xray = xrayOf(request.query.xray);
      const drawable = await graph.getGraphAsync?.(xray === undefined ? undefined : { xray });
      return drawable?.toJSON() ?? {};
    },
  );

  type SubgraphParams = { Params: { assistant_id: string; namespace?: string }; Querystring: { recurse?: boolean } };
  const subgraphs = async (request: FastifyRequest<SubgraphParams>) => {
    const { graph } = await readable(request as FastifyRequest<AssistantParams>);
    const recurse = request.query.recurse === true;
    const found: Record<string, unknown> = {};
    for await (const [namespace, subgraph] of graph.getSubgraphsAsync?.(request.params.namespace, recurse) ?? [])
      found[namespace] = graphJsonSchemas(subgraph);
    return found;
  };
  const subgraphsDoc = (withNamespace: boolean) =>
    doc(
      withNamespace
        ? 'The schemas of the assistant’s subgraphs under a namespace'
        : 'The schemas of the assistant’s subgraphs',
      {
        params: withNamespace
          ? {
              ...assistantIdParams,
              required: ['assistant_id', 'namespace'],
              properties: {
                ...assistantIdParams.properties,
                namespace: {
                  type: 'string',
                  minLength: 1,
                  description: 'a subgraph’s namespace (its node’s name), e.g. "parent|child"',
                },
              },
            }
          : assistantIdParams,
        querystring: {
          type: 'object',
          properties: {
            recurse: { type: 'boolean', description: 'also their subgraphs' },
          },
        },
        response: { 200: { type: 'object', additionalProperties: graphSchemas }, 404: notFound },
      },
    );
  app.get<SubgraphParams>('/assistants/:assistant_id/subgraphs', subgraphsDoc(false), subgraphs);
  app.get<SubgraphParams>('/assistants/:assistant_id/subgraphs/:namespace', subgraphsDoc(true), subgraphs);

  app.get<AssistantParams>(
    '/assistants/:assistant_id/schemas',
    doc('The assistant’s input, output and state schemas', {
      ...withAssistant,
      response: { 200: graphSchemas, 404: notFound },
    }),
    async (request) => {
      const { assistant, graph } = await readable(request);
      return { graph_id: assistant.graph_id, ...graphJsonSchemas(graph) };
    },
  );
}
