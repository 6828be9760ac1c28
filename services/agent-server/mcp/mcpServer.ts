// One caller's MCP server, for one request (the endpoint is stateless, as LangGraph's is): the
// MCP SDK's Server answers initialize, ping and the protocol's errors; tools/list lists the
// assistants served to the caller (mcpTools.ts), and tools/call runs one statelessly, as
// POST /runs/wait does (through the run manager, in the caller's workspace, on a temporary
// thread), answering the run's final values as JSON text and as structured content. A run that
// fails, or that the server refuses, is a tool error (`isError`) saying why; an unknown tool is a
// JSON-RPC error. The low-level Server of the SDK is the one that takes JSON Schemas as they are
// (its McpServer builds them from zod).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../../platform/errors.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { Caller } from '../auth/callers.ts';
import { waitResult } from '../routes/runRoutes.ts';
import { toWireJson } from '../wireJson.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';
import { assistantsNamed, toolsPage } from './mcpTools.ts';
import { servedAssistants } from './servedAssistants.ts';

/** LangGraph's agent server names itself so to MCP clients. */
const SERVER_INFO = { name: 'LangGraph', version: AGENT_SERVER_VERSION };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * A JSON-RPC error, answered as `{code, message}` (the SDK's McpError prefixes its message with
 * "MCP error <code>:", which LangGraph's answers do not have).
 */
class JsonRpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** A failure as the JSON-RPC error it is answered with: the server's refusals say why; anything else is logged, not shown. */
function asJsonRpcError(err: unknown, logger: Logger): JsonRpcError {
  if (err instanceof JsonRpcError) return err;
  if (err instanceof AppError && err.statusCode < 500) return new JsonRpcError(ErrorCode.InvalidRequest, err.message);
  logger.error({ err }, 'MCP request failed');
  return new JsonRpcError(ErrorCode.InternalError, 'internal error');
}

/**
 * `message` is the request's JSON-RPC message as sent: tools/call's `params.context` (LangGraph's
 * way to pass the run's context) is read there, as the SDK's parsed request drops it.
 */
export function mcpServer(deps: AgentServerDeps, caller: Caller, message: unknown): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
  const { logger } = deps;

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    if (cursor !== undefined && !/^\d{1,9}$/.test(cursor))
      throw new JsonRpcError(ErrorCode.InvalidParams, `cursor "${cursor}" is not one this server gave`);
    try {
      return toolsPage(await servedAssistants(deps, caller), Number(cursor ?? 0));
    } catch (err) {
      throw asJsonRpcError(err, logger);
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    let served: Awaited<ReturnType<typeof servedAssistants>>;
    try {
      served = assistantsNamed(await servedAssistants(deps, caller), name);
    } catch (err) {
      throw asJsonRpcError(err, logger);
    }
    if (served.length === 0) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (served.length > 1)
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Multiple tools found with the same name: ${name} (assistants ${served.map((s) => s.assistant.assistant_id).join(', ')})`,
      );
    const context = (message as { params?: { context?: unknown } }).params?.context;
    try {
      const run = await deps.runs.create(
        undefined,
        {
          assistant_id: served[0]!.assistant.assistant_id,
          input: request.params.arguments ?? {},
          ...(isObject(context) ? { context } : {}),
        },
        caller,
      );
      const result = waitResult(await run.outcome) as Record<string, unknown>;
      const failure = result.__error__ as { error: string; message: string } | undefined;
      if (failure) return toolError(`${failure.error}: ${failure.message}`);
      return {
        content: [{ type: 'text', text: toWireJson(result) }],
        structuredContent: result,
      };
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) return toolError(err.message);
      throw asJsonRpcError(err, logger);
    }
  });

  return server;
}
