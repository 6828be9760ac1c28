// Wires the agent server: the config file's graphs as assistants, persistence, custom auth,
// and the LangGraph API routes (plus A2A unless the config file turns it off).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../common/config.ts';
import type { Logger } from '../common/logger.ts';
import { createHttpServer } from '../common/http/server.ts';
import { loadAgentConfig, type AgentServerConfig } from './agentConfig.ts';
import type { AgentServerDeps } from './agentServerDeps.ts';
import { loadAuthenticator } from './auth.ts';
import { openPersistence } from './checkpointer.ts';
import { GraphRegistry } from './graphRegistry.ts';
import { RunManager } from './runs/runManager.ts';
import { assistantRoutes } from './routes/assistantRoutes.ts';
import { metaRoutes } from './routes/metaRoutes.ts';
import { setAuth } from './routes/requestInput.ts';
import { runRoutes } from './routes/runRoutes.ts';
import { threadRoutes } from './routes/threadRoutes.ts';
import { a2aRoutes } from './a2a/a2aRoutes.ts';
import { AGENT_SERVER_VERSION } from './version.ts';

export interface AgentServerApp {
  app: FastifyInstance;
  deps: AgentServerDeps;
  close(): Promise<void>;
}

/** Paths anyone may read without the auth module's say: health, server info, docs and agent cards. */
function isPublic(path: string): boolean {
  return path === '/ok' || path === '/info' || path === '/ready' || path === '/metrics' || path.startsWith('/docs') || path.includes('/.well-known/');
}

export async function buildAgentServerApp(config: Config, logger: Logger, agentConfig: AgentServerConfig = loadAgentConfig(config.AGENT_SERVER_CONFIG)): Promise<AgentServerApp> {
  // The config file's env reaches the graphs' modules, which may read it when they load.
  for (const [name, value] of Object.entries(agentConfig.env)) process.env[name] ??= value;
  const persistence = await openPersistence(config);
  const failed = await persistence.store.failUnfinishedRuns('the agent server stopped while the run was unfinished');
  if (failed > 0) logger.warn({ runs: failed }, 'runs left unfinished by a previous server were marked as failed');
  const graphs = await GraphRegistry.load(agentConfig.graphs, persistence.checkpointer);
  const authenticate = await loadAuthenticator(agentConfig.auth);
  const runs = new RunManager({ graphs, store: persistence.store, checkpointer: persistence.checkpointer, logger });
  const deps: AgentServerDeps = { config, agentConfig, graphs, store: persistence.store, checkpointer: persistence.checkpointer, runs, logger };

  const app = await createHttpServer({
    logger,
    title: 'Agent server',
    version: AGENT_SERVER_VERSION,
    description: 'LangGraph API (assistants, threads, runs) and A2A for the graphs named in the config file.',
    ready: () => true,
  });
  if (authenticate) {
    app.addHook('onRequest', async (request) => {
      if (isPublic(request.url.split('?')[0]!)) return;
      setAuth(request, await authenticate(request));
    });
  }
  const { http } = agentConfig;
  if (!http.disableMeta) metaRoutes(app, deps);
  if (!http.disableAssistants) assistantRoutes(app, deps);
  if (!http.disableThreads) threadRoutes(app, deps);
  if (!http.disableRuns) runRoutes(app, deps);
  if (!http.disableA2a) a2aRoutes(app, deps);

  return {
    app,
    deps,
    close: async () => {
      await app.close();
      await persistence.close();
    },
  };
}
