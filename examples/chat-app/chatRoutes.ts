// The agent streaming protocol under /api, as `@langchain/react`'s HttpAgentServerAdapter calls
// it with the app's paths: commands, the SSE stream, thread state, history, the thread list and
// deletion, each in the caller's workspace (registered in a scope that signs callers in, ./callers.ts).
// Errors are the platform's `{error, detail}` (platform/errors.ts, answered by the shared handler of
// platform/http/server.ts); a command the protocol refuses is answered with its ErrorResponse.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSupportedChannel, SUPPORTED_CHANNELS } from '@langchain/langgraph/stream';
import { AppError, errors } from '../../platform/errors.ts';
import { errorBody, errorResponses, serverSentEvent } from '../../platform/http/openapi.ts';
import { toAppError } from '../../platform/http/server.ts';
import { openEventStream, sseFrame, writeFrame } from '../../platform/http/sse.ts';
import type { Logger } from '../../platform/logger.ts';
import { threadKeyOf, workspaceOf } from './callers.ts';
import { storedThreadId } from './threadKey.ts';
import { errorResponse, parseCommand, parseRunStart, type ErrorResponse } from './protocol/commands.ts';
import { ThreadBusyError, type SessionRegistry } from './protocol/threadSession.ts';
import type { Subscription } from './protocol/runLog.ts';
import type { RunTracer } from './runTracing.ts';
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
  sessions: SessionRegistry;
  /** The assistants `run.start` takes. */
  assistants: readonly string[];
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
const protocolError = {
  type: 'object',
  required: ['type', 'error', 'message'],
  properties: {
    type: { const: 'error' },
    id: { type: ['integer', 'null'] },
    error: { type: 'string' },
    message: { type: 'string' },
  },
} as const;
const threadStateSchema = {
  type: 'object',
  additionalProperties: true,
  description:
    "The LangGraph SDK's ThreadState: values, next, tasks, checkpoint, metadata, created_at, parent_checkpoint.",
} as const;
const tags = ['agent streaming protocol'];
/** A channel a subscription may name (isSupportedChannel's rule). */
const CHANNEL = `^(?:${[...SUPPORTED_CHANNELS].join('|')}|custom:[\\s\\S]*)$`;
/** A thread id no checkpoint of the caller's workspace has: never made, deleted, or another workspace's (the same answer). */
const unknownThread = { 404: { description: "no such thread in the caller's workspace", ...errorBody } } as const;

/** The 404 of a thread the caller's workspace does not have. */
const threadNotFound = (err: ThreadNotFoundError) => new AppError('NOT_FOUND', err.message);

/** The status that answers a protocol error: the command was refused as bad input. */
const commandStatus = (response: ErrorResponse) =>
  response.error === 'unknown_command' || response.error === 'invalid_argument' ? 400 : 500;

