// Runs the agent server. Started by services/main.ts, or alone.
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { exitIfPortsTaken, listenOrExit, type PortNeed } from '../../platform/ports.ts';

const who = 'the agent server';
const config = configOrExit(who, loadConfig);
// Checked before the server's modules and graphs load and its tenancy topic is read (seconds).
const port: PortNeed = { host: config.HOST, port: config.AGENT_SERVER_PORT, variable: 'AGENT_SERVER_PORT', purpose: who };
await exitIfPortsTaken(who, [port]);
const { buildAgentServerApp } = await import('./agentServerApp.ts');
const logger = createLogger('agent-server', config.LOG_LEVEL);
const server = await buildAgentServerApp(config, logger);
const address = await listenOrExit(who, port, () => server.app.listen({ host: config.HOST, port: config.AGENT_SERVER_PORT }));
logger.info({ address, assistants: server.deps.graphs.all().map((g) => g.assistant.graph_id) }, 'agent server listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    // Traces still queued for the tracing API are sent before the process ends.
    server
      .close()
      .then(() => awaitAllCallbacks())
      .finally(() => process.exit(0));
  });
