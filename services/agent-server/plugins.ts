// The agent-server context's HTTP surface and the parts its process composes into a server
// (services/processes/agentServerApp.ts): persistence, the graphs, the run manager, how callers
// are authenticated, and the route registrars. Only a process root imports this module, and an
// app that embeds the agent server in its own process (the example chat app: embeddedAgentServer,
// with what it needs to mount the agent streaming protocol under its own paths); other contexts
// use index.ts.
export { loadAgentConfig, type AgentServerConfig } from './agentConfig.ts';
export type { AgentServerDeps } from './agentServerDeps.ts';
export { requireCaller, type CallerAuthentication } from './auth/callers.ts';
export { loadCustomAuth } from './auth/customAuth.ts';
export { PlatformKeys } from './auth/platformKeys.ts';
export { openPersistence } from './checkpointer.ts';
export { GraphRegistry } from './graphRegistry.ts';
export { Assistants } from './assistants/assistants.ts';
export { openLongTermStore } from './longTermStore/openLongTermStore.ts';
export { storeRoutes } from './longTermStore/storeRoutes.ts';
export { RunManager } from './runs/runManager.ts';
export { RunWebhooks, webhookHostPolicy } from './runs/runWebhooks.ts';
export { tracingFeedbackTokens } from './runs/runFeedback.ts';
export { PostgresRunQueue, type SharedRunExecutor } from './runs/postgresRunQueue.ts';
export { PostgresRecordStore } from './store/postgresRecordStore.ts';
export { assistantRoutes } from './routes/assistantRoutes.ts';
export { AUTH_OFF_WARNING, metaRoutes, unsupportedRoutes } from './routes/metaRoutes.ts';
export { schemaErrorMessage } from './routes/routeSchemas.ts';
export { runRoutes } from './routes/runRoutes.ts';
export { threadRoutes } from './routes/threadRoutes.ts';
export { startThreadSweeper } from './threads/threadSweeper.ts';
export { cronRoutes } from './crons/cronRoutes.ts';
export { openCrons } from './crons/openCrons.ts';
export { a2aCardRoutes, a2aRpcRoutes } from './a2a/a2aRoutes.ts';
export { mcpRoutes } from './mcp/mcpRoutes.ts';
export {
  protocolRoutes,
  protocolStreamResponse,
  sendProtocolStream,
  subscriptionSchema as protocolSubscriptionSchema,
} from './protocol/protocolRoutes.ts';
export {
  commandBodySchema as protocolCommandBodySchema,
  errorResponseSchema as protocolErrorSchema,
  successResponseSchema as protocolSuccessSchema,
} from './protocol/protocolCommands.ts';
export type { Subscription as ProtocolSubscription } from './protocol/runLog.ts';
export type { RunTracer } from './runs/activeRun.ts';
export { embeddedAgentServer, type EmbeddedAgentServer } from './embeddedAgentServer.ts';
export { ProtocolStreams } from './protocol/protocolStreams.ts';
export { PostgresAnnouncer } from './protocol/replicaAnnouncer.ts';
export { AGENT_SERVER_VERSION } from './version.ts';
