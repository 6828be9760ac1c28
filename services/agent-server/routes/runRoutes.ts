// Runs, on a thread or stateless: create in the background, stream (SSE), wait for the final
// values, join, cancel. Every run route sets Content-Location to the run, which both LangGraph
// SDKs read to learn the run id (`onRunCreated`). A run is seen through its thread: another
// workspace's, or one the auth module's filter hides, is a 404 like an unknown one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import type { AuthEvent, AuthEventValue } from '../auth/customAuth.ts';
import type { ActiveRun, RunOutcome } from '../runs/activeRun.ts';
import { runCreateBodySchema, type RunCreateBody } from '../runs/runBody.ts';
import type { RecordScope, RunRecord, RunStatus } from '../store/agentRecords.ts';
import { openEventStream } from '../../../platform/http/sse.ts';
import { toWireJson } from '../wireJson.ts';
import type { RunManager } from '../runs/runManager.ts';
import { runEventsAnywhere } from '../runs/replicaProxy.ts';
import { joinedEvents, queryStreamModes, streamModeQuerySchema } from '../runs/runEvents.ts';
import { STREAM_MODES } from '../runs/runBody.ts';
import { isAuthMatching } from '../auth/authFilters.ts';
import { threadStreamRoutes } from './threadStreamRoutes.ts';
import {
  errorResponse,
  eventStreamResponse,
  noContent,
  runIdParams,
  runSchema,
  runValuesResponse,
  threadIdParams,
} from './routeSchemas.ts';

/** While a run is waited for, a newline is written this often so proxies keep the connection open. */
const WAIT_KEEPALIVE_MS = 1000;

type ThreadParams = { Params: { thread_id: string } };
type RunParams = { Params: { thread_id: string; run_id: string } };

function runLocation(record: RunRecord, stateless: boolean): string {
  return stateless ? `/runs/${record.run_id}` : `/threads/${record.thread_id}/runs/${record.run_id}`;
}

/** What /wait and /join return: the final values, or `{__error__}` when the run failed. */
export function waitResult(outcome: RunOutcome): unknown {
  if (outcome.status === 'error' && outcome.error) return { __error__: outcome.error };
  return outcome.values ?? {};
}

/** Answers with the run's final values once it ends, writing keep-alive newlines meanwhile. */
export async function replyWhenDone(
  reply: FastifyReply,
  outcome: Promise<RunOutcome>,
  headers: Record<string, string>,
  onClose?: () => void,
): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  const head = () => {
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json', ...headers });
  };
  const keepalive = setInterval(() => {
    head();
    res.write('\n');
  }, WAIT_KEEPALIVE_MS);
  if (onClose) res.on('close', () => !res.writableEnded && onClose());
  try {
    const body = toWireJson(waitResult(await outcome));
    head();
    res.end(body);
  } finally {
    clearInterval(keepalive);
  }
}

/**
 * Streams a run's events as SSE from after `lastEventId`, wherever it executes: here, or relayed
 * from the replica that does (once one has claimed a queued run; the stream's headers go at
 * once). A run that ends before any replica streams it, or whose replica cannot answer, gets a
 * stream that ends when the run does. Only the events `only` lets through (a join's stream
 * modes), when given; `onClose` when the client leaves before the stream ends.
 */
export async function streamRun(
  runs: RunManager,
  request: FastifyRequest,
  reply: FastifyReply,
  run: ActiveRun,
  headers: Record<string, string>,
  lastEventId?: string,
  onClose?: () => void,
  only?: (event: string) => boolean,
): Promise<void> {
  const stream = openEventStream(reply, headers);
  const gone = new AbortController();
  stream.res.on('close', () => {
    gone.abort();
    if (!stream.res.writableEnded) onClose?.();
  });
  try {
    for await (const event of runEventsAnywhere(runs, request, run, lastEventId, gone.signal))
      if (!only || only(event.event)) await stream.send(event);
  } finally {
    stream.end();
  }
}

const RUN_STATUSES = ['pending', 'running', 'error', 'success', 'timeout', 'interrupted'] as const;

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'string', pattern: '^([1-9][0-9]{0,2}|1000)$', description: '1 to 1000, default 10' },
    offset: { type: 'string', pattern: '^[0-9]{1,9}$', description: 'default 0' },
    status: { type: 'string', enum: RUN_STATUSES },
  },
} as const;

