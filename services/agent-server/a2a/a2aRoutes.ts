// A2A over HTTP: the JSON-RPC endpoint `POST /a2a/{assistant_id}` and the agent cards
// (`GET /a2a/{assistant_id}/.well-known/agent-card.json`, `GET /.well-known/agent-card.json?assistant_id=…`,
// and `GET /a2a/{assistant_id}` itself). The cards are public (clients read them before they
// authenticate); the endpoint is registered where callers are authenticated. JSON-RPC errors
// answer with HTTP 200 and an `error` object; only an Accept header that rules out the answer's
// type gets an HTTP 400.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { RegisteredGraph } from '../graphRegistry.ts';
import { callerOf } from '../auth/callers.ts';
import { assistantIdParams, errorResponse, eventStreamResponse } from '../routes/routeSchemas.ts';
import { openEventStream } from '../../../platform/http/sse.ts';
import { readDecodedBody } from '../../../platform/http/requestBody.ts';
import { accepts } from '../../../platform/http/contentNegotiation.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';
import { A2aHandlers, type A2aCall } from './a2aHandlers.ts';
import { a2aMethod, checkA2aVersion, type A2aMethod } from './a2aMethods.ts';
import type { A2aStreamEvent } from './a2aTypes.ts';
import { agentCard } from './agentCard.ts';
import { publicBaseUrl } from '../../../platform/http/publicUrl.ts';
import { A2aError, a2aErrors, jsonRpcError, jsonRpcResult, parseJsonRpcRequest, type JsonRpcId } from './jsonRpc.ts';
import { sendResult, streamResult, taskResult } from './v1Dialect.ts';

type AssistantParams = { Params: { assistant_id: string } };

/** Any failure as the JSON-RPC error it is answered with; unexpected ones are logged and answered as internal errors. */
function asA2aError(err: unknown, request: FastifyRequest): A2aError {
  if (err instanceof A2aError) return err;
  request.log.error({ err }, 'A2A request failed');
  return a2aErrors.internal();
}

const cardError = (description: string) => ({
  description,
  type: 'object',
  properties: { error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } } },
});
const strings = { type: 'array', items: { type: 'string' } } as const;
const agentCardSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'the A2A agent card (v0.3 fields, and supportedInterfaces for v1.0 clients)',
  properties: {
    protocolVersion: { type: 'string', description: 'the A2A version of the top-level fields (0.3.0)' },
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string', description: 'the JSON-RPC endpoint (v0.3 clients)' },
    preferredTransport: { type: 'string' },
    supportedInterfaces: {
      type: 'array',
      description: 'the endpoint per protocol version (v1.0 clients)',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          url: { type: 'string' },
          protocolBinding: { type: 'string' },
          protocolVersion: { type: 'string' },
        },
      },
    },
    version: { type: 'string', description: 'the agent server’s version' },
    capabilities: {
      type: 'object',
      additionalProperties: true,
      properties: {
        streaming: { type: 'boolean' },
        pushNotifications: { type: 'boolean' },
        stateTransitionHistory: { type: 'boolean' },
      },
    },
    defaultInputModes: strings,
    defaultOutputModes: strings,
    skills: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          tags: strings,
          examples: { type: 'array', items: {} },
          inputModes: strings,
          outputModes: strings,
          metadata: {
            type: 'object',
            additionalProperties: true,
            description: 'inputSchema: the state keys, and supportsA2A',
          },
        },
      },
    },
  },
} as const;

const jsonRpcRequestSchema = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  additionalProperties: true,
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: ['string', 'number', 'null'] },
    method: {
      type: 'string',
      description:
        'message/send, message/stream, tasks/get, tasks/cancel, agent/getAuthenticatedExtendedCard, or their v1.0 names',
    },
    params: { type: 'object', additionalProperties: true },
    metadata: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'thread_id here names the tracing thread',
    },
  },
} as const;
const jsonRpcResponseSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    jsonrpc: { type: 'string' },
    id: { type: ['string', 'number', 'null'] },
    result: { description: 'the method’s result' },
    error: {
      type: 'object',
      additionalProperties: true,
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
  },
} as const;

const cardOf = (deps: AgentServerDeps, request: FastifyRequest, registered: RegisteredGraph) =>
  agentCard(registered, publicBaseUrl(request, deps.config.USER_API_URL), AGENT_SERVER_VERSION);

/** The agent cards: public, as A2A clients read them before they authenticate. */
export function a2aCardRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const replyWithCard = (request: FastifyRequest, reply: FastifyReply, assistantId: string) => {
    const registered = deps.graphs.find(assistantId);
    if (!registered)
      return reply.code(404).send({ error: { code: -32602, message: `Assistant "${assistantId}" not found` } });
    return reply.send(cardOf(deps, request, registered));
  };

  const notFound = cardError('no such assistant');
  const doc = (summary: string, schema: Record<string, unknown>) => ({ schema: { tags: ['a2a'], summary, ...schema } });
  // Without DEFAULT_A2A_ASSISTANT_ID the query must name one; its absence is answered in the
  // reference server's shape (400, a JSON-RPC error object), not as a schema violation.
  const fallback = deps.config.DEFAULT_A2A_ASSISTANT_ID;
  const cardQuery = {
    type: 'object',
    ...(fallback ? {} : { required: ['assistant_id'] }),
    properties: {
      assistant_id: {
        type: 'string',
        ...(fallback ? {} : { minLength: 1 }),
        description: 'the assistant: its UUID, or its graph name',
      },
    },
  };
  app.get<{ Querystring: { assistant_id?: string } }>(
    '/.well-known/agent-card.json',
    {
      ...doc('The agent card of ?assistant_id (or DEFAULT_A2A_ASSISTANT_ID)', {
        querystring: cardQuery,
        response: {
          200: agentCardSchema,
          400: cardError('no assistant named, and no DEFAULT_A2A_ASSISTANT_ID'),
          404: notFound,
        },
      }),
      attachValidation: true,
    },
    async (request, reply) => {
      const assistantId = request.query.assistant_id || fallback;
      if (!assistantId || request.validationError) {
        return reply.code(400).send({
          error: {
            code: -32602,
            message:
              'assistant_id is required: GET /.well-known/agent-card.json?assistant_id=<assistant id or graph name>',
          },
        });
      }
      return replyWithCard(request, reply, assistantId);
    },
  );
  for (const path of [
    '/a2a/:assistant_id',
    '/a2a/:assistant_id/.well-known/agent-card.json',
    '/a2a/:assistant_id/.well-known/agent.json',
  ]) {
    app.get<AssistantParams>(
      path,
      doc('The agent card of an assistant', {
        params: assistantIdParams,
        response: { 200: agentCardSchema, 404: notFound },
      }),
      async (request, reply) => replyWithCard(request, reply, request.params.assistant_id),
    );
  }
}

