// `POST /mcp`: the assistants as MCP tools over the Streamable HTTP transport, stateless and
// answering in JSON, as LangGraph's agent server serves it (no session id; GET and DELETE are the
// server's 405, as a stateless server answers them). Registered where callers are authenticated:
// the same keys as the rest of the API, and tools run in the caller's workspace. Each request gets
// an MCP server and transport of its own (the SDK's web-standard transport, handed the body
// fastify parsed and checked); its answer goes out through fastify. A body that is not one
// JSON-RPC message is a 422 naming the field, as on every route; the transport's own refusals (an
// unsupported MCP-Protocol-Version) are a 400 with the error body of the other routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { errors } from '../../../platform/errors.ts';
import { accepts } from '../../../platform/http/contentNegotiation.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import { errorResponse } from '../routes/routeSchemas.ts';
import { mcpServer } from './mcpServer.ts';

const jsonrpc = { type: 'string', enum: ['2.0'] } as const;
// JSON numbers past 2^53 are not integers once read (the MCP SDK refuses them as ids): the range it keeps
const safeInteger = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;
const requestId = {
  type: ['string', 'integer'],
  ...safeInteger,
  description: 'the request’s id, echoed in its response',
} as const;
// `_meta` as the MCP SDK reads it, in a request's or notification's params and in a result
const meta = {
  type: 'object',
  additionalProperties: true,
  properties: {
    progressToken: { type: ['string', 'integer'], ...safeInteger },
    'io.modelcontextprotocol/related-task': {
      type: 'object',
      required: ['taskId'],
      additionalProperties: true,
      properties: { taskId: { type: 'string' } },
    },
  },
} as const;
const params = {
  type: 'object',
  additionalProperties: true,
  properties: { _meta: meta },
  description:
    'the method’s parameters: tools/list {cursor?}; tools/call {name, arguments, context?} (context: the run’s context, as on LangGraph)',
} as const;

/** One JSON-RPC 2.0 message (MCP no longer batches): a request, a notification, or a response to the server. */
const jsonRpcMessage = {
  description: 'a JSON-RPC 2.0 message: initialize, ping, tools/list, tools/call, or a notification',
  anyOf: [
    {
      title: 'request',
      type: 'object',
      required: ['jsonrpc', 'id', 'method'],
      additionalProperties: false,
      properties: { jsonrpc, id: requestId, method: { type: 'string' }, params },
    },
    {
      title: 'notification',
      type: 'object',
      required: ['jsonrpc', 'method'],
      additionalProperties: false,
      properties: { jsonrpc, method: { type: 'string' }, params },
    },
    {
      title: 'result',
      type: 'object',
      required: ['jsonrpc', 'id', 'result'],
      additionalProperties: false,
      properties: {
        jsonrpc,
        id: requestId,
        result: { type: 'object', additionalProperties: true, properties: { _meta: meta } },
      },
    },
    {
      title: 'error',
      type: 'object',
      required: ['jsonrpc', 'error'],
      additionalProperties: false,
      properties: {
        jsonrpc,
        id: requestId,
        error: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: { code: { type: 'integer', ...safeInteger }, message: { type: 'string' }, data: {} },
        },
      },
    },
  ],
} as const;

const jsonRpcResponse = {
  description:
    'the JSON-RPC response: a result (tools/list: {tools, nextCursor?}; tools/call: {content, structuredContent, isError?}) or an error (an unknown method or tool: -32601, -32602)',
  type: 'object',
  additionalProperties: true,
  properties: {
    jsonrpc: { type: 'string' },
    id: { type: ['string', 'integer', 'null'] },
    result: { type: 'object', additionalProperties: true },
    error: {
      type: 'object',
      additionalProperties: true,
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
  },
} as const;

/** The headers of the client's request the transport reads (the Accept it requires is ours to check). */
const TRANSPORT_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers({ accept: 'application/json, text/event-stream' });
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(request.url, 'http://mcp.invalid'), { method: 'POST', headers });
}

/** The transport's answer, through fastify; its refusals as the errors of the other routes. */
async function answer(request: FastifyRequest, reply: FastifyReply, response: Response): Promise<FastifyReply> {
  const text = await response.text();
  if (response.status === 400) {
    const refusal = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
    throw errors.badRequest(refusal ?? 'the MCP transport refused the request');
  }
  if (response.status === 415)
    throw errors.unsupportedMediaType(request.headers['content-type'] ?? '', 'application/json');
  if (response.status >= 300)
    throw errors.internal(new Error(`the MCP transport answered ${response.status}: ${text}`));
  reply.code(response.status);
  if (!text) return reply.send();
  return reply.type(response.headers.get('content-type') ?? 'application/json').send(text);
}

export function mcpRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  app.post(
    '/mcp',
    {
      schema: {
        tags: ['mcp'],
        summary: 'MCP (Streamable HTTP, stateless): the assistants as tools',
        description:
          'Each assistant the caller may see is a tool named after it, whose input schema is its graph’s input schema; tools/call runs it as a stateless run and answers its final values. Answers in JSON (application/json), never as a stream.',
        body: jsonRpcMessage,
        response: {
          200: jsonRpcResponse,
          202: { description: 'a notification or a response, taken', type: 'null' },
          400: errorResponse('an MCP-Protocol-Version this server does not speak'),
          406: errorResponse('an Accept header that rules out application/json'),
        },
      },
    },
    async (request, reply) => {
      const accept = request.headers.accept;
      if (!accepts(accept, 'application/json')) throw errors.notAcceptable(accept ?? '', ['application/json']);
      const server = mcpServer(deps, callerOf(request), request.body);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
        return await answer(request, reply, response);
      } finally {
        await server.close();
      }
    },
  );
}
