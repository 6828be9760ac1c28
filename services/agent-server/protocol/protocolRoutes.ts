// The agent streaming protocol's HTTP transport, where LangGraph's agent server mounts it and
// `@langchain/react`'s HttpAgentServerAdapter looks for it without `paths`:
//   POST /threads/{thread_id}/commands       a command; its answer (./protocolService.ts)
//   POST /threads/{thread_id}/stream/events  the thread's events (SSE), filtered by the body
// Registered in the scope that authenticates callers: each acts in its workspace.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SUPPORTED_CHANNELS } from '@langchain/langgraph/stream';
import type { Logger } from '../../../platform/logger.ts';
import { errorBody } from '../../../platform/http/openapi.ts';
import { toAppError } from '../../../platform/http/server.ts';
import { openEventStream, sseFrame, writeFrame } from '../../../platform/http/sse.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import { isRelayed } from '../runs/replicaProxy.ts';
import { errorResponse, eventStreamResponse, threadIdParams } from '../routes/routeSchemas.ts';
import { commandBodySchema, errorResponseSchema, successResponseSchema } from './protocolCommands.ts';
import { ProtocolService } from './protocolService.ts';
import type { OutgoingFrame } from './protocolStreams.ts';
import { PROTOCOL_RUN_HEADER, relayProtocolRun } from './remoteRunEvents.ts';
import type { Subscription } from './runLog.ts';

const tags = ['agent streaming protocol'];

/** A channel a subscription may name (isSupportedChannel's rule). */
const CHANNEL = `^(?:${[...SUPPORTED_CHANNELS].join('|')}|custom:[\\s\\S]*)$`;

/** A subscription's filter, as the stream routes take it. */
export const subscriptionSchema = {
  type: 'object',
  required: ['channels'],
  additionalProperties: false,
  properties: {
    channels: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', pattern: CHANNEL },
      description: 'values, updates, messages, tools, lifecycle, input, checkpoints, tasks, custom, or custom:<name>',
    },
    namespaces: {
      type: 'array',
      items: { type: 'array', items: { type: 'string' } },
      description: 'namespace prefixes, compared segment by segment ("agent" matches "agent:<id>")',
    },
    depth: { type: 'integer', minimum: 0, description: 'how many segments below a matched prefix' },
    since: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'skip events at or before this seq',
    },
  },
} as const;

/** The 200 of a stream route, for the OpenAPI document. */
export const protocolStreamResponse = eventStreamResponse(
  'an SSE stream: `event: <method>`, `id: <event_id>`, `data: <event JSON>`; a failure after it began: `event: error` with `{error, detail}`',
);

/** Sends `frames` as an SSE stream, until they end or the client goes away. */
export async function sendProtocolStream(
  reply: FastifyReply,
  frames: (signal: AbortSignal) => AsyncIterable<OutgoingFrame>,
  logger: Logger,
): Promise<void> {
  const stream = openEventStream(reply);
  const gone = new AbortController();
  stream.res.on('close', () => gone.abort());
  try {
    for await (const { frame } of frames(gone.signal)) await writeFrame(stream.res, frame);
  } catch (err) {
    logger.error({ err }, 'protocol stream failed');
    const failure = toAppError(err as Error);
    stream.res.write(
      sseFrame({ event: 'error', data: JSON.stringify({ error: failure.code, detail: failure.message }) }),
    );
  } finally {
    stream.end();
  }
}

type ThreadParams = { Params: { thread_id: string } };

export function protocolRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { runs, store, graphs, protocolStreams: streams, logger } = deps;
  const service = new ProtocolService({ runs, store, graphs, streams });

  app.post<ThreadParams>('/threads/:thread_id/commands', {
    // The body is read by the service rather than by the schema, so that a malformed command gets the protocol's answer.
    attachValidation: true,
    schema: {
      tags,
      summary:
        'A protocol command: run.start, input.respond, state.get, state.listCheckpoints or state.fork; its answer',
      params: threadIdParams,
      body: commandBodySchema,
      response: {
        200: successResponseSchema,
        400: {
          description:
            "not a command, a bad argument, or a command this server does not serve (the protocol's ErrorResponse); a body that is not JSON ({error, detail})",
          anyOf: [errorResponseSchema, errorBody],
        },
        404: {
          description:
            "no such thread in the caller's workspace ({error, detail}); no interrupt, checkpoint or interrupted run of that id (the protocol's ErrorResponse)",
          anyOf: [errorBody, errorResponseSchema],
        },
        409: { description: 'the thread already has a run in progress (it is named)', ...errorResponseSchema },
        422: errorResponse('the thread id is not a UUID'),
      },
    },
    handler: async (request: FastifyRequest<ThreadParams>, reply) => {
      // The path is not the protocol's to answer: a thread id that is not one is the platform's 422, as on every route.
      if (request.validationError?.validationContext === 'params') throw request.validationError;
      const threadId = request.params.thread_id.toLowerCase();
      const answer = await service.command(callerOf(request), threadId, request.body);
      return reply.code(answer.status).send(answer.body);
    },
  });

  app.post<ThreadParams & { Body: Subscription }>('/threads/:thread_id/stream/events', {
    schema: {
      tags,
      summary:
        "The thread's protocol events (SSE): the buffered ones of its current or last run that match, then live ones; ends when that run has ended",
      params: threadIdParams,
      body: subscriptionSchema,
      response: { 200: protocolStreamResponse, 404: errorResponse("no such thread in the caller's workspace") },
    },
    handler: async (request, reply) => {
      const threadId = request.params.thread_id.toLowerCase();
      const caller = callerOf(request);
      const subscription = request.body;
      const relayedRun = request.headers[PROTOCOL_RUN_HEADER];
      if (isRelayed(request) && typeof relayedRun === 'string') {
        // Another replica follows a run executed here: that run's events only.
        await service.subscription(caller, threadId, true);
        const thread = { workspaceId: caller.workspaceId, threadId };
        return sendProtocolStream(
          reply,
          (signal) => streams.followRun(thread, relayedRun, subscription, signal),
          logger,
        );
      }
      const follow = await service.subscription(caller, threadId, true);
      const thread = { workspaceId: caller.workspaceId, threadId };
      await sendProtocolStream(
        reply,
        (signal) =>
          follow(subscription, signal, {
            relay: (run, filter, stop) => relayProtocolRun(request, thread, run, filter, stop),
          }),
        logger,
      );
    },
  });
}
