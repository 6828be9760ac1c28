// Threads: records, their checkpointed state and history, as the LangGraph API serves them. Every
// route acts in the caller's workspace, narrowed by the auth module's filter for its action
// (auth/callers.ts): another workspace's thread, or one the filter hides, is a 404 like an unknown one.
// Thread ids are per workspace: a workspace may create a thread with any id, whoever else has one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import { AppError, errors } from '../../../platform/errors.ts';
import { answeredConfigurable, threadConfig, type ThreadKey } from '../../../platform/workspaceThreads.ts';
import { MAX_TTL_MINUTES } from '../agentConfig.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import type { AuthEvent, AuthEventValue } from '../auth/customAuth.ts';
import type { RegisteredGraph, StateSnapshotLike } from '../graphRegistry.ts';
import type { RecordScope, ThreadRecord, ThreadStatus, ThreadTtl } from '../store/agentRecords.ts';
import { deleteThread } from '../threads/deleteThread.ts';
import { applyStateUpdate } from '../threads/stateUpdate.ts';
import { newThreadRecord, threadResponse, threadState } from '../threads/threadRecords.ts';
import { errorResponse, noContent, threadIdParams, threadSchema, threadStateSchema } from './routeSchemas.ts';

type Json = Record<string, unknown>;
type CheckpointRef = { checkpoint_id?: string; checkpoint_ns?: string };

const nullable = <T extends object>(schema: T & { type: string | string[] }) => ({
  ...schema,
  type: [...[schema.type].flat(), 'null'],
});
const json = (description: string) => ({ type: ['object', 'null'], additionalProperties: true, description });
const checkpointRef = {
  type: 'object',
  additionalProperties: true,
  properties: {
    checkpoint_id: { type: 'string', description: 'a checkpoint id (UUID)' },
    checkpoint_ns: { type: 'string', description: 'the (sub)graph namespace; "" for the root' },
  },
} as const;
const notFound = errorResponse('no such thread (or not the caller’s)');

type TtlBody = { ttl: number; strategy?: 'delete' | 'keep_latest' | null } | null;
const ttlSchema = {
  type: ['object', 'null'],
  required: ['ttl'],
  additionalProperties: true,
  properties: {
    ttl: {
      type: 'number',
      minimum: 0, // (not exclusiveMinimum: the document is OpenAPI 3.0, where that is a boolean)
      maximum: MAX_TTL_MINUTES,
      description: 'minutes without a change (or a run) before the thread is swept',
    },
    strategy: {
      type: ['string', 'null'],
      enum: ['delete', 'keep_latest', null],
      description: 'delete the thread (default), or keep it with only its latest checkpoint',
    },
  },
  description: 'the thread’s time to live',
} as const;
const ttlOf = (body: TtlBody | undefined): ThreadTtl | undefined =>
  body ? { strategy: body.strategy ?? 'delete', ttl_minutes: body.ttl } : undefined;

interface CreateBody {
  thread_id?: string | null;
  metadata?: Json | null;
  ttl?: TtlBody;
  if_exists?: 'raise' | 'do_nothing' | null;
  supersteps?: { updates: { values?: unknown; as_node: string }[] }[] | null;
}
const createBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    thread_id: { type: ['string', 'null'], format: 'uuid', description: 'the new thread’s id; a new UUID when absent' },
    metadata: json('the thread’s metadata'),
    ttl: ttlSchema,
    if_exists: {
      type: ['string', 'null'],
      enum: ['raise', 'do_nothing', null],
      description: 'when thread_id exists: raise (409, the default) or answer the existing thread',
    },
    supersteps: nullable({
      type: 'array',
      description: 'state updates to apply at once, in order (needs metadata.graph_id)',
      items: {
        type: 'object',
        required: ['updates'],
        properties: {
          updates: {
            type: 'array',
            items: {
              type: 'object',
              required: ['as_node'],
              additionalProperties: true,
              properties: { values: {}, as_node: { type: 'string' } },
            },
          },
        },
      },
    }),
  },
} as const;

