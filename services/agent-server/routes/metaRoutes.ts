// GET /info: what this server is, which features it has on, and how it authenticates. Public.
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { AuthMode } from '../auth/callers.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';

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
        crons: false,
        store: false,
        a2a: !http.disableA2a,
        langsmith: tracingEnabled(),
      },
      host: { kind: 'self-hosted', checkpointer: deps.config.AGENT_SERVER_CHECKPOINTER },
      auth: authInfo(authMode),
    }),
  );
}
