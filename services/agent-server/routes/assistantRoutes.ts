// Assistants: one per graph in the config file (system assistants), read-only.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errors } from '../../common/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { jsonContains } from '../store/agentRecords.ts';
import { parseInput } from './requestInput.ts';

const searchBody = z.looseObject({
  metadata: z.record(z.string(), z.unknown()).nullish(),
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(['assistant_id', 'graph_id', 'name', 'created_at', 'updated_at']).nullish(),
  sort_order: z.enum(['asc', 'desc']).nullish(),
  select: z.array(z.string()).nullish(),
});

export function assistantRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const matching = (body: z.infer<typeof searchBody>) =>
    deps.graphs
      .all()
      .map((g) => g.assistant)
      .filter(
        (a) =>
          (!body.graph_id || a.graph_id === body.graph_id) &&
          (!body.name || a.name.toLowerCase().includes(body.name.toLowerCase())) &&
          (!body.metadata || jsonContains(a.metadata, body.metadata)),
      );

  app.post('/assistants/search', async (request, reply) => {
    const body = parseInput(searchBody, request.body, 'assistant search');
    const all = matching(body);
    const key = body.sort_by ?? 'created_at';
    const sign = body.sort_order === 'asc' ? 1 : -1;
    all.sort((a, b) => (a[key] < b[key] ? -sign : a[key] > b[key] ? sign : 0));
    const page = all.slice(body.offset, body.offset + body.limit);
    reply.header('X-Pagination-Total', String(all.length));
    if (body.offset + body.limit < all.length) reply.header('X-Pagination-Next', String(body.offset + body.limit));
    if (!body.select) return page;
    return page.map((a) => Object.fromEntries(body.select!.map((k) => [k, (a as unknown as Record<string, unknown>)[k]])));
  });

  app.post('/assistants/count', async (request) => matching(parseInput(searchBody, request.body, 'assistant count')).length);

  const find = (id: string) => {
    const registered = deps.graphs.find(id);
    if (!registered) throw errors.notFound(`assistant "${id}"`);
    return registered;
  };

  app.get<{ Params: { assistant_id: string } }>('/assistants/:assistant_id', async (request) => find(request.params.assistant_id).assistant);

  app.get<{ Params: { assistant_id: string } }>('/assistants/:assistant_id/graph', async (request) => {
    const { graph } = find(request.params.assistant_id);
    const drawable = await graph.getGraphAsync?.();
    return drawable?.toJSON() ?? {};
  });

  app.get<{ Params: { assistant_id: string } }>('/assistants/:assistant_id/schemas', async (request) => {
    const { assistant, stateKeys } = find(request.params.assistant_id);
    const stateSchema = { type: 'object', properties: Object.fromEntries(stateKeys.map((k) => [k, {}])) };
    return { graph_id: assistant.graph_id, input_schema: stateSchema, output_schema: stateSchema, state_schema: stateSchema, config_schema: null, context_schema: null };
  });
}
