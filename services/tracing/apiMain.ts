// Runs the tracing API (one replica). Started by services/main.ts, or alone.
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { exitIfPortsTaken, listenOrExit, type PortNeed } from '../../platform/ports.ts';

const who = 'the tracing API';
const config = configOrExit(who, loadConfig);
// Checked before the app's modules load (seconds) and it waits for Kafka (as long as that takes).
const port: PortNeed = { host: config.HOST, port: config.TRACING_PORT, variable: 'TRACING_PORT', purpose: who };
await exitIfPortsTaken(who, [port]);
const { buildTracingApp } = await import('./tracingApp.ts');
const logger = createLogger('tracing-api', config.LOG_LEVEL);
const tracing = await buildTracingApp(config, logger);
const address = await listenOrExit(who, port, () => tracing.app.listen({ host: config.HOST, port: config.TRACING_PORT }));
logger.info({ address }, 'tracing API listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    tracing.close().finally(() => process.exit(0));
  });
