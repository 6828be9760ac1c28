// GET /info: what this server is and which features it has on.
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { AGENT_SERVER_VERSION } from '../version.ts';

const langgraphVersion = (createRequire(import.meta.url)('@langchain/langgraph/package.json') as { version: string }).version;

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.LANGSMITH_TRACING ?? env.LANGSMITH_TRACING_V2 ?? env.LANGCHAIN_TRACING_V2 ?? env.LANGCHAIN_TRACING;
  return flag === 'true' && Boolean(env.LANGSMITH_API_KEY ?? env.LANGCHAIN_API_KEY);
}

export function metaRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { http } = deps.agentConfig;
  app.get('/info', async () => ({
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
  }));
}
