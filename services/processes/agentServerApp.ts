// Wires the agent server: the config file's graphs as assistants, persistence, how callers are
// authenticated, and the LangGraph API routes (plus A2A unless the config file turns it off).
// Public routes (health, /info, docs, agent cards) are registered in the outer scope; every other
// route in an inner scope whose first hook authenticates the caller (agent-server's auth/callers.ts).
// A process root: the agent-server context's parts come from its plugins.ts.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { createHttpServer, type HttpServerOptions } from '../../platform/http/server.ts';
import { openTenancyReader } from '../tenancy/index.ts';
import { hostname, networkInterfaces } from 'node:os';
import {
  a2aCardRoutes,
  a2aRpcRoutes,
  AGENT_SERVER_VERSION,
  Assistants,
  assistantRoutes,
  AUTH_OFF_WARNING,
  cronRoutes,
  GraphRegistry,
  loadAgentConfig,
  loadCustomAuth,
  mcpRoutes,
  metaRoutes,
  openCrons,
  openLongTermStore,
  openPersistence,
  PlatformKeys,
  PostgresAnnouncer,
  PostgresRecordStore,
  PostgresRunQueue,
  ProtocolStreams,
  protocolRoutes,
  requireCaller,
  RunManager,
  runRoutes,
  schemaErrorMessage,
  startThreadSweeper,
  storeRoutes,
  threadRoutes,
  unsupportedRoutes,
  type AgentServerConfig,
  type AgentServerDeps,
  type CallerAuthentication,
  type SharedRunExecutor,
  RunWebhooks,
  tracingFeedbackTokens,
  webhookHostPolicy,
} from '../agent-server/plugins.ts';

export interface AgentServerApp {
  app: FastifyInstance;
  deps: AgentServerDeps;
  close(): Promise<void>;
}

/**
 * How callers are authenticated: the config file's auth module when it names one (it replaces
 * API keys, as on LangGraph Platform), else AGENT_SERVER_AUTH: the tracing API's keys, read from
 * the tenancy topic as the tracing API reads them (or verified by the platform over HTTP, on a
 * server it deployed: LANGSMITH_AUTH_ENDPOINT), or nobody (said loudly).
 */
async function callerAuthentication(
  config: Config,
  agentConfig: AgentServerConfig,
  logger: Logger,
): Promise<{ authentication: CallerAuthentication; close(): Promise<void> }> {
  if (agentConfig.auth)
    return {
      authentication: { mode: 'custom', custom: await loadCustomAuth(agentConfig.auth) },
      close: async () => {},
    };
  if (config.AGENT_SERVER_AUTH === 'none') {
    logger.warn({ AGENT_SERVER_AUTH: 'none' }, AUTH_OFF_WARNING);
    return { authentication: { mode: 'none' }, close: async () => {} };
  }
  const workspaceId = config.LANGSMITH_TENANT_ID?.toLowerCase();
  // A deployed server: the platform verifies keys; it has no access to the tenancy topic.
  if (config.LANGSMITH_AUTH_ENDPOINT)
    return {
      authentication: { mode: 'api_key', keys: new PlatformKeys(config.LANGSMITH_AUTH_ENDPOINT), workspaceId },
      close: async () => {},
    };
  const reader = await openTenancyReader(config, logger, 'agent-server');
  return { authentication: { mode: 'api_key', keys: reader.tenancy, workspaceId }, close: reader.close };
}

/**
 * Where peers reach a server listening on `host`:`port`. Listening on every address, by this
 * machine's first external IPv4 address (a container's or a pod's), else its host name.
 */