interface SearchBody {
  ids?: string[] | null;
  metadata?: Json | null;
  values?: Json | null;
  status?: ThreadStatus | null;
  limit: number;
  offset: number;
  sort_by?: 'thread_id' | 'status' | 'created_at' | 'updated_at' | null;
  sort_order?: 'asc' | 'desc' | null;
  select?: string[] | null;
}
const searchBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ids: { type: ['array', 'null'], items: { type: 'string', format: 'uuid' }, description: 'only these threads' },
    metadata: json('threads whose metadata contains this'),
    values: json('threads whose values contain this'),
    status: { type: ['string', 'null'], enum: ['idle', 'busy', 'interrupted', 'error', null] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    offset: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
    sort_by: {
      type: ['string', 'null'],
      enum: ['thread_id', 'status', 'created_at', 'updated_at', null],
      description: 'default created_at',
    },
    sort_order: { type: ['string', 'null'], enum: ['asc', 'desc', null], description: 'default desc' },
    select: { type: ['array', 'null'], items: { type: 'string' }, description: 'the fields to answer with' },
  },
} as const;
const countBody = {
  ...searchBody,
  properties: {
    metadata: searchBody.properties.metadata,
    values: searchBody.properties.values,
    status: searchBody.properties.status,
  },
};

const patchBody = {
  type: 'object',
  additionalProperties: true,
  properties: { metadata: json('merged into the thread’s metadata'), ttl: ttlSchema },
} as const;

const pruneBody = {
  type: 'object',
  required: ['thread_ids'],
  additionalProperties: true,
  properties: {
    thread_ids: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'string', format: 'uuid' },
      description: 'the threads',
    },
    strategy: {
      type: ['string', 'null'],
      enum: ['delete', 'keep_latest', null],
      description: 'delete the threads (default), or keep each with only its latest checkpoint',
    },
  },
} as const;

interface StateUpdateBody {
  values?: unknown;
  as_node?: string | null;
  checkpoint_id?: string | null;
  checkpoint?: CheckpointRef | null;
}
const stateUpdateBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    values: { description: 'the update, as the node would return it' },
    as_node: { type: ['string', 'null'], description: 'the node the update is applied as' },
    checkpoint_id: { type: ['string', 'null'], description: 'the checkpoint to update from (default: the latest)' },
    checkpoint: nullable(checkpointRef),
  },
} as const;

const checkpointBody = {
  type: 'object',
  required: ['checkpoint'],
  additionalProperties: true,
  properties: { checkpoint: checkpointRef },
} as const;

interface HistoryBody {
  limit: number;
  before?: string | CheckpointRef | null;
  metadata?: Json | null;
  checkpoint?: CheckpointRef | null;
}
const historyBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    before: {
      type: ['string', 'object', 'null'],
      description: 'a checkpoint id, or a checkpoint config: only checkpoints before it',
    },
    metadata: json('checkpoints whose metadata contains this'),
    checkpoint: nullable(checkpointRef),
  },
} as const;
const historyQuery = {
  type: 'object',
  properties: {
    limit: { type: 'string', pattern: '^([1-9][0-9]{0,2}|1000)$', description: '1 to 1000, default 10' },
    before: { type: 'string', description: 'a checkpoint id: only checkpoints before it' },
  },
} as const;

type ThreadParams = { Params: { thread_id: string } };

