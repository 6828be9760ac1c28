// GET /threads/{thread_id}/stream: join a thread's current and next runs (runs/threadStream.ts),
// as the SDKs' threads.joinStream / threads.join_stream call it. Another workspace's thread, or
// one the auth module's filter hides, is a 404 like an unknown one.
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import { openEventStream } from '../../../platform/http/sse.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import { queryStreamModes, streamModeQuerySchema } from '../runs/runEvents.ts';
import {
  parseThreadEventId,
  openThreadStream,
  THREAD_STREAM_MODES,
  type ThreadStreamMode,
} from '../runs/threadStream.ts';
import { errorResponse, eventStreamResponse, threadIdParams } from './routeSchemas.ts';

type Request = { Params: { thread_id: string }; Querystring: { stream_mode?: string | string[] } };

const query = {
  type: 'object',
  properties: {
    stream_mode: streamModeQuerySchema(
      THREAD_STREAM_MODES,
      'run_modes (default: every event of each run, and a run_done metadata event as it ends), lifecycle (each run’s start and end), state_update (the runs’ values); one, repeated, or a JSON array',
    ),
  },
} as const;

export function threadStreamRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { runs, store } = deps;
  app.get<Request>(
    '/threads/:thread_id/stream',
    {
      schema: {
        tags: ['threads'],
        summary: 'Stream the thread’s current and next runs (SSE) until the client leaves, from after Last-Event-ID',
        params: threadIdParams,
        querystring: query,
        response: {
          200: eventStreamResponse(
            'each run’s events (ids `<run id>:<n>`), then `metadata` {run_id, status: "run_done"}',
          ),
          404: errorResponse('no such thread (or not the caller’s)'),
          422: errorResponse('a stream_mode that is not run_modes, lifecycle or state_update'),
        },
      },
    },
    async (request, reply) => {
      const threadId = request.params.thread_id.toLowerCase();
      const modes = queryStreamModes(request.query.stream_mode) ?? ['run_modes'];
      const unknown = modes.find((m) => !(THREAD_STREAM_MODES as readonly string[]).includes(m));
      if (unknown !== undefined)
        throw errors.invalidField(
          `querystring/stream_mode: "${unknown.slice(0, 40)}" is not one of ${THREAD_STREAM_MODES.join(', ')}`,
        );
      const scope = await callerOf(request).scope('threads:read', { thread_id: threadId });
      if (!(await store.getThread(scope, threadId))) throw errors.notFound(`thread ${threadId}`);
      const lastEventId = request.headers['last-event-id'];
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      // watching before the headers go: a client that has them may start runs, and sees them all
      const events = await openThreadStream(
        { runs, store, request },
        { workspaceId: scope.workspaceId, threadId },
        scope,
        parseThreadEventId(typeof lastEventId === 'string' ? lastEventId : undefined),
        new Set(modes as ThreadStreamMode[]),
        gone.signal,
      );
      const location = `/threads/${threadId}/stream`;
      const stream = openEventStream(reply, { 'content-location': location, location });
      try {
        for await (const event of events) await stream.send(event);
      } catch (err) {
        request.log.warn({ thread_id: threadId, err: (err as Error).message }, 'a thread stream failed');
      } finally {
        stream.end();
      }
    },
  );
}
