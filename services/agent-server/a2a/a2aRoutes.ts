// A2A over HTTP: the JSON-RPC endpoint `POST /a2a/{assistant_id}` and the agent cards
// (`GET /a2a/{assistant_id}/.well-known/agent-card.json`, `GET /.well-known/agent-card.json?assistant_id=…`,
// and `GET /a2a/{assistant_id}` itself). JSON-RPC errors answer with HTTP 200 and an `error`
// object; only an Accept header that rules out the answer's type gets an HTTP 400.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { RegisteredGraph } from '../graphRegistry.ts';
import { authOf } from '../routes/requestInput.ts';
import { openEventStream } from '../../common/http/sse.ts';
import { accepts } from '../../common/http/contentNegotiation.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';
import { A2aHandlers, type A2aCall } from './a2aHandlers.ts';
import { a2aMethod, checkA2aVersion, type A2aMethod } from './a2aMethods.ts';
import type { A2aStreamEvent } from './a2aTypes.ts';
import { agentCard, publicBaseUrl } from './agentCard.ts';
import { A2aError, a2aErrors, jsonRpcError, jsonRpcResult, parseJsonRpcRequest, type JsonRpcId } from './jsonRpc.ts';
import { sendResult, streamResult, taskResult } from './v1Dialect.ts';

/** A JSON-RPC request body is small: a message and its parts. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

type AssistantParams = { Params: { assistant_id: string } };

export { accepts };

/** Any failure as the JSON-RPC error it is answered with; unexpected ones are logged and answered as internal errors. */
function asA2aError(err: unknown, request: FastifyRequest): A2aError {
  if (err instanceof A2aError) return err;
  request.log.error({ err }, 'A2A request failed');
  return a2aErrors.internal();
}

export function a2aRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const handlers = new A2aHandlers(deps);
  const baseUrlOf = (request: FastifyRequest) => publicBaseUrl(request, deps.config.USER_API_URL);
  const cardOf = (request: FastifyRequest, registered: RegisteredGraph) => agentCard(registered, baseUrlOf(request), AGENT_SERVER_VERSION);

  const replyWithCard = (request: FastifyRequest, reply: FastifyReply, assistantId: string) => {
    const registered = deps.graphs.find(assistantId);
    if (!registered) return reply.code(404).send({ error: { code: -32602, message: `Assistant "${assistantId}" not found` } });
    return reply.send(cardOf(request, registered));
  };

  const doc = (summary: string) => ({ schema: { tags: ['a2a'], summary } });
  app.get<{ Querystring: { assistant_id?: string } }>('/.well-known/agent-card.json', doc('The agent card of ?assistant_id (or DEFAULT_A2A_ASSISTANT_ID)'), async (request, reply) => {
    const assistantId = request.query.assistant_id || deps.config.DEFAULT_A2A_ASSISTANT_ID;
    if (!assistantId) {
      return reply.code(400).send({ error: { code: -32602, message: 'assistant_id is required: GET /.well-known/agent-card.json?assistant_id=<assistant id or graph name>' } });
    }
    return replyWithCard(request, reply, assistantId);
  });
  for (const path of ['/a2a/:assistant_id', '/a2a/:assistant_id/.well-known/agent-card.json', '/a2a/:assistant_id/.well-known/agent.json']) {
    app.get<AssistantParams>(path, doc('The agent card of an assistant'), async (request, reply) => replyWithCard(request, reply, request.params.assistant_id));
  }

  const call = async (request: FastifyRequest<AssistantParams>, reply: FastifyReply) => {
    const parsed = parseJsonRpcRequest(typeof request.body === 'string' ? request.body : '');
    if (!parsed.ok) return jsonRpcError(parsed.id, parsed.error);
    const { id, params, metadata } = parsed.request;
    try {
      const method = a2aMethod(parsed.request.method);
      const streaming = method.operation === 'stream';
      const accept = request.headers.accept;
      if (streaming ? !accepts(accept, 'text/event-stream') : !accepts(accept, 'application/json', 'application/a2a+json')) {
        const wanted = streaming ? 'text/event-stream' : 'application/json';
        return reply.code(400).send({ error: `Accept must include ${wanted} for ${parsed.request.method} (got "${accept}")` });
      }
      checkA2aVersion(request.headers['a2a-version'] as string | undefined);
      const registered = deps.graphs.find(request.params.assistant_id);
      if (!registered) throw a2aErrors.assistantNotFound(request.params.assistant_id);
      const a2aCall: A2aCall = { registered, auth: authOf(request), requestMetadata: metadata };
      switch (method.operation) {
        case 'send':
          return jsonRpcResult(id, sendResult(await handlers.send(a2aCall, params), method.dialect));
        case 'getTask':
          return jsonRpcResult(id, taskResult(await handlers.getTask(a2aCall, params), method.dialect));
        case 'cancelTask':
          return jsonRpcResult(id, taskResult(await handlers.cancelTask(a2aCall, params), method.dialect));
        case 'agentCard':
          return jsonRpcResult(id, cardOf(request, registered));
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

  // The body is read as text here, so that bad JSON is answered as a JSON-RPC parse error.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => done(null, body));
    scope.post<AssistantParams>('/a2a/:assistant_id', doc('A2A JSON-RPC 2.0: message/send, message/stream, tasks/get, tasks/cancel (and their v1.0 names)'), call);
  });
}

/** message/stream's answer: one SSE `message` event per A2A event, each a JSON-RPC response echoing the request's id. */
async function replyWithEvents(request: FastifyRequest, reply: FastifyReply, id: JsonRpcId, method: A2aMethod, events: AsyncGenerator<A2aStreamEvent>): Promise<void> {
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
