// Runs the tracing API: one process, or TRACING_API_PROCESSES worker processes on one port under
// a primary that supervises them (platform/processCluster.ts). Started by services/main.ts, or alone
// (node services/processes/tracingApiMain.ts).
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { exitIfPortsTaken, listenOrExit, type PortNeed } from '../../platform/ports.ts';
import { isClusterWorker, superviseWorkers } from '../../platform/processCluster.ts';

const who = 'the tracing API';
const config = configOrExit(who, loadConfig);
const logger = createLogger('tracing-api', config.LOG_LEVEL);
const port: PortNeed = { host: config.HOST, port: config.TRACING_PORT, variable: 'TRACING_PORT', purpose: who };

if (!isClusterWorker()) {
  // Checked before the app's modules load (seconds) and it waits for Kafka (as long as that takes).
  await exitIfPortsTaken(who, [port]);
}
if (!isClusterWorker() && config.TRACING_API_PROCESSES > 1) {
  superviseWorkers({ workers: config.TRACING_API_PROCESSES, who, logger });
} else {
  const { buildTracingApp } = await import('./tracingApp.ts');
  const tracing = await buildTracingApp(config, logger);
  const address = await listenOrExit(who, port, () =>
    tracing.app.listen({ host: config.HOST, port: config.TRACING_PORT }),
  );
  logger.info({ address, pid: process.pid }, 'tracing API listening');

  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      logger.info({ signal }, 'shutting down');
      // Requests in flight are answered first (a 2xx only once their events are in Kafka), then the producer closes.
      tracing.close().finally(() => process.exit(0));
    });
}