export async function chatRoutes(app: FastifyInstance, options: ChatRoutesOptions): Promise<void> {
  const { graph, store, sessions, assistants, stateKeys, tracerFor, logger } = options;

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
      if (!sessions.peek(key)?.currentRun && !(await threadExists(graph, key)))
        throw threadNotFound(new ThreadNotFoundError(key.threadId));
      await sessions.delete(key);
      await store.checkpointer.deleteThread(storedThreadId(key));
      return reply.code(204).send();
    },
  });

  app.post<{ Params: { threadId: string } }>('/threads/:threadId/commands', {
    // The body is checked here rather than by the schema, so a malformed command gets the protocol's answer.
    attachValidation: true,
    schema: {
      tags,
      summary:
        'A protocol command: `run.start {assistant_id, input, config?, metadata?}` starts a run and returns its run_id',
      params: threadParams,
      // The one command this app serves, as parseCommand and parseRunStart read it.
      body: {
        type: 'object',
        required: ['id', 'method', 'params'],
        properties: {
          id: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          method: { type: 'string', enum: ['run.start'] },
          params: {
            type: 'object',
            required: ['assistant_id'],
            additionalProperties: false,
            properties: {
              assistant_id: { type: 'string', enum: [...assistants] },
              input: { type: ['object', 'null'], additionalProperties: true },
              config: {
                type: 'object',
                properties: {
                  configurable: { type: 'object', additionalProperties: true },
                  recursion_limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
              metadata: { type: 'object', additionalProperties: true },
            },
          },
        },
      },
      response: {
        200: {
          type: 'object',
          required: ['type', 'id', 'result'],
          properties: {
            type: { const: 'success' },
            id: { type: 'integer' },
            result: { type: 'object', additionalProperties: true },
          },
        },
        400: {
          description:
            "not a command, a bad argument, or a command this app does not serve (the protocol's ErrorResponse); a body that is not JSON, or a bad header ({error, detail})",
          anyOf: [protocolError, errorBody],
        },
        409: { description: 'the thread already has a run in progress', ...protocolError },
      },
    },
    handler: async (request: FastifyRequest<{ Params: { threadId: string } }>, reply) => {
      // The path is not the protocol's to answer: a thread id that is not one is the platform's 422, as on every route.
      if (request.validationError?.validationContext === 'params') throw request.validationError;
      const command = parseCommand(request.body);
      if ('type' in command) return reply.code(commandStatus(command)).send(command);
      if (command.method !== 'run.start') {
        const answer = errorResponse(
          command.id,
          'unknown_command',
          `this app serves only "run.start", not "${command.method}"`,
        );
        return reply.code(commandStatus(answer)).send(answer);
      }
      const params = parseRunStart(command.id, command.params, assistants);
      if ('type' in params) return reply.code(commandStatus(params)).send(params);
      try {
        const session = sessions.get(threadKeyOf(request, request.params.threadId));
        const runId = session.startRun({
          input: params.input ?? null,
          config: params.config,
          metadata: params.metadata,
          tracer: tracerFor(request),
        });
        return { type: 'success', id: command.id, result: { run_id: runId } };
      } catch (err) {
        if (err instanceof ThreadBusyError)
          return reply.code(409).send(errorResponse(command.id, 'invalid_argument', err.message));
        throw err;
      }
    },
  });

  app.post<{ Params: { threadId: string }; Body: Subscription }>('/threads/:threadId/stream', {
    schema: {
      tags,
      summary:
        "Server-sent protocol events of the thread's run: the buffered ones that match, then live ones; ends when the run has finished",
      params: threadParams,
      body: {
        type: 'object',
        required: ['channels'],
        additionalProperties: false,
        properties: {
          channels: {
            type: 'array',
            minItems: 1,
            items: { type: 'string', pattern: CHANNEL },
            description:
              'values, updates, messages, tools, lifecycle, input, checkpoints, tasks, custom, or custom:<name>',
          },
          namespaces: {
            type: 'array',
            items: { type: 'array', items: { type: 'string' } },
            description: 'namespace prefixes, compared segment by segment ("agent" matches "agent:<id>")',
          },
          depth: { type: 'integer', minimum: 0, description: 'how many segments below a matched prefix' },
          since: { type: 'integer', minimum: 0, description: 'skip events at or before this seq' },
        },
      },
      response: {
        200: {
          description:
            'an SSE stream: `event: <method>`, `id: <event_id>`, `data: <event JSON>`; a failure after it began: `event: error` with `{error, detail}`',
          content: { 'text/event-stream': { schema: serverSentEvent } },
        },
        ...errorResponses(422),
      },
    },
    handler: async (request, reply) => {
      const subscription = request.body;
      const unknown = subscription.channels.filter((c) => !isSupportedChannel(c));
      if (unknown.length > 0)
        throw errors.invalidField(
          `channels: unknown channel${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}; the channels are values, updates, messages, tools, lifecycle, input, checkpoints, tasks, custom and custom:<name>`,
        );
      // A thread this workspace does not have yet is followed as any other: its first run is awaited.
      const session = sessions.get(threadKeyOf(request, request.params.threadId));
      const stream = openEventStream(reply);
      const gone = new AbortController();
      stream.res.on('close', () => gone.abort());
      try {
        for await (const { frame } of session.subscribe(subscription, gone.signal)) await writeFrame(stream.res, frame);
      } catch (err) {
        logger.error({ err, threadId: request.params.threadId }, 'stream failed');
        const failure = toAppError(err as Error);
        stream.res.write(
          sseFrame({ event: 'error', data: JSON.stringify({ error: failure.code, detail: failure.message }) }),
        );
      } finally {
        stream.end();
      }
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
