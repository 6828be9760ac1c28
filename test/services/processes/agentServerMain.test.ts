// The agent server run alone (node services/processes/agentServerMain.ts) on a port another
// program holds: it exits once, at once, with exit code 78 and a message naming the port, the
// holder and AGENT_SERVER_PORT, before it loads its graphs or reads its tenancy topic. Started
// with an IPC channel (as the local deployer starts it), it shuts down when the channel closes.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { freePort, repoRoot, startService, waitFor } from '../../support/serviceProcess.ts';

test('on a taken port the agent server exits with the cannot-start code and says which port, who holds it, what moves it', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const { port } = other.address() as { port: number };
  const stack = inject('tracingEnv');
  try {
    const service = startService(
      'services/processes/agentServerMain.ts',
      {
        KAFKA_BROKERS: stack.KAFKA_BROKERS!,
        KAFKA_TOPIC_PREFIX: stack.KAFKA_TOPIC_PREFIX!,
        AGENT_SERVER_PORT: String(port),
        LANGSMITH_TRACING: 'false',
      },
      'agent-server-port-taken',
    );
    let stderr = '';
    service.child.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => service.child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(78);
    expect(stderr).toContain('the agent server cannot start:');
    expect(stderr).toContain(`port ${port} on 127.0.0.1 (the agent server) is in use by pid ${process.pid} (`);
    expect(stderr).toContain('AGENT_SERVER_PORT');
  } finally {
    other.close();
  }
});

test('started with an IPC channel, it shuts down, cleanly, when its supervisor closes the channel', async () => {
  const port = await freePort();
  const env = {
    ...process.env,
    AGENT_SERVER_AUTH: 'none',
    AGENT_SERVER_PORT: String(port),
    LANGSMITH_TRACING: 'false',
  };
  const child = spawn(process.execPath, [join(repoRoot, 'services/processes/agentServerMain.ts')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitFor('the agent server', async () => (await fetch(`http://127.0.0.1:${port}/ok`)).ok);
    child.disconnect();
    expect(await exited).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
});
