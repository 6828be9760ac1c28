// The tracing API run alone (node services/processes/tracingApiMain.ts): a port another program holds, or
// a bad configuration, ends it at once with exit code 78 and a message that names the problem.
// As several processes (TRACING_API_PROCESSES): a worker that dies is replaced, and SIGTERM
// drains every worker, so that a 2xx still means the runs are in Kafka.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { childPids, isRunning, startService, waitFor } from '../../support/serviceProcess.ts';
import { postMultipart, stackClickHouse, startTracingStack, type TracingStack } from '../../support/tracingStack.ts';
import { makeTrace, postParts } from '../../support/runFactory.ts';
import { sql, join as sqlJoin } from '../../../platform/clickhouse/sql.ts';

async function run(env: Record<string, string>, logName: string): Promise<{ code: unknown; stderr: string }> {
  const service = startService('services/processes/tracingApiMain.ts', env, logName);
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
    const { code, stderr } = await run(
      { ...inject('tracingEnv'), TRACING_PORT: String(port) },
      'tracing-api-port-taken',
    );
    expect(code).toBe(78);
    expect(stderr).toContain(
      `the tracing API cannot start:\n  - port ${port} on 127.0.0.1 (the tracing API) is in use by pid ${process.pid} (`,
    );
    expect(stderr).toContain('TRACING_PORT');
  } finally {
    other.close();
  }
});

test('with a bad configuration it exits with the cannot-start code, listing every bad variable', async () => {
  const { code, stderr } = await run(
    { ...inject('tracingEnv'), BOOTSTRAP_API_KEY: 'short', KAFKA_PARTITIONS: '0' },
    'tracing-api-bad-config',
  );
  expect(code).toBe(78);
  expect(stderr).toContain('the tracing API cannot start, its configuration is invalid:');
  expect(stderr).toContain('  - KAFKA_PARTITIONS: ');
  expect(stderr).toContain('  - BOOTSTRAP_API_KEY: must be at least 16 characters');
});

test('as two processes, a taken port is reported the same way, before any worker starts', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const { port } = other.address() as { port: number };
  try {
    const { code, stderr } = await run(
      { ...inject('tracingEnv'), TRACING_PORT: String(port), TRACING_API_PROCESSES: '2' },
      'tracing-api-cluster-port-taken',
    );
    expect(code).toBe(78);
    expect(stderr).toContain(`port ${port} on 127.0.0.1 (the tracing API) is in use by pid ${process.pid} (`);
  } finally {
    other.close();
  }
});

describe('TRACING_API_PROCESSES=2', () => {
  let stack: TracingStack;
  beforeAll(async () => {
    stack = await startTracingStack('api_cluster', { TRACING_API_PROCESSES: '2' });
  }, 120_000);
  afterAll(() => stack?.stop());

  const storedRuns = async (ids: string[]): Promise<number> => {
    const ch = stackClickHouse(stack);
    try {
      const [row] = await ch.query<{ n: string }>(
        sql`SELECT uniqExact(id) AS n FROM runs WHERE id IN (${sqlJoin(ids.map((id) => sql`toUUID(${id})`))})`,
      );
      return Number(row?.n ?? 0);
    } finally {
      await ch.close();
    }
  };

  test('two workers serve one port; one that dies is replaced; on SIGTERM every 2xx was appended, then all exit', async () => {
    const pid = stack.api.pid;
    const workers = await waitFor(
      'two workers',
      async () => (childPids(pid).length === 2 ? childPids(pid) : null),
      60_000,
    );
    process.kill(workers[0]!, 'SIGKILL');
    const replaced = await waitFor(
      'the dead worker replaced',
      async () => {
        const now = childPids(pid);
        return now.length === 2 && !now.includes(workers[0]!) && isRunning(now.find((p) => p !== workers[1])!)
          ? now
          : null;
      },
      60_000,
    );
    expect(replaced).toContain(workers[1]);
    await waitFor('the API ready again', async () => (await fetch(`${stack.url}/ready`)).ok, 60_000);

    const first = makeTrace(2);
    expect((await postMultipart(stack, postParts(first))).status).toBe(202);
    // Requests in flight when SIGTERM arrives: each is answered 2xx only once appended, or refused.
    const traces = Array.from({ length: 20 }, () => makeTrace(2));
    const statuses = traces.map((trace) =>
      postMultipart(stack, postParts(trace)).then(
        (res) => res.status,
        () => 0,
      ),
    );
    const exited = new Promise<number | null>((resolve) => stack.api.child.once('exit', (code) => resolve(code)));
    stack.api.child.kill('SIGTERM');
    const answered = await Promise.all(statuses);
    expect(await exited).toBe(0);
    for (const worker of replaced) expect(isRunning(worker), `worker ${worker}`).toBe(false);

    const acceptedIds = [first, ...traces.filter((_, i) => answered[i]! >= 200 && answered[i]! < 300)].flatMap(
      (trace) => trace.map((r) => r.id),
    );
    await waitFor(
      'every accepted run in ClickHouse',
      async () => (await storedRuns(acceptedIds)) === acceptedIds.length,
      60_000,
      250,
    );
  }, 240_000);
});
