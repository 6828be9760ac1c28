// Runs the example A2A agent: node examples/otel-a2a-agent/main.ts
// (A2A_EXAMPLE_AGENT_PORT, default 2025; LANGSMITH_TRACING=true with LANGSMITH_ENDPOINT,
// LANGSMITH_API_KEY and LANGSMITH_PROJECT to send its spans to the tracing API).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configOrExit } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { listenOrExit } from '../../platform/ports.ts';
import { exampleAgentPort, loadExampleAgentConfig } from './exampleAgentConfig.ts';
import { startSpanExport } from './spanExport.ts';
import { buildEchoAgentApp } from './echoAgentApp.ts';
import { ECHO_AGENT_NAME } from './echoAgent.ts';

const who = 'the example A2A agent';
const config = configOrExit(who, loadExampleAgentConfig);
const logger = createLogger(ECHO_AGENT_NAME, config.LOG_LEVEL);
const spans = startSpanExport(config, ECHO_AGENT_NAME);

// Listen first, so that the card names the real port also when the port is 0 (any free one).
const server = createServer();
await listenOrExit(
  who,
  exampleAgentPort(config),
  () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.A2A_EXAMPLE_AGENT_PORT, config.HOST, resolve);
    }),
);
const { port } = server.address() as AddressInfo;
const baseUrl = config.A2A_EXAMPLE_AGENT_URL ?? `http://${config.HOST}:${port}`;
server.on('request', buildEchoAgentApp({ baseUrl, tracer: spans.tracer }));
logger.info(
  {
    url: baseUrl,
    tracing: spans.exporting ? { endpoint: config.LANGSMITH_ENDPOINT, project: config.LANGSMITH_PROJECT } : false,
  },
  'example A2A agent listening',
);

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    // Spans still queued are sent before the process ends.
    server.close();
    server.closeAllConnections();
    spans
      .shutdown()
      .catch((err: unknown) => logger.error({ err }, 'could not send the last spans'))
      .finally(() => process.exit(0));
  });
