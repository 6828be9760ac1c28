// The chat app as one fastify server: the protocol under /api (./chatRoutes.ts), the page at /
// (built by Vite into apps/dist/, see apps/chat/), and the platform's operational routes
// (/ok, /ready, /metrics, /docs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../platform/http/server.ts';
import type { Logger } from '../../platform/logger.ts';
import { ASSISTANT_ID, createChatAgent } from './agent/deepAgent.ts';
import type { ChatAppConfig } from './chatAppConfig.ts';
import { chatRoutes } from './chatRoutes.ts';
import { SessionRegistry, type ProtocolGraph } from './protocol/threadSession.ts';
import { memoryStore, postgresStore, type StatefulGraph, type ThreadStore } from './threads.ts';

/** Where `vite build` (apps/vite.config.ts) writes the pages. */
export const PAGES_DIR = join(import.meta.dirname, '..', '..', 'apps', 'dist');

export interface ChatApp {
  app: FastifyInstance;
  store: ThreadStore;
  sessions: SessionRegistry;
  close(): Promise<void>;
}

export async function buildChatApp(config: ChatAppConfig, logger: Logger): Promise<ChatApp> {
  const store = config.CHAT_CHECKPOINTER === 'postgres' ? await postgresStore(config.POSTGRES_URL) : memoryStore();
  const agent = await createChatAgent(store.checkpointer, {
    provider: config.OPENAI_API_KEY ? 'openai' : 'scripted',
    openaiModel: config.CHAT_OPENAI_MODEL,
    tokenDelayMs: config.CHAT_SCRIPTED_TOKEN_DELAY_MS,
  });
  // Runs go through the agent's protocol stream; state is read and written on its compiled graph.
  const compiled = agent.graph as unknown as StatefulGraph & { channels: Record<string, unknown> };
  const stateKeys = new Set(Object.keys(compiled.channels).filter((k) => !k.startsWith('__') && !k.includes(':')));
  const sessions = new SessionRegistry({
    graph: agent as unknown as ProtocolGraph,
    logger,
    maxEventsPerRun: config.CHAT_RUN_BUFFER_EVENTS,
    finishedTtlMs: config.CHAT_RUN_BUFFER_TTL_MS,
    graphName: ASSISTANT_ID,
  });

  const app = await createHttpServer({
    logger,
    title: 'Example chat app',
    version: '0.1.0',
    description: `The agent streaming protocol under /api for assistant "${ASSISTANT_ID}" (a coordinator with the subagents "researcher" and "math-whiz"), and a page at /.`,
    ready: async () => {
      if (store.kind === 'memory') return true;
      return store.threadIds(1).then(
        () => true,
        () => false,
      );
    },
  });
  await app.register(chatRoutes, { prefix: '/api', graph: compiled, store, sessions, assistants: [ASSISTANT_ID], stateKeys, logger });

  const page = join(PAGES_DIR, 'chat', 'index.html');
  if (existsSync(page)) {
    await app.register(fastifyStatic, { root: PAGES_DIR, serve: false });
    await app.register(fastifyStatic, { root: join(PAGES_DIR, 'assets'), prefix: '/assets/', decorateReply: false, immutable: true, maxAge: '365d' });
    app.get('/', { schema: { hide: true } }, (_request, reply) => reply.header('cache-control', 'no-cache').sendFile('chat/index.html', { cacheControl: false }));
  } else {
    app.get('/', { schema: { hide: true } }, (_request, reply) =>
      reply.code(503).type('text/plain').send('The chat page is not built: run `npm run build:apps` (npm start builds it), then reload.\n'),
    );
  }

  return {
    app,
    store,
    sessions,
    close: async () => {
      await app.close();
      await sessions.closeAll();
      await store.close();
    },
  };
}