export function replicaUrl(host: string, port: number): string {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  const name = host === '0.0.0.0' || host === '::' ? (external ?? hostname()) : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

export async function buildAgentServerApp(
  config: Config,
  logger: Logger,
  agentConfig: AgentServerConfig = loadAgentConfig(config.AGENT_SERVER_CONFIG),
  serverOptions: Pick<HttpServerOptions, 'onRoute'> = {},
): Promise<AgentServerApp> {
  // The config file's env reaches the graphs' modules, which may read it when they load.
  if (agentConfig.missingEnvFile)
    logger.warn({ envFile: agentConfig.missingEnvFile }, 'the config’s env file is not there: no variables from it');
  for (const [name, value] of Object.entries(agentConfig.env)) process.env[name] ??= value;
  const persistence = await openPersistence(config, logger);
  const graphs = await GraphRegistry.load(agentConfig.graphs, persistence.checkpointer);
  const auth = await callerAuthentication(config, agentConfig, logger);
  const { store } = persistence;
  // Beside the records: in PostgreSQL on their pool, else in memory.
  const longTerm = await openLongTermStore(
    agentConfig.store,
    store instanceof PostgresRecordStore ? store.pool : undefined,
    logger,
  );
  const sharedQueue =
    store instanceof PostgresRecordStore
      ? (executor: SharedRunExecutor) =>
          new PostgresRunQueue(
            {
              pool: store.pool,
              connectionString: config.POSTGRES_URL!,
              logger,
              leaseMs: config.AGENT_SERVER_RUN_LEASE_MS,
            },
            executor,
          )
      : undefined;
  const assistants = new Assistants(graphs, persistence.assistants);
  // Replicas tell each other where a protocol run executes (its events are there).
  const announcer =
    store instanceof PostgresRecordStore
      ? new PostgresAnnouncer({ pool: store.pool, connectionString: config.POSTGRES_URL!, logger })
      : undefined;
  await announcer?.open();
  const protocolStreams = new ProtocolStreams({
    logger,
    maxEventsPerRun: config.AGENT_SERVER_PROTOCOL_BUFFER_EVENTS,
    finishedTtlMs: config.AGENT_SERVER_PROTOCOL_BUFFER_TTL_MS,
    announcer,
  });
  const webhooks = new RunWebhooks({
    policy: webhookHostPolicy(config),
    logger,
    disabled: agentConfig.http.disableWebhooks,
  });
  const runs = new RunManager({
    graphs,
    assistants,
    store,
    checkpointer: persistence.checkpointer,
    temporaryThreads: persistence.temporaryThreads,
    longTermStore: longTerm.store,
    logger,
    sharedQueue,
    protocol: protocolStreams,
    webhooks,
    feedbackTokens: tracingFeedbackTokens(),
  });
  const crons = await openCrons(store, runs, config, logger);
  const deps: AgentServerDeps = {
    config,
    agentConfig,
    graphs,
    assistants,
    store: persistence.store,
    checkpointer: persistence.checkpointer,
    longTermStore: longTerm.store,
    checkpoints: persistence.checkpoints,
    runs,
    crons,
    protocolStreams,
    logger,
  };

  const sweeper = startThreadSweeper(deps, agentConfig.threadTtl.sweepIntervalMinutes * 60_000);
  const app = await createHttpServer({
    logger,
    title: 'Agent server',
    version: AGENT_SERVER_VERSION,
    description: 'LangGraph API (assistants, threads, runs, store) and A2A for the graphs named in the config file.',
    // With a shared run queue: once registered at its address, a dead predecessor's runs failed.
    ready: () => runs.ready,
    bodyLimit: { bytes: config.AGENT_SERVER_BODY_LIMIT_BYTES, setting: 'AGENT_SERVER_BODY_LIMIT_BYTES' },
    ...serverOptions,
  });
  app.setSchemaErrorFormatter(schemaErrorMessage);
  // Runs are taken from a shared queue once this server can be reached (it relays streams to its peers).
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (address === null) return;
    // On a Unix socket (AGENT_SERVER_SOCKET), peers reach it where AGENT_SERVER_URL says.
    const url = typeof address === 'string' ? `unix:${address}` : replicaUrl(config.HOST, address.port);
    await runs.open(config.AGENT_SERVER_URL ?? url);
    // Crons start runs once the run manager takes work (and not where runs are switched off).
    if (!agentConfig.http.disableRuns) crons.start();
  });
  // A POST without a body is an empty object, as the routes' body schemas read it.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
  });

  const { http } = agentConfig;
  if (!http.disableMeta) metaRoutes(app, deps, auth.authentication.mode);
  if (!http.disableA2a) a2aCardRoutes(app, deps);
  await app.register(async (authed) => {
    requireCaller(authed, auth.authentication);
    if (!http.disableAssistants) assistantRoutes(authed, deps);
    if (!http.disableThreads) threadRoutes(authed, deps);
    if (!http.disableRuns) runRoutes(authed, deps);
    if (!http.disableRuns) cronRoutes(authed, deps);
    if (!http.disableStore) storeRoutes(authed, deps);
    if (!http.disableRuns) protocolRoutes(authed, deps);
    if (!http.disableA2a) a2aRpcRoutes(authed, deps);
    unsupportedRoutes(authed);
    if (!http.disableMcp) mcpRoutes(authed, deps);
  });

  return {
    app,
    deps,
    close: async () => {
      await sweeper.stop();
      await app.close();
      await crons.stop();
      await runs.close();
      await protocolStreams.close();
      await webhooks.close();
      await auth.close();
      await longTerm.close();
      await persistence.close();
    },
  };
}