const cancelQuery = {
  type: 'object',
  properties: {
    wait: { type: 'string', enum: ['true', 'false', '1', '0'], description: 'answer once the run has stopped' },
    action: {
      type: 'string',
      enum: ['interrupt', 'rollback'],
      description: 'interrupt (default) keeps what the run wrote; rollback deletes the run and its checkpoints',
    },
  },
} as const;

/** A join's stream modes (a subset of the run's) and whether leaving cancels the run. */
const joinStreamQuery = {
  type: 'object',
  properties: {
    stream_mode: streamModeQuerySchema(
      STREAM_MODES,
      'only these of the run’s stream modes: one, repeated, or a JSON array; every event when absent',
    ),
    // read by the platform's typed queries: true/false, 1/0 (as FastAPI reads a bool)
    cancel_on_disconnect: { type: 'boolean', description: 'cancel the run when this client goes away' },
  },
} as const;
type JoinStreamQuery = { stream_mode?: string | string[]; cancel_on_disconnect?: boolean };

/** The join's stream modes, each one of the run modes (422 naming stream_mode otherwise). */
function joinModes(query: JoinStreamQuery): string[] | undefined {
  const modes = queryStreamModes(query.stream_mode);
  const unknown = modes?.find((m) => !(STREAM_MODES as readonly string[]).includes(m));
  if (unknown !== undefined)
    throw errors.invalidField(
      `querystring/stream_mode: "${unknown.slice(0, 40)}" is not one of ${STREAM_MODES.join(', ')}`,
    );
  return modes;
}

const BULK_CANCEL_STATUSES = { pending: ['pending'], running: ['running'], all: ['pending', 'running'] } as const;
interface BulkCancelBody {
  thread_id?: string | null;
  run_ids?: string[] | null;
  status?: keyof typeof BULK_CANCEL_STATUSES | null;
}
const bulkCancelBody = {
  type: 'object',
  additionalProperties: true,
  description: 'either run_ids (with their thread_id), or status (the workspace’s runs, or thread_id’s)',
  oneOf: [{ required: ['run_ids'] }, { required: ['status'] }],
  dependencies: { run_ids: ['thread_id'] },
  properties: {
    thread_id: { type: 'string', format: 'uuid', description: 'the thread of run_ids; with status, only its runs' },
    run_ids: {
      type: 'array',
      items: { type: 'string', format: 'uuid' },
      maxItems: 1000,
      description: 'the runs to cancel (those that have ended are left as they are)',
    },
    status: {
      type: 'string',
      enum: ['pending', 'running', 'all'],
      description: 'cancel every pending, running, or unfinished (all) run',
    },
  },
} as const;

const threadNotFound = errorResponse('no such thread (or not the caller’s)');
const runNotFound = errorResponse('no such run on the thread (or not the caller’s)');
const createResponses = (stateless: boolean) => ({
  404: errorResponse(
    stateless ? 'no such assistant' : 'no such assistant, or thread (if_not_exists: reject; or not the caller’s)',
  ),
  422: errorResponse(
    'the body does not match the schema, or the thread is running a run and multitask_strategy is reject (THREAD_BUSY)',
  ),
});

