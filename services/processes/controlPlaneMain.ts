// Runs the control plane (one replica). Started by services/main.ts, or alone
// (node services/processes/controlPlaneMain.ts).
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { exitIfPortsTaken, listenOrExit, type PortNeed } from '../../platform/ports.ts';

const who = 'the control plane';
const config = configOrExit(who, loadConfig);
// Checked before the app's modules load (seconds) and it waits for Kafka (as long as that takes).
const port: PortNeed = {
  host: config.HOST,
  port: config.CONTROL_PLANE_PORT,
  variable: 'CONTROL_PLANE_PORT',
  purpose: who,
};
await exitIfPortsTaken(who, [port]);
const { buildControlPlaneApp } = await import('./controlPlaneApp.ts');
const logger = createLogger('control-plane', config.LOG_LEVEL);
const controlPlane = await buildControlPlaneApp(config, logger);
const address = await listenOrExit(who, port, () =>
  controlPlane.app.listen({ host: config.HOST, port: config.CONTROL_PLANE_PORT }),
);
logger.info({ address }, 'control plane listening');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    controlPlane.close().finally(() => process.exit(0));
  });
