// The chat app's API under /api: the agent streaming protocol as `@langchain/react`'s
// HttpAgentServerAdapter calls it with the app's paths (commands and the SSE stream, carried out
// by the agent server's implementation, run in this process: services/agent-server's
// embeddedAgentServer), and the app's own routes: thread state, history, the thread list and
// deletion. Each acts in the caller's workspace (registered in a scope that signs callers in,
// ./callers.ts). Errors are the platform's `{error, detail}` (platform/errors.ts, answered by the
// shared handler of platform/http/server.ts); a command the protocol refuses is answered with its
// ErrorResponse.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../platform/errors.ts';
import { errorBody, errorResponses } from '../../platform/http/openapi.ts';
import type { Logger } from '../../platform/logger.ts';
import type { WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import {
  protocolCommandBodySchema,
  protocolErrorSchema,
  protocolStreamResponse,
  protocolSubscriptionSchema,
  protocolSuccessSchema,
  sendProtocolStream,
  type EmbeddedAgentServer,
  type ProtocolSubscription,
  type RunTracer,
} from '../../services/agent-server/plugins.ts';
import { threadKeyOf, workspaceOf } from './callers.ts';
import {
  getThreadHistory,
  getThreadState,
  InvalidStateUpdateError,
  listThreads,
  threadExists,
  ThreadNotFoundError,
  updateThreadState,
  type StatefulGraph,
  type ThreadStore,
} from './threads.ts';

export interface ChatRoutesOptions {
  graph: StatefulGraph;
  store: ThreadStore;
  /** The agent server in this process: its runs and its protocol. */
  agentServer: EmbeddedAgentServer;
  /** The graph's checkpointer (each workspace's threads apart). */
  checkpointer: WorkspaceCheckpointer;
  /** The keys of the graph's state, which a state update may set. */
  stateKeys: ReadonlySet<string>;
  /** How a run this request starts is traced (on the caller's behalf); not traced when it gives none. */
  tracerFor(request: FastifyRequest): RunTracer | undefined;
  logger: Logger;
}

const THREAD_ID = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
const threadParams = {
  type: 'object',
  required: ['threadId'],
  properties: {
    threadId: {
      type: 'string',
      pattern: THREAD_ID,
      description:
        'A thread id the client chooses (the page uses UUIDs): letters, digits, ".", "_", ":", "-"; at most 128.',
    },
  },
} as const;
const threadStateSchema = {
  type: 'object',
  additionalProperties: true,
  description:
    "The LangGraph SDK's ThreadState: values, next, tasks, checkpoint, metadata, created_at, parent_checkpoint.",
} as const;
const tags = ['agent streaming protocol'];
/** A thread id no checkpoint of the caller's workspace has: never made, deleted, or another workspace's (the same answer). */
const unknownThread = { 404: { description: "no such thread in the caller's workspace", ...errorBody } } as const;

/** The 404 of a thread the caller's workspace does not have. */
const threadNotFound = (err: ThreadNotFoundError) => new AppError('NOT_FOUND', err.message);

export async function chatRoutes(app: FastifyInstance, options: ChatRoutesOptions): Promise<void> {
  const { graph, store, agentServer, checkpointer, stateKeys, tracerFor, logger } = options;

  app.get('/threads', {
    schema: {
      tags,
      summary: "The caller's workspace's threads, newest first (at most 200)",
      response: {
        200: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'title', 'updatedAt'],
            properties: { id: { type: 'string' }, title: { type: 'string' }, updatedAt: { type: ['string', 'null'] } },
          },
        },
      },
    },
    handler: async (request) => listThreads(graph, store, workspaceOf(request)),
  });

  app.delete<{ Params: { threadId: string } }>('/threads/:threadId', {
    schema: {
      tags,
      summary: 'Deletes a thread: its running run is cancelled, its streams end, its checkpoints are gone',
      params: threadParams,
      response: { 204: { type: 'null', description: 'deleted' }, ...unknownThread },
    },
    handler: async (request, reply) => {
      const key = threadKeyOf(request, request.params.threadId);
      // A thread exists once it has a checkpoint, or while a run of it is under way (before its first checkpoint).
      if (!(await agentServer.hasRunUnderWay(key)) && !(await threadExists(graph, key)))
        throw threadNotFound(new ThreadNotFoundError(key.threadId));
      await agentServer.deleteThread(key);
      await checkpointer.deleteThreadOf(key);
      return reply.code(204).send();
    },
  });

  app.post<{ Params: { threadId: string } }>('/threads/:threadId/commands', {
    // The body is read by the protocol rather than by the schema, so a malformed command gets the protocol's answer.
    attachValidation: true,
    schema: {
      tags,
      summary:
        'A protocol command: `run.start {assistant_id: "deep_agent", input}` starts a run and returns its run_id; input.respond, state.get, state.listCheckpoints, state.fork',
      params: threadParams,
      body: protocolCommandBodySchema,
      response: {
        200: protocolSuccessSchema,
        400: {
          description:
            "not a command, a bad argument, or a command this app does not serve (the protocol's ErrorResponse); a body that is not JSON, or a bad header ({error, detail})",
          anyOf: [protocolErrorSchema, errorBody],
        },
        404: {
          description:
            "no such thread in the caller's workspace ({error, detail}); no interrupt, checkpoint or interrupted run of that id (the protocol's ErrorResponse)",
          anyOf: [errorBody, protocolErrorSchema],
        },
        409: { description: 'the thread already has a run in progress (it is named)', ...protocolErrorSchema },
      },
    },
    handler: async (request: FastifyRequest<{ Params: { threadId: string } }>, reply) => {
      // The path is not the protocol's to answer: a thread id that is not one is the platform's 422, as on every route.
      if (request.validationError?.validationContext === 'params') throw request.validationError;
      const key = threadKeyOf(request, request.params.threadId);
      const answer = await agentServer.protocol.command(
        agentServer.callerIn(key.workspaceId),
        key.threadId,
        request.body,
        tracerFor(request),
      );
      return reply.code(answer.status).send(answer.body);
    },
  });

  app.post<{ Params: { threadId: string }; Body: ProtocolSubscription }>('/threads/:threadId/stream', {
    schema: {
      tags,
      summary:
        "Server-sent protocol events of the thread's run: the buffered ones that match, then live ones; ends when the run has finished",
      params: threadParams,
      body: protocolSubscriptionSchema,
      response: { 200: protocolStreamResponse, ...errorResponses(422) },
    },
    handler: async (request, reply) => {
      // A thread this workspace does not have yet is followed as any other: its first run is awaited.
      const key = threadKeyOf(request, request.params.threadId);
      const follow = await agentServer.protocol.subscription(
        agentServer.callerIn(key.workspaceId),
        key.threadId,
        false,
      );
      await sendProtocolStream(reply, (signal) => follow(request.body, signal), logger);
    },
  });

  app.get<{ Params: { threadId: string } }>('/threads/:threadId/state', {
    schema: {
      tags,
      summary: "The thread's state at its latest checkpoint",
      params: threadParams,
      response: {
        200: threadStateSchema,
        404: {
          description: "no checkpoint in the caller's workspace: a new thread is bootstrapped with POST …/state",
          ...errorBody,
        },
      },
    },
    handler: async (request) => {
      try {
        return await getThreadState(graph, threadKeyOf(request, request.params.threadId));
      } catch (err) {
        throw err instanceof ThreadNotFoundError ? threadNotFound(err) : err;
      }
    },
  });

  app.post<{
    Params: { threadId: string };
    Body: {
      values?: Record<string, unknown> | null;
      checkpoint?: Record<string, unknown> | null;
      as_node?: string;
    } | null;
  }>('/threads/:threadId/state', {
    schema: {
      tags,
      summary: 'Bootstraps a thread (`{values:{messages:[]}}`) or updates its state',
      params: threadParams,
      body: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          values: {
            type: ['object', 'null'],
            additionalProperties: false,
            description: 'the state keys to set',
            properties: Object.fromEntries(
              [...stateKeys].map((key) => [key, key === 'messages' ? { type: 'array', description: 'messages' } : {}]),
            ),
          },
          checkpoint: { type: ['object', 'null'], additionalProperties: true },
          as_node: { type: 'string' },
        },
      },
      response: {
        200: threadStateSchema,
        422: { description: 'an update the state cannot take, or a body that is not one', ...errorBody },
      },
    },
    handler: async (request) => {
      try {
        return await updateThreadState(
          graph,
          threadKeyOf(request, request.params.threadId),
          request.body ?? {},
          stateKeys,
        );
      } catch (err) {
        throw err instanceof InvalidStateUpdateError ? errors.invalidField(err.message) : err;
      }
    },
  });

  app.post<{
    Params: { threadId: string };
    Body: {
      limit?: number;
      before?: string | { checkpoint_id?: string } | null;
      metadata?: Record<string, unknown>;
      checkpoint?: Record<string, unknown> | null;
    } | null;
  }>(
    '/threads/:threadId/history',
    {
      schema: {
        tags,
        summary: "The thread's checkpoints, newest first: `limit` at a time, `before` a checkpoint to page on",
        params: threadParams,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
            before: {
              anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }, { type: 'null' }],
              description: 'a checkpoint id, or a checkpoint object with checkpoint_id',
            },
            metadata: { type: 'object', additionalProperties: true },
            checkpoint: { type: ['object', 'null'], additionalProperties: true },
          },
        },
        response: { 200: { type: 'array', items: threadStateSchema }, ...unknownThread },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      try {
        return await getThreadHistory(graph, threadKeyOf(request, request.params.threadId), {
          limit: body.limit ?? 10,
          before: body.before,
          metadata: body.metadata,
          checkpoint: body.checkpoint,
        });
      } catch (err) {
        throw err instanceof ThreadNotFoundError ? threadNotFound(err) : err;
      }
    },
  );
}
