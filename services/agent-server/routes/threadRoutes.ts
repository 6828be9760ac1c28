// Threads: records, their checkpointed state and history, as the LangGraph API serves them.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import { z } from 'zod';
import { errors } from '../../common/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { RegisteredGraph, StateSnapshotLike } from '../graphRegistry.ts';
import type { ThreadRecord } from '../store/agentRecords.ts';
import { newThreadRecord, threadResponse, threadState } from '../threads/threadRecords.ts';
import { parseInput, uuidParam } from './requestInput.ts';

const json = z.record(z.string(), z.unknown());

const createBody = z.looseObject({
  thread_id: z.uuid().nullish(),
  metadata: json.nullish(),
  if_exists: z.enum(['raise', 'do_nothing']).nullish(),
  supersteps: z.array(z.object({ updates: z.array(z.looseObject({ values: z.unknown(), as_node: z.string() })) })).nullish(),
});

const searchBody = z.looseObject({
  ids: z.array(z.uuid()).nullish(),
  metadata: json.nullish(),
  values: json.nullish(),
  status: z.enum(['idle', 'busy', 'interrupted', 'error']).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  sort_by: z.enum(['thread_id', 'status', 'created_at', 'updated_at']).nullish(),
  sort_order: z.enum(['asc', 'desc']).nullish(),
  select: z.array(z.string()).nullish(),
});

const checkpointRef = z.looseObject({ checkpoint_id: z.string().optional(), checkpoint_ns: z.string().optional() });

const stateUpdateBody = z.looseObject({
  values: z.unknown().optional(),
  as_node: z.string().nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: checkpointRef.nullish(),
});

const historyBody = z.looseObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: z.union([z.string(), checkpointRef]).nullish(),
  metadata: json.nullish(),
  checkpoint: checkpointRef.nullish(),
});

type ThreadParams = { Params: { thread_id: string } };

