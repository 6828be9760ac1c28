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
import { isRelayed, relayRunStream } from '../runs/replicaProxy.ts';
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

/** Streams a run's events as SSE from after `lastEventId`, ending when the run ends or the client leaves. */
export async function replyWithStream(
  reply: FastifyReply,
  run: ActiveRun,
  headers: Record<string, string>,
  lastEventId?: string,
  onClose?: () => void,
): Promise<void> {
  const stream = openEventStream(reply, headers);
  const gone = new AbortController();
  stream.res.on('close', () => {
    gone.abort();
    if (!stream.res.writableEnded) onClose?.();
  });
  try {
    for await (const event of run.subscribe(lastEventId, gone.signal)) await stream.send(event);
  } finally {
    stream.end();
  }
}

/**
 * Streams a run's events wherever it executes: here, or relayed from the replica that does (once
 * one has claimed a queued run). A run that ends before any replica streams it, or whose replica
 * cannot answer, gets a stream that ends when the run does.
 */
export async function streamRun(
  runs: RunManager,
  request: FastifyRequest,
  reply: FastifyReply,
  run: ActiveRun,
  headers: Record<string, string>,
  lastEventId?: string,
  onClose?: () => void,
): Promise<void> {
  if (!runs.executesHere(run) && !isRelayed(request)) {
    const waiting = new AbortController();
    request.raw.once('close', () => waiting.abort());
    const owner = await runs.ownerOf(run, waiting.signal);
    if (
      owner &&
      owner !== runs.url &&
      (await relayRunStream(request, reply, owner, run.record, headers, lastEventId, onClose))
    )
      return;
    // claimed here meanwhile: its events are in the run this server executes
    if (owner === runs.url) run = (await runs.claimedHere(run.record.run_id, run.outcome)) ?? run;
  }
  await replyWithStream(reply, run, headers, lastEventId, onClose);
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
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['runs'], summary, ...schema },
  });

  const create = async (
    request: FastifyRequest<{ Params: { thread_id?: string }; Body: RunCreateBody }>,
    stateless: boolean,
  ) => {
    const body = request.body;
    const threadId = stateless ? undefined : request.params.thread_id!.toLowerCase();
    const run = await runs.create(threadId, body, callerOf(request));
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
        const { run, location } = await create(request, stateless);
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
          { 'content-location': location },
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
      for (const body of request.body) created.push((await runs.create(undefined, body, caller)).record);
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
    const active = runs.get(runId, scope.workspaceId);
    if (active && active.record.thread_id === threadId) return { scope, record: active.record };
    const record = await store.getRun(scope, threadId, runId);
    if (!record) throw errors.notFound(`run ${runId} of thread ${threadId}`);
    return { scope, record };
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

  app.get<RunParams>(
    '/threads/:thread_id/runs/:run_id/join',
    doc('Wait for a run and answer its final values', {
      params: runIdParams,
      response: { 200: runValuesResponse, 404: runNotFound },
    }),
    async (request, reply) => {
      const { scope, record } = await findRun(request, 'threads:read', { thread_id: ids(request).thread_id });
      const location = { 'content-location': runLocation(record, false) };
      const active = await runs.follow(record, scope.workspaceId);
      if (active) return replyWhenDone(reply, active.outcome, location);
      // Ended before this process's memory of it: the thread holds the final values.
      const thread = await store.getThread(scope, record.thread_id);
      reply.headers(location);
      return thread?.values ?? {};
    },
  );

  app.get<RunParams>(
    '/threads/:thread_id/runs/:run_id/stream',
    doc('Stream a run’s events (SSE), from after Last-Event-ID', {
      params: runIdParams,
      response: {
        200: eventStreamResponse('the run’s events; empty when it ended before this server’s memory of it'),
        404: runNotFound,
      },
    }),
    async (request, reply) => {
      const { scope, record } = await findRun(request, 'threads:read', { thread_id: ids(request).thread_id });
      const location = { 'content-location': runLocation(record, false) };
      const active = await runs.follow(record, scope.workspaceId);
      if (!active) {
        openEventStream(reply, location).end();
        return;
      }
      const lastEventId = request.headers['last-event-id'];
      await streamRun(
        runs,
        request,
        reply,
        active,
        location,
        typeof lastEventId === 'string' ? lastEventId : undefined,
      );
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
