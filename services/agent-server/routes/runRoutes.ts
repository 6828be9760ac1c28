// Runs, on a thread or stateless: create in the background, stream (SSE), wait for the final
// values, join, cancel. Every run route sets Content-Location to the run, which both LangGraph
// SDKs read to learn the run id (`onRunCreated`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errors } from '../../common/errors.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { ActiveRun, RunOutcome } from '../runs/activeRun.ts';
import { runCreateBody } from '../runs/runBody.ts';
import type { RunRecord } from '../store/agentRecords.ts';
import { openEventStream } from '../../common/http/sse.ts';
import { toWireJson } from '../wireJson.ts';
import { authOf, parseInput, uuidParam } from './requestInput.ts';

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
export async function replyWhenDone(reply: FastifyReply, outcome: Promise<RunOutcome>, headers: Record<string, string>, onClose?: () => void): Promise<void> {
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
export async function replyWithStream(reply: FastifyReply, run: ActiveRun, headers: Record<string, string>, lastEventId?: string, onClose?: () => void): Promise<void> {
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

export function runRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { runs, store } = deps;

  const create = async (request: FastifyRequest<{ Params: { thread_id?: string } }>, stateless: boolean) => {
    const body = parseInput(runCreateBody, request.body, 'run');
    const threadId = stateless ? undefined : uuidParam(request.params.thread_id, 'thread_id');
    const run = await runs.create(threadId, body, authOf(request));
    return { run, location: runLocation(run.record, stateless), cancelOnClose: body.on_disconnect === 'cancel' };
  };
  const cancelOnDisconnect = (run: ActiveRun, wanted: boolean) => (wanted ? () => runs.cancel(run.record.run_id, 'interrupt') : undefined);

  for (const stateless of [false, true]) {
    const base = stateless ? '/runs' : '/threads/:thread_id/runs';
    app.post<ThreadParams>(base, async (request, reply) => {
      const { run, location } = await create(request, stateless);
      reply.header('Content-Location', location);
      return run.record;
    });
    app.post<ThreadParams>(`${base}/stream`, async (request, reply) => {
      const { run, location, cancelOnClose } = await create(request, stateless);
      await replyWithStream(reply, run, { 'content-location': location }, undefined, cancelOnDisconnect(run, cancelOnClose));
    });
    app.post<ThreadParams>(`${base}/wait`, async (request, reply) => {
      const { run, location, cancelOnClose } = await create(request, stateless);
      await replyWhenDone(reply, run.outcome, { 'content-location': location }, cancelOnDisconnect(run, cancelOnClose));
    });
  }

  app.post('/runs/batch', async (request) => {
    const bodies = parseInput(z.array(z.unknown()).min(1, 'at least one run'), request.body, 'run batch');
    const created = [];
    for (const body of bodies) created.push((await runs.create(undefined, parseInput(runCreateBody, body, 'run'), authOf(request))).record);
    return created;
  });

  const findRun = async (params: { thread_id: string; run_id: string }): Promise<RunRecord> => {
    const threadId = uuidParam(params.thread_id, 'thread_id');
    const runId = uuidParam(params.run_id, 'run_id');
    const active = runs.get(runId);
    if (active && active.record.thread_id === threadId) return active.record;
    const record = await store.getRun(threadId, runId);
    if (!record) throw errors.notFound(`run ${runId} of thread ${threadId}`);
    return record;
  };

  app.get<ThreadParams & { Querystring: { limit?: string; offset?: string; status?: string } }>('/threads/:thread_id/runs', async (request) => {
    const threadId = uuidParam(request.params.thread_id, 'thread_id');
    if (!(await store.getThread(threadId))) throw errors.notFound(`thread ${threadId}`);
    const query = parseInput(
      z.object({
        limit: z.coerce.number().int().min(1).max(1000).default(10),
        offset: z.coerce.number().int().min(0).default(0),
        status: z.enum(['pending', 'running', 'error', 'success', 'timeout', 'interrupted']).optional(),
      }),
      request.query,
      'run list query',
    );
    return store.listRuns(threadId, query);
  });

  app.get<RunParams>('/threads/:thread_id/runs/:run_id', async (request, reply) => {
    const record = await findRun(request.params);
    reply.header('Content-Location', runLocation(record, false));
    return record;
  });

  app.delete<RunParams>('/threads/:thread_id/runs/:run_id', async (request, reply) => {
    const record = await findRun(request.params);
    if (runs.get(record.run_id) && !runs.get(record.run_id)!.done) throw errors.conflict(`run ${record.run_id} is still ${record.status}; cancel it first`);
    await store.deleteRun(record.thread_id, record.run_id);
    return reply.code(204).send();
  });

  app.get<RunParams>('/threads/:thread_id/runs/:run_id/join', async (request, reply) => {
    const record = await findRun(request.params);
    const location = { 'content-location': runLocation(record, false) };
    const active = runs.get(record.run_id);
    if (active) return replyWhenDone(reply, active.outcome, location);
    // Ended before this process's memory of it: the thread holds the final values.
    const thread = await store.getThread(record.thread_id);
    reply.headers(location);
    return thread?.values ?? {};
  });

  app.get<RunParams>('/threads/:thread_id/runs/:run_id/stream', async (request, reply) => {
    const record = await findRun(request.params);
    const location = { 'content-location': runLocation(record, false) };
    const active = runs.get(record.run_id);
    if (!active) {
      openEventStream(reply, location).end();
      return;
    }
    const lastEventId = request.headers['last-event-id'];
    await replyWithStream(reply, active, location, typeof lastEventId === 'string' ? lastEventId : undefined);
  });

  app.post<RunParams & { Querystring: { wait?: string; action?: string } }>('/threads/:thread_id/runs/:run_id/cancel', async (request, reply) => {
    const record = await findRun(request.params);
    const query = parseInput(
      z.object({ wait: z.enum(['true', 'false', '1', '0']).optional(), action: z.enum(['interrupt', 'rollback']).default('interrupt') }),
      request.query,
      'cancel query',
    );
    const active = runs.get(record.run_id);
    if (!active || active.done) throw errors.conflict(`run ${record.run_id} is ${record.status}; only pending or running runs can be cancelled`);
    runs.cancel(record.run_id, query.action);
    if (query.wait === 'true' || query.wait === '1') await active.outcome;
    return reply.code(202).header('Content-Location', runLocation(record, false)).send();
  });
}
