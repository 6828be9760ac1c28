// Runs the agent server. Started by services/main.ts, or alone.
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { buildAgentServerApp } from './agentServerApp.ts';

const config = loadConfig();
const logger = createLogger('agent-server', config.LOG_LEVEL);
const server = await buildAgentServerApp(config, logger);
const address = await server.app.listen({ host: config.HOST, port: config.AGENT_SERVER_PORT });
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
