// A supervised agent server is healthy only once the child itself holds its port: when another
// program took the port first (and answers /ok), the start fails with the child's exit (78, the
// port is taken) instead of passing the other program's /ok for its own.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CANNOT_START_EXIT_CODE } from '../../../../platform/cannotStart.ts';
import { AGENT_SERVER_ENTRY } from '../../../../services/agent-server/index.ts';
import { AgentServerProcess } from '../../../../services/deployments/deployer/agentServerProcess.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

const scratch = mkdtempSync(join(tmpdir(), 'agent-server-process-test-'));
let squatter: Server | undefined;

afterAll(async () => {
  await new Promise((r) => (squatter ? squatter.close(r) : r(undefined)));
  rmSync(scratch, { recursive: true, force: true });
});

test('an /ok from another program on the port does not make the server healthy', async () => {
  squatter = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((r) => squatter!.listen(0, '127.0.0.1', r));
  const port = (squatter.address() as { port: number }).port;
  const server = new AgentServerProcess({
    entry: AGENT_SERVER_ENTRY,
    nodePath: process.execPath,
    port,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', AGENT_SERVER_PORT: String(port), AGENT_SERVER_AUTH: 'none' },
    cwd: repoRoot,
    logFile: join(scratch, 'agent-server.log'),
    healthTimeoutMs: 60_000,
    stopGraceMs: 5_000,
    onExited: () => undefined,
    onRestarted: () => undefined,
    onGivenUp: () => undefined,
  });
  await expect(server.start()).rejects.toMatchObject({ exitCode: CANNOT_START_EXIT_CODE, message: expect.stringContaining('exited') });
  expect(server.outputTail()).toContain(`port ${port}`);
  await server.stop();
});
