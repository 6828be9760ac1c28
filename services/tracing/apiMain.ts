// Runs the tracing API (one replica). Started by services/main.ts, or alone.
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { buildTracingApp } from './tracingApp.ts';

const config = loadConfig();
const logger = createLogger('tracing-api', config.LOG_LEVEL);
const tracing = await buildTracingApp(config, logger);
const address = await tracing.app.listen({ host: config.HOST, port: config.TRACING_PORT });
logger.info({ address }, 'tracing API listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    tracing.close().finally(() => process.exit(0));
  });
