// The control plane run alone (node services/processes/controlPlaneMain.ts): a port another
// program holds, or a bad configuration, ends it at once with exit code 78 and a message that
// names the problem.
import { createServer } from 'node:net';
import { expect, inject, test } from 'vitest';
import { startService } from '../../support/serviceProcess.ts';

async function run(env: Record<string, string>, logName: string): Promise<{ code: unknown; stderr: string }> {
  const service = startService('services/processes/controlPlaneMain.ts', env, logName);
  let stderr = '';
  service.child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => service.child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, stderr };
}

test('on a taken port it exits with the cannot-start code, naming the port, its holder and CONTROL_PLANE_PORT', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const { port } = other.address() as { port: number };
  try {
    const { code, stderr } = await run(
      { ...inject('tracingEnv'), CONTROL_PLANE_PORT: String(port) },
      'control-plane-port-taken',
    );
    expect(code).toBe(78);
    expect(stderr).toContain(
      `the control plane cannot start:\n  - port ${port} on 127.0.0.1 (the control plane) is in use by pid ${process.pid} (`,
    );
    expect(stderr).toContain('CONTROL_PLANE_PORT');
  } finally {
    other.close();
  }
});

test('with a bad configuration it exits with the cannot-start code, listing every bad variable', async () => {
  const { code, stderr } = await run(
    { ...inject('tracingEnv'), CONTROL_PLANE_PORT: 'ninety', KAFKA_PARTITIONS: '0' },
    'control-plane-bad-config',
  );
  expect(code).toBe(78);
  expect(stderr).toContain('the control plane cannot start, its configuration is invalid:');
  expect(stderr).toContain('  - CONTROL_PLANE_PORT: ');
  expect(stderr).toContain('  - KAFKA_PARTITIONS: ');
});
