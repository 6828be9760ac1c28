// The agent-server context's HTTP surface and the parts its process composes into a server
// (services/processes/agentServerApp.ts): persistence, the graphs, the run manager, how callers
// are authenticated, and the route registrars. Only a process root imports this module; other
// contexts use index.ts.
export { loadAgentConfig, type AgentServerConfig } from './agentConfig.ts';
export type { AgentServerDeps } from './agentServerDeps.ts';
export { requireCaller, type CallerAuthentication } from './auth/callers.ts';
export { loadCustomAuth } from './auth/customAuth.ts';
export { PlatformKeys } from './auth/platformKeys.ts';
export { openPersistence } from './checkpointer.ts';
export { GraphRegistry } from './graphRegistry.ts';
export { RunManager } from './runs/runManager.ts';
export { PostgresRunQueue, type SharedRunExecutor } from './runs/postgresRunQueue.ts';
export { PostgresRecordStore } from './store/postgresRecordStore.ts';
export { assistantRoutes } from './routes/assistantRoutes.ts';
export { AUTH_OFF_WARNING, metaRoutes } from './routes/metaRoutes.ts';
export { schemaErrorMessage } from './routes/routeSchemas.ts';
export { runRoutes } from './routes/runRoutes.ts';
export { threadRoutes } from './routes/threadRoutes.ts';
export { a2aCardRoutes, a2aRpcRoutes } from './a2a/a2aRoutes.ts';
export { AGENT_SERVER_VERSION } from './version.ts';
