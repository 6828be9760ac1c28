// A supervised agent server in its bubblewrap sandbox is stopped by closing its IPC channel, so it
// ends as it does on SIGTERM (its queued traces sent, its log saying so): a
// SIGTERM would reach the sandbox's bubblewrap, which dies of it and takes the server along
// unfinished.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { AGENT_SERVER_ENTRY } from '../../../../services/agent-server/index.ts';
import { AgentServerProcess } from '../../../../services/deployments/deployer/agentServerProcess.ts';
import { revisionPaths, Sandbox } from '../../../../services/deployments/deployer/sandbox.ts';
import { bridgeToSocket } from '../../../../services/deployments/deployer/socketBridge.ts';
import { linkPlatformPackages } from '../../../../services/deployments/deployer/sourcePreparation.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

const scratch = mkdtempSync(join(tmpdir(), 'agent-server-process-test-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

test('stop() asks the sandboxed server to end through its IPC channel: it shuts down as on SIGTERM', async () => {
  const paths = revisionPaths(join(scratch, 'revision'));
  mkdirSync(paths.runDir, { recursive: true });
  // The deployable example as the deployer lays a revision out: its source, and the platform's packages above it.
  cpSync(join(repoRoot, 'examples/deployable-agent'), join(paths.dir, 'src'), { recursive: true });
  await linkPlatformPackages(paths.dir, join(repoRoot, 'node_modules'));
  const sandbox = new Sandbox({ mode: 'bwrap', platformRoot: repoRoot, nodePath: process.execPath });
  const deploymentId = '40000000-0000-4000-8000-000000000001';
  await sandbox.prepare(paths, deploymentId);
  const socket = join(paths.runDir, 'server.sock');
  const bridge = await bridgeToSocket(socket, '127.0.0.1');
  const exits: { code: number | null; signal: string | null }[] = [];
  const env = {
    PATH: '/usr/bin:/bin',
    AGENT_SERVER_SOCKET: socket,
    AGENT_SERVER_AUTH: 'none',
    AGENT_SERVER_CONFIG: join(paths.dir, 'src/langgraph.json'),
  };
  const server = new AgentServerProcess({
    spawn: sandbox.plan(
      { file: process.execPath, args: [AGENT_SERVER_ENTRY], cwd: paths.dir, env },
      paths,
      deploymentId,
    ),
    url: `http://127.0.0.1:${bridge.port}`,
    logFile: join(paths.dir, 'agent-server.log'),
    healthTimeoutMs: 60_000,
    stopGraceMs: 20_000,
    onExited: (exit) => exits.push(exit),
    onRestarted: () => undefined,
    onGivenUp: () => undefined,
  });
  try {
    await server.start().catch((err: Error) => {
      throw new Error(`${err.message}\n${server.outputTail()}`);
    });
    expect((await fetch(`${server.url}/ok`)).ok).toBe(true);
    // Resolves once the process is gone.
    await server.stop();
    const log = readFileSync(join(paths.dir, 'agent-server.log'), 'utf8');
    expect(log).toContain('its supervisor is gone');
    expect(log).toContain('shutting down');
    // It was not restarted, nor reported as a crash.
    expect(exits).toEqual([]);
  } finally {
    await server.stop();
    await bridge.close();
  }
});