export function threadRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { store, graphs, runs, checkpointer } = deps;

  const getThread = async (threadId: string): Promise<ThreadRecord> => {
    const thread = await store.getThread(uuidParam(threadId, 'thread_id'));
    if (!thread) throw errors.notFound(`thread ${threadId}`);
    return thread;
  };

  /** The graph that runs on this thread (named in its metadata by its first run), if any yet. */
  const graphOf = (thread: ThreadRecord): RegisteredGraph | undefined => {
    const graphId = thread.metadata.graph_id;
    return typeof graphId === 'string' ? graphs.find(graphId) : undefined;
  };

  const emptyState = (threadId: string) =>
    threadState({ values: {}, next: [], tasks: [], config: { configurable: {} } } as StateSnapshotLike, threadId);

  const stateAt = async (thread: ThreadRecord, checkpoint: Record<string, unknown> = {}) => {
    const registered = graphOf(thread);
    if (!registered) return emptyState(thread.thread_id);
    const snapshot = await registered.graph.getState({ configurable: { thread_id: thread.thread_id, ...checkpoint } });
    return threadState(snapshot, thread.thread_id);
  };

  app.post('/threads', async (request) => {
    const body = parseInput(createBody, request.body, 'thread');
    const threadId = body.thread_id?.toLowerCase() ?? uuidv4();
    const created = await store.createThread(newThreadRecord(threadId, body.metadata ?? {}));
    if (!created) {
      if (body.if_exists === 'do_nothing') return threadResponse((await store.getThread(threadId))!);
      throw errors.conflict(`thread ${threadId} already exists`);
    }
    if (body.supersteps?.length) {
      const registered = typeof created.metadata.graph_id === 'string' ? graphs.find(created.metadata.graph_id) : undefined;
      if (!registered) throw errors.validation('supersteps need metadata.graph_id naming a graph of this server');
      for (const step of body.supersteps) {
        for (const update of step.updates) await registered.graph.updateState({ configurable: { thread_id: threadId } }, update.values, update.as_node);
      }
      const state = await stateAt(created);
      return threadResponse((await store.updateThread(threadId, { values: state.values }))!);
    }
    return threadResponse(created);
  });

  const search = async (body: z.infer<typeof searchBody>) =>
    store.searchThreads({
      ids: body.ids ?? undefined,
      metadata: body.metadata ?? undefined,
      values: body.values ?? undefined,
      status: body.status ?? undefined,
      limit: body.limit,
      offset: body.offset,
      sortBy: body.sort_by ?? 'created_at',
      sortOrder: body.sort_order ?? 'desc',
    });

  app.post('/threads/search', async (request, reply: FastifyReply) => {
    const body = parseInput(searchBody, request.body, 'thread search');
    const { threads, total } = await search(body);
    reply.header('X-Pagination-Total', String(total));
    if (body.offset + threads.length < total) reply.header('X-Pagination-Next', String(body.offset + body.limit));
    const page = threads.map(threadResponse);
    if (!body.select) return page;
    return page.map((t) => Object.fromEntries(body.select!.map((k) => [k, (t as unknown as Record<string, unknown>)[k]])));
  });

  app.post('/threads/count', async (request) => {
    const body = parseInput(searchBody, request.body, 'thread count');
    return (await search({ ...body, limit: 1, offset: 0 })).total;
  });

  app.get<ThreadParams>('/threads/:thread_id', async (request) => threadResponse(await getThread(request.params.thread_id)));

  app.patch<ThreadParams>('/threads/:thread_id', async (request) => {
    const thread = await getThread(request.params.thread_id);
    const body = parseInput(z.looseObject({ metadata: json.nullish() }), request.body, 'thread patch');
    const updated = await store.updateThread(thread.thread_id, { metadata: { ...thread.metadata, ...body.metadata }, updated_at: new Date().toISOString() });
    return threadResponse(updated!);
  });

  app.delete<ThreadParams>('/threads/:thread_id', async (request, reply) => {
    const thread = await getThread(request.params.thread_id);
    await runs.cancelThread(thread.thread_id);
    await store.deleteThread(thread.thread_id);
    await checkpointer.deleteThread(thread.thread_id);
    return reply.code(204).send();
  });

  app.get<ThreadParams>('/threads/:thread_id/state', async (request) => stateAt(await getThread(request.params.thread_id)));

  app.get<{ Params: { thread_id: string; checkpoint_id: string } }>('/threads/:thread_id/state/:checkpoint_id', async (request) =>
    stateAt(await getThread(request.params.thread_id), { checkpoint_id: request.params.checkpoint_id }),
  );

  app.post<ThreadParams>('/threads/:thread_id/state/checkpoint', async (request) => {
    const body = parseInput(z.looseObject({ checkpoint: checkpointRef }), request.body, 'checkpoint');
    return stateAt(await getThread(request.params.thread_id), body.checkpoint);
  });

  app.post<ThreadParams>('/threads/:thread_id/state', async (request) => {
    const thread = await getThread(request.params.thread_id);
    const body = parseInput(stateUpdateBody, request.body, 'state update');
    const registered = graphOf(thread);
    if (!registered) throw errors.validation(`thread ${thread.thread_id} has no graph yet: run an assistant on it first, or create it with metadata.graph_id`);
    if (runs.unfinished(thread.thread_id).length > 0) throw errors.threadBusy();
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
    const config = await registered.graph.updateState(
      { configurable: { thread_id: thread.thread_id, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } },
      body.values,
      body.as_node ?? undefined,
    );
    const state = await stateAt(thread);
    await store.updateThread(thread.thread_id, { values: state.values, state_updated_at: new Date().toISOString() });
    return { checkpoint: (config as { configurable?: unknown }).configurable ?? {} };
  });

  const history = async (thread: ThreadRecord, body: z.infer<typeof historyBody>) => {
    const registered = graphOf(thread);
    if (!registered) return [];
    const before = typeof body.before === 'string' ? { configurable: { checkpoint_id: body.before } } : body.before ? { configurable: body.before } : undefined;
    const states = [];
    const config = { configurable: { thread_id: thread.thread_id, ...body.checkpoint } };
    for await (const snapshot of registered.graph.getStateHistory(config, { limit: body.limit, before, filter: body.metadata ?? undefined })) {
      states.push(threadState(snapshot, thread.thread_id));
    }
    return states;
  };

  app.post<ThreadParams>('/threads/:thread_id/history', async (request) =>
    history(await getThread(request.params.thread_id), parseInput(historyBody, request.body, 'history request')),
  );

  app.get<ThreadParams & { Querystring: { limit?: string; before?: string } }>('/threads/:thread_id/history', async (request) => {
    const { limit, before } = request.query;
    const body = parseInput(historyBody, { limit: limit === undefined ? undefined : Number(limit), before }, 'history query');
    return history(await getThread(request.params.thread_id), body);
  });
}