export function threadRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { store, graphs, runs, checkpoints } = deps;
  const { threadTtl } = deps.agentConfig;
  /** A new thread's TTL: the request's, else the config file's default. */
  const newTtl = (body: TtlBody | undefined): ThreadTtl | undefined =>
    ttlOf(body) ??
    (threadTtl.defaultMinutes ? { strategy: threadTtl.strategy, ttl_minutes: threadTtl.defaultMinutes } : undefined);

  /** The thread, if the caller may do `event` to it: the scope, and the thread (404 when it does not see it). */
  const threadFor = async <E extends AuthEvent>(
    request: FastifyRequest,
    event: E,
    value: AuthEventValue<E> & { thread_id?: string | null },
  ) => {
    const threadId = String(value.thread_id).toLowerCase();
    const scope = await callerOf(request).scope(event, value);
    const thread = await store.getThread(scope, threadId);
    if (!thread) throw errors.notFound(`thread ${threadId}`);
    const key: ThreadKey = { workspaceId: scope.workspaceId, threadId: thread.thread_id };
    return { scope, thread, key };
  };
  const readable = (request: FastifyRequest<ThreadParams>) =>
    threadFor(request, 'threads:read', { thread_id: request.params.thread_id });

  /** The graph that runs on this thread (named in its metadata by its first run), if any yet. */
  const graphOf = (thread: ThreadRecord): RegisteredGraph | undefined => {
    const graphId = thread.metadata.graph_id;
    return typeof graphId === 'string' ? graphs.find(graphId) : undefined;
  };

  const emptyState = (threadId: string) =>
    threadState({ values: {}, next: [], tasks: [], config: { configurable: {} } } as StateSnapshotLike, threadId);

  const stateAt = async (
    { thread, key }: { thread: ThreadRecord; key: ThreadKey },
    checkpoint: Record<string, unknown> = {},
  ) => {
    const registered = graphOf(thread);
    if (!registered) return emptyState(thread.thread_id);
    const snapshot = await registered.graph.getState(threadConfig(key, checkpoint));
    return threadState(snapshot, thread.thread_id);
  };

  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['threads'], summary, ...schema },
  });

  app.post<{ Body: CreateBody }>(
    '/threads',
    doc('Create a thread', {
      body: createBody,
      response: {
        200: threadSchema,
        409: errorResponse('the thread id is taken (if_exists: raise, or a thread the caller does not see)'),
      },
    }),
    async (request) => {
      const body = request.body;
      const threadId = body.thread_id?.toLowerCase() ?? uuidv4();
      // The auth module may stamp the metadata (an owner) and filters which existing thread the caller sees.
      const value = { thread_id: threadId, metadata: body.metadata ?? {}, if_exists: body.if_exists };
      const caller = callerOf(request);
      const scope = await caller.scope('threads:create', value);
      const key: ThreadKey = { workspaceId: scope.workspaceId, threadId };
      const ttl = newTtl(body.ttl);
      const created = await store.createThread(scope.workspaceId, {
        ...newThreadRecord(threadId, value.metadata ?? {}),
        ...(ttl ? { ttl } : {}),
      });
      if (!created) {
        const existing = await store.getThread(scope, threadId);
        if (existing && body.if_exists === 'do_nothing') return threadResponse(existing);
        throw errors.conflict(`thread ${threadId} already exists`);
      }
      if (body.supersteps?.length) {
        const registered = graphOf(created);
        if (!registered) throw errors.validation('supersteps need metadata.graph_id naming a graph of this server');
        try {
          for (const step of body.supersteps) {
            for (const update of step.updates)
              await applyStateUpdate(registered.graph, threadConfig(key), update.values, update.as_node);
          }
        } catch (err) {
          // Nothing half-written: the thread did not exist before this request.
          await deleteThread(deps, scope, key);
          throw err;
        }
        const state = await stateAt({ thread: created, key });
        return threadResponse((await store.updateThread(scope, threadId, { values: state.values }))!);
      }
      return threadResponse(created);
    },
  );

  const search = async (scope: RecordScope, body: SearchBody) =>
    store.searchThreads(scope, {
      ids: body.ids?.map((id) => id.toLowerCase()) ?? undefined,
      metadata: body.metadata ?? undefined,
      values: body.values ?? undefined,
      status: body.status ?? undefined,
      limit: body.limit,
      offset: body.offset,
      sortBy: body.sort_by ?? 'created_at',
      sortOrder: body.sort_order ?? 'desc',
    });

  app.post<{ Body: SearchBody }>(
    '/threads/search',
    doc('Search the caller’s threads', { body: searchBody, response: { 200: { type: 'array', items: threadSchema } } }),
    async (request, reply: FastifyReply) => {
      const body = request.body;
      const { ids, metadata, values, status, limit, offset } = body;
      const scope = await callerOf(request).scope('threads:search', { ids, metadata, values, status, limit, offset });
      const { threads, total } = await search(scope, body);
      reply.header('X-Pagination-Total', String(total));
      if (body.offset + threads.length < total) reply.header('X-Pagination-Next', String(body.offset + body.limit));
      const page = threads.map(threadResponse);
      if (!body.select) return page;
      return page.map((t) => Object.fromEntries(body.select!.map((k) => [k, (t as unknown as Json)[k]])));
    },
  );

  app.post<{ Body: Pick<SearchBody, 'metadata' | 'values' | 'status'> }>(
    '/threads/count',
    doc('Count the caller’s threads', { body: countBody, response: { 200: { type: 'integer' } } }),
    async (request) => {
      const { metadata, values, status } = request.body;
      const scope = await callerOf(request).scope('threads:search', { metadata, values, status, limit: 0, offset: 0 });
      return (await search(scope, { metadata, values, status, limit: 1, offset: 0 })).total;
    },
  );

  const withThread = { params: threadIdParams };

  app.get<ThreadParams & { Querystring: { include?: string } }>(
    '/threads/:thread_id',
    doc('A thread', {
      ...withThread,
      querystring: {
        type: 'object',
        properties: {
          include: {
            type: 'string',
            description: 'fields to add, comma-separated: "ttl" (a thread’s ttl is always shown)',
          },
        },
      },
      response: { 200: threadSchema, 404: notFound },
    }),
    async (request) => threadResponse((await readable(request)).thread),
  );

  app.patch<ThreadParams & { Body: { metadata?: Json | null; ttl?: TtlBody } }>(
    '/threads/:thread_id',
    doc('Merge metadata into a thread, or set its TTL', {
      ...withThread,
      body: patchBody,
      response: { 200: threadSchema, 404: notFound },
    }),
    async (request) => {
      const value = { thread_id: request.params.thread_id, metadata: request.body.metadata ?? {} };
      const { scope, thread } = await threadFor(request, 'threads:update', value);
      const updated = await store.updateThread(scope, thread.thread_id, {
        metadata: { ...thread.metadata, ...value.metadata },
        updated_at: new Date().toISOString(),
        ...(request.body.ttl ? { ttl: ttlOf(request.body.ttl) } : {}),
      });
      if (!updated) throw errors.notFound(`thread ${thread.thread_id}`);
      return threadResponse(updated);
    },
  );

  app.post<ThreadParams>(
    '/threads/:thread_id/copy',
    doc('Copy a thread: a new thread with its metadata, values and every checkpoint (not its runs)', {
      ...withThread,
      response: { 200: threadSchema, 404: notFound },
    }),
    async (request) => {
      const { thread, key } = await readable(request);
      const copyId = uuidv4();
      const value = { thread_id: copyId, metadata: { ...thread.metadata } };
      const scope = await callerOf(request).scope('threads:create', value);
      const to: ThreadKey = { workspaceId: scope.workspaceId, threadId: copyId };
      // Checkpoints first: a copy cut short leaves no thread, only checkpoints nothing names.
      await checkpoints.copy(key, to);
      const now = new Date().toISOString();
      const { ttl: _ttl, ...copied } = thread;
      const ttl = thread.ttl ?? undefined;
      const created = await store.createThread(scope.workspaceId, {
        ...copied,
        thread_id: copyId,
        metadata: value.metadata,
        status: thread.status === 'busy' ? 'idle' : thread.status,
        created_at: now,
        updated_at: now,
        state_updated_at: now,
        ...(ttl ? { ttl } : {}),
      });
      if (!created) throw errors.conflict(`thread ${copyId} already exists`);
      return threadResponse(created);
    },
  );

  app.post<{ Body: { thread_ids: string[]; strategy?: 'delete' | 'keep_latest' | null } }>(
    '/threads/prune',
    doc('Prune threads: delete them, or keep each with only its latest checkpoint', {
      body: pruneBody,
      response: {
        200: {
          type: 'object',
          properties: {
            pruned_count: { type: 'integer', description: 'the threads pruned (unknown or busy ones are not)' },
          },
        },
      },
    }),
    async (request) => {
      const strategy = request.body.strategy ?? 'delete';
      let pruned = 0;
      for (const id of new Set(request.body.thread_ids.map((t) => t.toLowerCase()))) {
        const found = await threadFor(request, 'threads:delete', { thread_id: id }).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
          throw err;
        });
        if (!found) continue;
        if (strategy === 'delete') {
          if (await deleteThread(deps, found.scope, found.key)) pruned++;
        } else if (found.thread.status !== 'busy') {
          await checkpoints.keepLatest(found.key);
          pruned++;
        }
      }
      return { pruned_count: pruned };
    },
  );

  app.patch<ThreadParams & { Body: { metadata: Json } }>(
    '/threads/:thread_id/state',
    doc('Merge metadata into the thread’s latest checkpoint', {
      ...withThread,
      body: {
        type: 'object',
        required: ['metadata'],
        additionalProperties: true,
        properties: {
          metadata: {
            type: 'object',
            additionalProperties: true,
            description: 'merged into the latest checkpoint’s metadata',
          },
        },
      },
      response: {
        204: noContent,
        404: notFound,
        409: errorResponse('the thread has no checkpoint yet'),
      },
    }),
    async (request, reply) => {
      const { key, thread } = await threadFor(request, 'threads:update', {
        thread_id: request.params.thread_id,
        metadata: request.body.metadata,
      });
      if (!(await checkpoints.patchLatestMetadata(key, request.body.metadata)))
        throw errors.conflict(`thread ${thread.thread_id} has no state yet: run an assistant on it first`);
      return reply.code(204).send();
    },
  );

  app.delete<ThreadParams>(
    '/threads/:thread_id',
    doc('Delete a thread, its runs (cancelled first) and its checkpoints', {
      ...withThread,
      response: { 204: noContent, 404: notFound },
    }),
    async (request, reply) => {
      const { scope, thread, key } = await threadFor(request, 'threads:delete', {
        thread_id: request.params.thread_id,
      });
      await deleteThread(deps, scope, { ...key, threadId: thread.thread_id });
      return reply.code(204).send();
    },
  );

  const stateResponse = { 200: threadStateSchema, 404: notFound };

  app.get<ThreadParams>(
    '/threads/:thread_id/state',
    doc('The thread’s latest state', { ...withThread, response: stateResponse }),
    async (request) => stateAt(await readable(request)),
  );

  app.get<{ Params: { thread_id: string; checkpoint_id: string } }>(
    '/threads/:thread_id/state/:checkpoint_id',
    doc('The thread’s state at a checkpoint', {
      params: {
        ...threadIdParams,
        required: ['thread_id', 'checkpoint_id'],
        properties: { ...threadIdParams.properties, checkpoint_id: { type: 'string', format: 'uuid' } },
      },
      response: stateResponse,
    }),
    async (request) => stateAt(await readable(request), { checkpoint_id: request.params.checkpoint_id }),
  );

  app.post<ThreadParams & { Body: { checkpoint: CheckpointRef } }>(
    '/threads/:thread_id/state/checkpoint',
    doc('The thread’s state at a checkpoint', { ...withThread, body: checkpointBody, response: stateResponse }),
    async (request) => stateAt(await readable(request), request.body.checkpoint),
  );

  app.post<ThreadParams & { Body: StateUpdateBody }>(
    '/threads/:thread_id/state',
    doc('Update the thread’s state as a node would', {
      ...withThread,
      body: stateUpdateBody,
      response: {
        200: {
          type: 'object',
          additionalProperties: true,
          properties: {
            checkpoint: { type: 'object', additionalProperties: true, description: 'the new checkpoint’s config' },
          },
        },
        404: notFound,
        409: errorResponse(
          'the thread has no graph yet: run an assistant on it first, or create it with metadata.graph_id',
        ),
        422: errorResponse('the thread is running a run (THREAD_BUSY), or the body does not match the schema'),
      },
    }),
    async (request) => {
      const found = await threadFor(request, 'threads:update', { thread_id: request.params.thread_id });
      const { scope, thread, key } = found;
      const body = request.body;
      const registered = graphOf(thread);
      if (!registered)
        throw errors.conflict(
          `thread ${thread.thread_id} has no graph yet: run an assistant on it first, or create it with metadata.graph_id`,
        );
      if ((await runs.unfinished(key)).length > 0) throw errors.threadBusy();
      const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
      const config = await applyStateUpdate(
        registered.graph,
        threadConfig(key, checkpointId ? { checkpoint_id: checkpointId } : {}),
        body.values,
        body.as_node ?? undefined,
      );
      const state = await stateAt(found);
      await store.updateThread(scope, thread.thread_id, {
        values: state.values,
        state_updated_at: new Date().toISOString(),
      });
      return { checkpoint: answeredConfigurable(config.configurable as Record<string, unknown> | undefined) };
    },
  );

  const history = async ({ thread, key }: { thread: ThreadRecord; key: ThreadKey }, body: HistoryBody) => {
    const registered = graphOf(thread);
    if (!registered) return [];
    const before =
      typeof body.before === 'string'
        ? { configurable: { checkpoint_id: body.before } }
        : body.before
          ? { configurable: body.before }
          : undefined;
    const states = [];
    const config = threadConfig(key, body.checkpoint ?? {});
    for await (const snapshot of registered.graph.getStateHistory(config, {
      limit: body.limit,
      before,
      filter: body.metadata ?? undefined,
    })) {
      states.push(threadState(snapshot, thread.thread_id));
    }
    return states;
  };
  const historyResponse = { 200: { type: 'array', items: threadStateSchema }, 404: notFound };

  app.post<ThreadParams & { Body: HistoryBody }>(
    '/threads/:thread_id/history',
    doc('The thread’s states, newest first', { ...withThread, body: historyBody, response: historyResponse }),
    async (request) => history(await readable(request), request.body),
  );

  app.get<ThreadParams & { Querystring: { limit?: string; before?: string } }>(
    '/threads/:thread_id/history',
    doc('The thread’s states, newest first', { ...withThread, querystring: historyQuery, response: historyResponse }),
    async (request) => {
      const { limit, before } = request.query;
      return history(await readable(request), { limit: limit === undefined ? 10 : Number(limit), before });
    },
  );
}
