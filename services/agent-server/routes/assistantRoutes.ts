// Assistants: one per graph in the config file (system assistants), read-only. The auth module's
// filters for assistants:read and assistants:search apply to their metadata, as on the LangGraph server.
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { isAuthMatching } from '../auth/authFilters.ts';
import { callerOf } from '../auth/callers.ts';
import type { Assistant } from '../graphRegistry.ts';
import { jsonContains } from '../store/agentRecords.ts';
import { assistantIdParams, assistantSchema, errorResponse } from './routeSchemas.ts';

const SORTABLE = ['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at'] as const;

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
    offset: { type: 'integer', minimum: 0, default: 0 },
    sort_by: { type: ['string', 'null'], enum: [...SORTABLE, null], description: 'default created_at' },
    sort_order: { type: ['string', 'null'], enum: ['asc', 'desc', null], description: 'default desc' },
    select: { type: ['array', 'null'], items: { type: 'string' }, description: 'the fields to answer with' },
  },
} as const;

const notFound = errorResponse('no such assistant (or one the auth module hides)');

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
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['assistants'], summary, ...schema },
  });

  const matching = async (request: { body: SearchBody }, caller: ReturnType<typeof callerOf>): Promise<Assistant[]> => {
    const body = request.body;
    const scope = await caller.scope('assistants:search', {
      graph_id: body.graph_id,
      metadata: body.metadata,
      limit: body.limit,
      offset: body.offset,
    });
    return deps.graphs
      .all()
      .map((g) => g.assistant)
      .filter(
        (a) =>
          isAuthMatching(a.metadata, scope.filters) &&
          (!body.graph_id || a.graph_id === body.graph_id) &&
          (!body.name || a.name.toLowerCase().includes(body.name.toLowerCase())) &&
          (!body.metadata || jsonContains(a.metadata, body.metadata)),
      );
  };

  app.post<{ Body: SearchBody }>(
    '/assistants/search',
    doc('Search assistants', { body: searchBody, response: { 200: { type: 'array', items: assistantSchema } } }),
    async (request, reply) => {
      const body = request.body;
      const all = await matching(request, callerOf(request));
      const key = body.sort_by ?? 'created_at';
      const sign = body.sort_order === 'asc' ? 1 : -1;
      all.sort((a, b) => (a[key] < b[key] ? -sign : a[key] > b[key] ? sign : 0));
      const page = all.slice(body.offset, body.offset + body.limit);
      reply.header('X-Pagination-Total', String(all.length));
      if (body.offset + body.limit < all.length) reply.header('X-Pagination-Next', String(body.offset + body.limit));
      if (!body.select) return page;
      return page.map((a) =>
        Object.fromEntries(body.select!.map((k) => [k, (a as unknown as Record<string, unknown>)[k]])),
      );
    },
  );

  app.post<{ Body: SearchBody }>(
    '/assistants/count',
    doc('Count assistants', { body: searchBody, response: { 200: { type: 'integer' } } }),
    async (request) => (await matching(request, callerOf(request))).length,
  );

  type AssistantParams = { Params: { assistant_id: string } };
  /** The assistant, if the caller may read it. */
  const readable = async (request: { params: { assistant_id: string } } & Parameters<typeof callerOf>[0]) => {
    const id = request.params.assistant_id;
    const registered = deps.graphs.find(id);
    const scope = await callerOf(request).scope('assistants:read', {
      assistant_id: registered?.assistant.assistant_id ?? id,
    });
    if (!registered || !isAuthMatching(registered.assistant.metadata, scope.filters))
      throw errors.notFound(`assistant "${id}"`);
    return registered;
  };
  const withAssistant = { params: assistantIdParams };

  app.get<AssistantParams>(
    '/assistants/:assistant_id',
    doc('An assistant', { ...withAssistant, response: { 200: assistantSchema, 404: notFound } }),
    async (request) => (await readable(request)).assistant,
  );

  app.get<AssistantParams>(
    '/assistants/:assistant_id/graph',
    doc('The assistant’s graph, drawable (nodes and edges)', {
      ...withAssistant,
      response: { 200: drawableGraph, 404: notFound },
    }),
    async (request) => {
      const { graph } = await readable(request);
      const drawable = await graph.getGraphAsync?.();
      return drawable?.toJSON() ?? {};
    },
  );

  app.get<AssistantParams>(
    '/assistants/:assistant_id/schemas',
    doc('The assistant’s input, output and state schemas', {
      ...withAssistant,
      response: { 200: graphSchemas, 404: notFound },
    }),
    async (request) => {
      const { assistant, stateKeys } = await readable(request);
      const stateSchema = { type: 'object', properties: Object.fromEntries(stateKeys.map((k) => [k, {}])) };
      return {
        graph_id: assistant.graph_id,
        input_schema: stateSchema,
        output_schema: stateSchema,
        state_schema: stateSchema,
        config_schema: null,
        context_schema: null,
      };
    },
  );
}
