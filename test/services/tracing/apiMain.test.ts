// The tracing API run alone (node services/tracing/apiMain.ts): a port another program holds, or
// a bad configuration, ends it at once with exit code 78 and a message that names the problem.
import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { startService } from '../../support/serviceProcess.ts';

async function run(env: Record<string, string>, logName: string): Promise<{ code: unknown; stderr: string }> {
  const service = startService('services/tracing/apiMain.ts', env, logName);
  let stderr = '';
  service.child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => service.child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, stderr };
}

test('on a taken port it exits with the cannot-start code, naming the port, its holder and TRACING_PORT', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const { port } = other.address() as { port: number };
  try {
    const { code, stderr } = await run({ ...inject('tracingEnv'), TRACING_PORT: String(port) }, 'tracing-api-port-taken');
    expect(code).toBe(78);
    expect(stderr).toContain(`the tracing API cannot start:\n  - port ${port} on 127.0.0.1 (the tracing API) is in use by pid ${process.pid} (`);
    expect(stderr).toContain('TRACING_PORT');
  } finally {
    other.close();
  }
});

test('with a bad configuration it exits with the cannot-start code, listing every bad variable', async () => {
  const { code, stderr } = await run({ ...inject('tracingEnv'), BOOTSTRAP_API_KEY: 'short', KAFKA_PARTITIONS: '0' }, 'tracing-api-bad-config');
  expect(code).toBe(78);
  expect(stderr).toContain('the tracing API cannot start, its configuration is invalid:');
  expect(stderr).toContain('  - KAFKA_PARTITIONS: ');
  expect(stderr).toContain('  - BOOTSTRAP_API_KEY: must be at least 16 characters');
});
