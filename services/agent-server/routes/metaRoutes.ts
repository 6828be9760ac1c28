// GET /info: what this server is, which features it has on, and how it authenticates. Public.
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { AuthMode } from '../auth/callers.ts';
import { errors } from '../../../platform/errors.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';
import { errorResponse } from './routeSchemas.ts';

const langgraphVersion = (createRequire(import.meta.url)('@langchain/langgraph/package.json') as { version: string })
  .version;

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.LANGSMITH_TRACING ?? env.LANGSMITH_TRACING_V2 ?? env.LANGCHAIN_TRACING_V2 ?? env.LANGCHAIN_TRACING;
  return flag === 'true' && Boolean(env.LANGSMITH_API_KEY ?? env.LANGCHAIN_API_KEY);
}

/** What /info says about authentication; with it off, a warning anyone can read. */
export function authInfo(mode: AuthMode): { mode: AuthMode; warning?: string } {
  if (mode !== 'none') return { mode };
  return { mode, warning: AUTH_OFF_WARNING };
}

export const AUTH_OFF_WARNING =
  'authentication is off (AGENT_SERVER_AUTH=none): anyone who can reach this server can read, change and delete every thread';

const infoResponse = {
  type: 'object',
  additionalProperties: true,
  properties: {
    version: { type: 'string' },
    langgraph_js_version: { type: 'string' },
    context: { type: 'string' },
    flags: { type: 'object', additionalProperties: { type: 'boolean' } },
    host: { type: 'object', additionalProperties: true },
    auth: {
      type: 'object',
      properties: {
        mode: {
          type: 'string',
          enum: ['api_key', 'custom', 'none'],
          description: 'api_key: X-Api-Key of the tracing API; custom: the config file’s auth module; none: off',
        },
        warning: { type: 'string' },
      },
    },
  },
} as const;

export function metaRoutes(app: FastifyInstance, deps: AgentServerDeps, authMode: AuthMode): void {
  const { http } = deps.agentConfig;
  app.get(
    '/info',
    {
      schema: {
        tags: ['operations'],
        summary: 'The server, its features and how it authenticates',
        response: { 200: infoResponse },
      },
    },
    async () => ({
      version: AGENT_SERVER_VERSION,
      langgraph_js_version: langgraphVersion,
      context: 'js',
      flags: {
        assistants: !http.disableAssistants,
        threads: !http.disableThreads,
        runs: !http.disableRuns,
        crons: !http.disableRuns,
        store: !http.disableStore,
        a2a: !http.disableA2a,
        mcp: !http.disableMcp,
        // the agent streaming protocol (/threads/{id}/commands, /threads/{id}/stream/events) goes with the runs
        streaming_protocol: !http.disableRuns,
        langsmith: tracingEnabled(),
      },
      host: { kind: 'self-hosted', checkpointer: deps.config.AGENT_SERVER_CHECKPOINTER },
      auth: authInfo(authMode),
    }),
  );
}

/**
 * Routes of the LangGraph API this server deliberately does not serve: each answers 404 saying
 * what is not supported (rather than "no route"), so an SDK user learns it at once.
 */
export function unsupportedRoutes(app: FastifyInstance): void {
  app.post<{ Params: { assistant_id: string } }>(
    '/ui/:assistant_id',
    {
      schema: {
        tags: ['meta'],
        summary: 'Generative UI components: not supported (404)',
        params: {
          type: 'object',
          required: ['assistant_id'],
          properties: {
            assistant_id: { type: 'string', minLength: 1, description: 'the assistant: its UUID, or its graph name' },
          },
        },
        body: { type: 'object', additionalProperties: true, properties: { name: { type: 'string' } } },
        response: { 404: errorResponse('generative UI is not supported') },
      },
    },
    async () => {
      throw errors.notSupported(
        'generative UI components (POST /ui/{assistant_id}, the SDK’s client.ui, langgraph.json “ui”) are not supported by this agent server',
      );
    },
  );
}