/** The JSON-RPC endpoint: register it where callers are authenticated (auth/callers.ts). */
export function a2aRpcRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const handlers = new A2aHandlers(deps);

  const call = async (request: FastifyRequest<AssistantParams>, reply: FastifyReply) => {
    const parsed = parseJsonRpcRequest(typeof request.body === 'string' ? request.body : '');
    if (!parsed.ok) return jsonRpcError(parsed.id, parsed.error);
    const { id, params, metadata } = parsed.request;
    try {
      const method = a2aMethod(parsed.request.method);
      const streaming = method.operation === 'stream';
      const accept = request.headers.accept;
      if (
        streaming ? !accepts(accept, 'text/event-stream') : !accepts(accept, 'application/json', 'application/a2a+json')
      ) {
        const wanted = streaming ? 'text/event-stream' : 'application/json';
        return reply
          .code(400)
          .send({ error: `Accept must include ${wanted} for ${parsed.request.method} (got "${accept}")` });
      }
      checkA2aVersion(request.headers['a2a-version'] as string | undefined);
      const registered = deps.graphs.find(request.params.assistant_id);
      if (!registered) throw a2aErrors.assistantNotFound(request.params.assistant_id);
      const a2aCall: A2aCall = { registered, caller: callerOf(request), requestMetadata: metadata };
      switch (method.operation) {
        case 'send':
          return jsonRpcResult(id, sendResult(await handlers.send(a2aCall, params), method.dialect));
        case 'getTask':
          return jsonRpcResult(id, taskResult(await handlers.getTask(a2aCall, params), method.dialect));
        case 'cancelTask':
          return jsonRpcResult(id, taskResult(await handlers.cancelTask(a2aCall, params), method.dialect));
        case 'agentCard':
          return jsonRpcResult(id, cardOf(deps, request, registered));
        case 'stream': {
          const gone = new AbortController();
          reply.raw.on('close', () => gone.abort());
          const events = await handlers.stream(a2aCall, params, gone.signal);
          return replyWithEvents(request, reply, id, method, events);
        }
      }
    } catch (err) {
      return jsonRpcError(id, asA2aError(err, request));
    }
  };

  // The body is read as text here (decoded as its Content-Encoding says, up to the server's body
  // limit), so that bad JSON is answered as a JSON-RPC parse error; for the same reason the
  // schemas below document the request and are not checked by fastify: every problem with it is
  // a JSON-RPC error.
  const bodyLimit = { bytes: deps.config.AGENT_SERVER_BODY_LIMIT_BYTES, setting: 'AGENT_SERVER_BODY_LIMIT_BYTES' };
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, payload, done) => {
      readDecodedBody(payload, request.headers, bodyLimit).then(
        (body) => done(null, body.toString('utf8')),
        (err: Error) => done(err),
      );
    });
    scope.post<AssistantParams>(
      '/a2a/:assistant_id',
      {
        schema: {
          tags: ['a2a'],
          summary: 'A2A JSON-RPC 2.0: message/send, message/stream, tasks/get, tasks/cancel (and their v1.0 names)',
          params: assistantIdParams,
          body: jsonRpcRequestSchema,
          response: {
            200: {
              description:
                'a JSON-RPC response (errors too: unknown assistant, task or method, bad params), or for message/stream an SSE stream of them',
              content: {
                'application/json': { schema: jsonRpcResponseSchema },
                'text/event-stream': eventStreamResponse('').content['text/event-stream'],
              },
            },
            400: {
              description: 'the Accept header rules out the answer’s media type',
              type: 'object',
              properties: { error: { type: 'string' } },
            },
            413: errorResponse('the body is larger than AGENT_SERVER_BODY_LIMIT_BYTES'),
          },
        },
        validatorCompiler: () => () => true,
      },
      call,
    );
  });
}

/** message/stream's answer: one SSE `message` event per A2A event, each a JSON-RPC response echoing the request's id. */
async function replyWithEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  id: JsonRpcId,
  method: A2aMethod,
  events: AsyncGenerator<A2aStreamEvent>,
): Promise<void> {
  const stream = openEventStream(reply);
  const frame = (payload: unknown) => stream.send({ event: 'message', data: JSON.stringify(payload) });
  try {
    for await (const event of events) await frame(jsonRpcResult(id, streamResult(event, method.dialect)));
  } catch (err) {
    await frame(jsonRpcError(id, asA2aError(err, request)));
  } finally {
    stream.end();
  }
}
