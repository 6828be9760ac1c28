// The chat app as one fastify server: the protocol under /api (./chatRoutes.ts: the agent
// server's implementation, embedded in this process, runs the agent), each route in the caller's
// workspace (./callers.ts; GET /api/workspaces lists a key's, for the page to pick X-Tenant-Id),
// the page at / (built by Vite into apps/dist/, see apps/chat/), and the platform's operational
// routes (/ok, /ready, /metrics, /docs), which are public.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHttpServer } from '../../platform/http/server.ts';
import type { Logger } from '../../platform/logger.ts';
import { WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import { embeddedAgentServer, type EmbeddedAgentServer } from '../../services/agent-server/plugins.ts';
import { DEFAULT_WORKSPACE_ID, openTenancyReader, type TenancyReader } from '../../services/tenancy/index.ts';
import { workspaceRoutes } from '../../services/tenancy/plugins.ts';
import { ASSISTANT_ID, createChatAgent } from './agent/deepAgent.ts';
import { signInCallers, traceCredentialsOf, type ChatAuthentication } from './callers.ts';
import type { ChatAppConfig } from './chatAppConfig.ts';
import { chatRoutes } from './chatRoutes.ts';
import { runTracer, type RunTracer } from './runTracing.ts';
import { memoryStore, postgresStore, type StatefulGraph, type ThreadStore } from './threads.ts';

/** Where `vite build` (apps/vite.config.ts) writes the pages. */
export const PAGES_DIR = join(import.meta.dirname, '..', '..', 'apps', 'dist');

export interface ChatApp {
  app: FastifyInstance;
  store: ThreadStore;
  agentServer: EmbeddedAgentServer;
  close(): Promise<void>;
}

/**
 * How each turn is traced: into LANGSMITH_PROJECT at LANGSMITH_ENDPOINT, with the caller's
 * credentials (./runTracing.ts), when LANGSMITH_TRACING is true; else not at all.
 */
function tracing(
  config: ChatAppConfig,
  authentication: ChatAuthentication,
  logger: Logger,
): (request: FastifyRequest) => RunTracer | undefined {
  if (config.LANGSMITH_TRACING !== 'true') return () => undefined;
  const destination = { endpoint: config.LANGSMITH_ENDPOINT, project: config.LANGSMITH_PROJECT };
  if (authentication.mode === 'none' && !config.LANGSMITH_API_KEY)
    logger.warn(
      'LANGSMITH_TRACING is true, but with CHAT_APP_AUTH=none callers have no key to trace with and LANGSMITH_API_KEY is unset: turns are not traced',
    );
  return (request) => {
    const credentials = traceCredentialsOf(request, authentication, config.LANGSMITH_API_KEY);
    return credentials ? runTracer(destination, credentials) : undefined;
  };
}

export async function buildChatApp(config: ChatAppConfig, logger: Logger): Promise<ChatApp> {
  let keys: TenancyReader | undefined;
  let authentication: ChatAuthentication = { mode: 'none' };
  if (config.CHAT_APP_AUTH === 'api_key') {
    keys = await openTenancyReader(config.platform, logger, 'chat-app').catch((err: Error) => {
      throw new Error(
        `the API keys could not be read from Kafka (KAFKA_BROKERS=${config.platform.KAFKA_BROKERS}): ${err.message.replace(/\.+$/, '')}. Start the infrastructure (npm run infra:up), or, on this machine only, run without keys (CHAT_APP_AUTH=none)`,
        { cause: err },
      );
    });
    authentication = { mode: 'api_key', tenancy: keys.tenancy };
  } else
    logger.warn(
      { CHAT_APP_AUTH: 'none' },
      'API keys are off: anyone who reaches this app acts in the default workspace (loopback only)',
    );
  const store =
    config.CHAT_CHECKPOINTER === 'postgres'
      ? await postgresStore(config.POSTGRES_URL, DEFAULT_WORKSPACE_ID)
      : memoryStore();
  // Each workspace's threads apart, under `<workspace id>/<thread id>` (as before workspaces' keys were given here).
  const checkpointer = new WorkspaceCheckpointer(store.checkpointer);
  const agent = await createChatAgent(checkpointer, {
    provider: config.OPENAI_API_KEY ? 'openai' : 'scripted',
    openaiModel: config.CHAT_OPENAI_MODEL,
    tokenDelayMs: config.CHAT_SCRIPTED_TOKEN_DELAY_MS,
  });
  // Runs go through the agent server's run manager and protocol (its graph); state is read and written on the same graph.
  const compiled = agent.graph as unknown as StatefulGraph & { channels: Record<string, unknown> };
  const stateKeys = new Set(Object.keys(compiled.channels).filter((k) => !k.startsWith('__') && !k.includes(':')));
  const agentServer = embeddedAgentServer({
    graphs: [{ graphId: ASSISTANT_ID, graph: agent.graph }],
    checkpointer,
    logger,
    maxEventsPerRun: config.CHAT_RUN_BUFFER_EVENTS,
    finishedTtlMs: config.CHAT_RUN_BUFFER_TTL_MS,
  });

  const app = await createHttpServer({
    logger,
    title: 'Example chat app',
    version: '0.1.0',
    description: `The agent streaming protocol under /api for assistant "${ASSISTANT_ID}" (a coordinator with the subagents "researcher" and "math-whiz"), each thread in the caller's workspace, and a page at /.`,
    ready: async () => {
      if (store.kind === 'memory') return true;
      return store.threadIds(DEFAULT_WORKSPACE_ID, 1).then(
        () => true,
        () => false,
      );
    },
  });
  const routes = {
    graph: compiled,
    store,
    agentServer,
    checkpointer,
    stateKeys,
    tracerFor: tracing(config, authentication, logger),
    logger,
  };
  await app.register(
    async (api) => {
      // Checks the key itself: a key of several workspaces lists them without X-Tenant-Id.
      if (authentication.mode === 'api_key') await api.register(workspaceRoutes, { tenancy: authentication.tenancy });
      // A sibling scope, so that the hook that signs callers in does not reach the one above.
      await api.register(async (authed) => {
        signInCallers(authed, authentication);
        await authed.register(chatRoutes, routes);
      });
    },
    { prefix: '/api' },
  );

  const page = join(PAGES_DIR, 'chat', 'index.html');
  if (existsSync(page)) {
    await app.register(fastifyStatic, { root: PAGES_DIR, serve: false });
    await app.register(fastifyStatic, {
      root: join(PAGES_DIR, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      immutable: true,
      maxAge: '365d',
    });
    app.get('/', { schema: { hide: true } }, (_request, reply) =>
      reply.header('cache-control', 'no-cache').sendFile('chat/index.html', { cacheControl: false }),
    );
  } else {
    app.get('/', { schema: { hide: true } }, (_request, reply) =>
      reply
        .code(503)
        .type('text/plain')
        .send('The chat page is not built: run `npm run build:apps` (npm start builds it), then reload.\n'),
    );
  }

  return {
    app,
    store,
    agentServer,
    close: async () => {
      await app.close();
      await agentServer.close();
      await store.close();
      await keys?.close();
    },
  };
}
