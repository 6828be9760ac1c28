// Runs the agent server. Started by services/main.ts, or alone
// (node services/processes/agentServerMain.ts), and by the local deployer for each deployment.
import { rmSync } from 'node:fs';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { exitIfPortsTaken, listenOrExit, type PortNeed } from '../../platform/ports.ts';

const who = 'the agent server';
const config = configOrExit(who, loadConfig);
// Checked before the server's modules and graphs load and its tenancy topic is read (seconds).
const port: PortNeed = {
  host: config.HOST,
  port: config.AGENT_SERVER_PORT,
  variable: 'AGENT_SERVER_PORT',
  purpose: who,
};
const socket = config.AGENT_SERVER_SOCKET;
if (socket === undefined) await exitIfPortsTaken(who, [port]);
const { buildAgentServerApp } = await import('./agentServerApp.ts');
const logger = createLogger('agent-server', config.LOG_LEVEL);
const server = await buildAgentServerApp(config, logger);
// A socket left by a server of the same revision that was killed is this server's to take.
if (socket !== undefined) rmSync(socket, { force: true });
const address =
  socket === undefined
    ? await listenOrExit(who, port, () => server.app.listen({ host: config.HOST, port: config.AGENT_SERVER_PORT }))
    : await server.app.listen({ path: socket });
logger.info(
  { address, assistants: server.deps.graphs.all().map((g) => g.assistant.graph_id) },
  'agent server listening',
);
// Tells a supervisor (the local deployer) that this process holds the port: an /ok from another
// program that took the port first must not pass for this server's.
process.send?.({ type: 'agent-server-listening', address });

let shuttingDown = false;
function shutDown(why: string): void {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ why }, 'shutting down');
  // Traces still queued for the tracing API are sent before the process ends.
  server
    .close()
    .then(() => awaitAllCallbacks())
    .finally(() => process.exit(0));
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => shutDown(signal));
// Started with an IPC channel (by the local deployer), it ends when that channel closes: its
// supervisor is gone, even killed with SIGKILL, and a server nobody supervises is an orphan.
if (process.channel) process.once('disconnect', () => shutDown('its supervisor is gone'));