export function runRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { runs, store } = deps;
  // a thread's stream is its runs' streams, one after another: served with them
  threadStreamRoutes(app, deps);
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['runs'], summary, ...schema },
  });

  const create = async (
    request: FastifyRequest<{ Params: { thread_id?: string }; Body: RunCreateBody }>,
    stateless: boolean,
    background = false,
  ) => {
    const body = request.body;
    const threadId = stateless ? undefined : request.params.thread_id!.toLowerCase();
    const run = await runs.create(threadId, body, callerOf(request), { background });
    return { run, location: runLocation(run.record, stateless), cancelOnClose: body.on_disconnect === 'cancel' };
  };
  const cancelOnDisconnect = (run: ActiveRun, wanted: boolean) =>
    wanted ? () => void runs.cancel(run.record, run.workspaceId, 'interrupt') : undefined;

  for (const stateless of [false, true]) {
    const base = stateless ? '/runs' : '/threads/:thread_id/runs';
    const input = { ...(stateless ? {} : { params: threadIdParams }), body: runCreateBodySchema };
    const what = stateless ? 'on a temporary thread' : 'on the thread';
    type CreateRequest = { Params: { thread_id?: string }; Body: RunCreateBody };
    app.post<CreateRequest>(
      base,
      doc(`Create a run ${what}, in the background`, {
        ...input,
        response: { 200: runSchema, ...createResponses(stateless) },
      }),
      async (request, reply) => {
        const { run, location } = await create(request, stateless, true);
        reply.header('Content-Location', location);
        return run.record;
      },
    );
    app.post<CreateRequest>(
      `${base}/stream`,
      doc(`Create a run ${what} and stream its events (SSE)`, {
        ...input,
        response: { 200: eventStreamResponse('the run’s events, metadata first'), ...createResponses(stateless) },
      }),
      async (request, reply) => {
        const { run, location, cancelOnClose } = await create(request, stateless);
        await streamRun(
          runs,
          request,
          reply,
          run,
          // Location: where the SDKs reconnect (with Last-Event-ID) when the connection drops
          { 'content-location': location, location: `${location}/stream` },
          undefined,
          cancelOnDisconnect(run, cancelOnClose),
        );
      },
    );
    app.post<CreateRequest>(
      `${base}/wait`,
      doc(`Create a run ${what} and answer its final values`, {
        ...input,
        response: { 200: runValuesResponse, ...createResponses(stateless) },
      }),
      async (request, reply) => {
        const { run, location, cancelOnClose } = await create(request, stateless);
        await replyWhenDone(
          reply,
          run.outcome,
          { 'content-location': location },
          cancelOnDisconnect(run, cancelOnClose),
        );
      },
    );
  }

  app.post<{ Body: RunCreateBody[] }>(
    '/runs/batch',
    doc('Create stateless runs, in the background', {
      body: { type: 'array', minItems: 1, items: runCreateBodySchema },
      response: { 200: { type: 'array', items: runSchema }, ...createResponses(true) },
    }),
    async (request) => {
      const caller = callerOf(request);
      const created = [];
      for (const body of request.body)
        created.push((await runs.create(undefined, body, caller, { background: true })).record);
      return created;
    },
  );

  /** The run, if the caller may do `event` to its thread; 404 when it does not see the thread or the run. */
  const findRun = async <E extends AuthEvent>(
    request: FastifyRequest<RunParams>,
    event: E,
    value: AuthEventValue<E>,
  ): Promise<{ scope: RecordScope; record: RunRecord }> => {
    const threadId = request.params.thread_id.toLowerCase();
    const runId = request.params.run_id.toLowerCase();
    const scope = await callerOf(request).scope(event, value);
    if (!(await store.getThread(scope, threadId))) throw errors.notFound(`run ${runId} of thread ${threadId}`);
    // The record says whether it is there (a deleted run's events may still be held here); a run
    // executing here has the freshest status (one followed from here learns of its end later).
    const record = await store.getRun(scope, threadId, runId);
    if (!record) throw errors.notFound(`run ${runId} of thread ${threadId}`);
    const active = runs.get(runId, scope.workspaceId);
    const fresher = active && active.record.thread_id === threadId && runs.executesHere(active);
    return { scope, record: fresher ? active.record : record };
  };
  const ids = (request: FastifyRequest<RunParams>) => ({
    thread_id: request.params.thread_id.toLowerCase(),
    run_id: request.params.run_id.toLowerCase(),
  });

  app.get<ThreadParams & { Querystring: { limit?: string; offset?: string; status?: RunStatus } }>(
    '/threads/:thread_id/runs',
    doc('The thread’s runs, newest first', {
      params: threadIdParams,
      querystring: listQuery,
      response: { 200: { type: 'array', items: runSchema }, 404: threadNotFound },
    }),
    async (request) => {
      const threadId = request.params.thread_id.toLowerCase();
      const { limit, offset, status } = request.query;
      const scope = await callerOf(request).scope('threads:search', { thread_id: threadId, status });
      if (!(await store.getThread(scope, threadId))) throw errors.notFound(`thread ${threadId}`);
      return store.listRuns(scope, threadId, {
        limit: limit === undefined ? 10 : Number(limit),
        offset: offset === undefined ? 0 : Number(offset),
        status,
      });
    },
  );

  app.get<RunParams>(
    '/threads/:thread_id/runs/:run_id',
    doc('A run', { params: runIdParams, response: { 200: runSchema, 404: runNotFound } }),
    async (request, reply) => {
      const { record } = await findRun(request, 'threads:read', { thread_id: ids(request).thread_id });
      reply.header('Content-Location', runLocation(record, false));
      return record;
    },
  );

  app.delete<RunParams>(
    '/threads/:thread_id/runs/:run_id',
    doc('Delete a finished run', {
      params: runIdParams,
      response: { 204: noContent, 404: runNotFound, 409: errorResponse('the run is still pending or running') },
    }),
    async (request, reply) => {
      const { scope, record } = await findRun(request, 'threads:delete', ids(request));
      if (record.status === 'pending' || record.status === 'running')
        throw errors.conflict(`run ${record.run_id} is still ${record.status}; cancel it first`);
      await store.deleteRun(scope, record.thread_id, record.run_id);
      return reply.code(204).send();
    },
  );

  app.get<RunParams & { Querystring: { cancel_on_disconnect?: boolean } }>(
    '/threads/:thread_id/runs/:run_id/join',
    doc('Wait for a run and answer its final values', {
      params: runIdParams,
      querystring: {
        type: 'object',
        properties: { cancel_on_disconnect: joinStreamQuery.properties.cancel_on_disconnect },
      },
      response: { 200: runValuesResponse, 404: runNotFound },
    }),
    async (request, reply) => {
      const { scope, record } = await findRun(request, 'threads:read', { thread_id: ids(request).thread_id });
      const location = { 'content-location': runLocation(record, false) };
      const active = await runs.follow(record, scope.workspaceId);
      if (active)
        return replyWhenDone(
          reply,
          active.outcome,
          location,
          cancelOnDisconnect(active, request.query.cancel_on_disconnect === true),
        );
      // Ended before this process's memory of it: the thread holds the final values.
      const thread = await store.getThread(scope, record.thread_id);
      reply.headers(location);
      return thread?.values ?? {};
    },
  );

  /** Joins a run's stream: from after Last-Event-ID, in the stream modes asked for. */
  const joinStream = async (
    request: FastifyRequest<{ Querystring: JoinStreamQuery }>,
    reply: FastifyReply,
    record: RunRecord,
    workspaceId: string,
    stateless: boolean,
  ) => {
    const only = joinedEvents(joinModes(request.query));
    const location = runLocation(record, stateless);
    const headers = { 'content-location': location, location: `${location}/stream` };
    const active = await runs.follow(record, workspaceId);
    if (!active) {
      openEventStream(reply, headers).end();
      return;
    }
    const lastEventId = request.headers['last-event-id'];
    await streamRun(
      runs,
      request,
      reply,
      active,
      headers,
      typeof lastEventId === 'string' ? lastEventId : undefined,
      cancelOnDisconnect(active, request.query.cancel_on_disconnect === true),
      only,
    );
  };

  app.get<RunParams & { Querystring: JoinStreamQuery }>(
    '/threads/:thread_id/runs/:run_id/stream',
    doc('Stream a run’s events (SSE), from after Last-Event-ID', {
      params: runIdParams,
      querystring: joinStreamQuery,
      response: {
        200: eventStreamResponse('the run’s events; empty when it ended before this server’s memory of it'),
        404: runNotFound,
        422: errorResponse('a stream_mode that is not a run stream mode'),
      },
    }),
    async (request, reply) => {
      const { scope, record } = await findRun(request, 'threads:read', { thread_id: ids(request).thread_id });
      await joinStream(request, reply, record, scope.workspaceId, false);
    },
  );

  app.get<{ Params: { run_id: string }; Querystring: JoinStreamQuery }>(
    '/runs/:run_id/stream',
    doc('Stream a stateless run’s events (SSE), from after Last-Event-ID (a run on a thread too, by its id alone)', {
      params: { type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', format: 'uuid' } } },
      querystring: joinStreamQuery,
      response: {
        200: eventStreamResponse(
          'the run’s events; empty when it ended before this server’s memory of it (a background stateless run is kept a minute)',
        ),
        404: errorResponse('no such run (or not the caller’s)'),
        422: errorResponse('a stream_mode that is not a run stream mode'),
      },
    }),
    async (request, reply) => {
      const runId = request.params.run_id.toLowerCase();
      const scope = await callerOf(request).scope('threads:read', {});
      const record = await runs.locate(runId, scope.workspaceId);
      // A stateless run is the caller's through its metadata (its temporary thread had the same,
      // and goes when it ends); a run on a thread through its thread, as on every run route.
      const visible =
        record &&
        (record.kwargs.temporary
          ? isAuthMatching(record.metadata, scope.filters)
          : await store.getThread(scope, record.thread_id));
      if (!record || !visible) throw errors.notFound(`run ${runId}`);
      await joinStream(request, reply, record, scope.workspaceId, Boolean(record.kwargs.temporary));
    },
  );

  app.post<{ Body: BulkCancelBody; Querystring: { action?: 'interrupt' | 'rollback' } }>(
    '/runs/cancel',
    doc('Cancel several runs: by id (of one thread), or by status', {
      body: bulkCancelBody,
      querystring: { type: 'object', properties: { action: cancelQuery.properties.action } },
      response: {
        204: {
          ...noContent,
          description: 'the runs named are cancelled (pending ones ended, running ones told to stop)',
        },
        404: errorResponse('a thread or run named is not there (or not the caller’s): nothing was cancelled'),
        422: errorResponse('neither run_ids nor status, both, or run_ids without thread_id'),
      },
    }),
    async (request, reply) => {
      const { thread_id, run_ids, status } = request.body;
      const action = request.query.action ?? 'interrupt';
      const threadId = thread_id?.toLowerCase() ?? undefined;
      const scope = await callerOf(request).scope('threads:update', { thread_id: threadId, action });
      if (threadId && !(await store.getThread(scope, threadId))) throw errors.notFound(`thread ${threadId}`);
      let targets: RunRecord[];
      // (the body schema has it: run_ids with thread_id, or status)
      if (run_ids != null) {
        targets = [];
        for (const runId of new Set(run_ids.map((id) => id.toLowerCase()))) {
          const record = await store.getRun(scope, threadId!, runId);
          if (!record) throw errors.notFound(`run ${runId} of thread ${threadId}`);
          targets.push(record);
        }
      } else {
        const unfinished = await runs.unfinishedIn(scope.workspaceId, [...BULK_CANCEL_STATUSES[status!]], threadId);
        // each through its thread, as the caller's filter sees it
        const seen = new Map<string, boolean>();
        targets = [];
        for (const record of unfinished) {
          if (!seen.has(record.thread_id))
            seen.set(
              record.thread_id,
              record.kwargs.temporary
                ? isAuthMatching(record.metadata, scope.filters)
                : Boolean(await store.getThread(scope, record.thread_id)),
            );
          if (seen.get(record.thread_id)) targets.push(record);
        }
      }
      await Promise.all(targets.map((record) => runs.cancel(record, scope.workspaceId, action)));
      return reply.code(204).send();
    },
  );

  app.post<RunParams & { Querystring: { wait?: string; action?: 'interrupt' | 'rollback' } }>(
    '/threads/:thread_id/runs/:run_id/cancel',
    doc('Cancel a pending or running run', {
      params: runIdParams,
      querystring: cancelQuery,
      response: {
        202: { description: 'cancelled (stopped, with wait)', type: 'null' },
        404: runNotFound,
        409: errorResponse('the run has ended'),
      },
    }),
    async (request, reply) => {
      const action = request.query.action ?? 'interrupt';
      const { scope, record } = await findRun(request, 'threads:update', { thread_id: ids(request).thread_id, action });
      const stopping = await runs.cancel(record, scope.workspaceId, action);
      if (!stopping)
        throw errors.conflict(
          `run ${record.run_id} is ${record.status}; only pending or running runs can be cancelled`,
        );
      if (request.query.wait === 'true' || request.query.wait === '1') await stopping.outcome;
      return reply.code(202).header('Content-Location', runLocation(record, false)).send();
    },
  );
}
