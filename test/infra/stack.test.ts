// ensureStackUp is idempotent: with the stack running it starts nothing and answers quickly.
// Before it installs or starts anything, every port of what it would start must be free.
import { createServer } from 'node:net';
import { test, expect } from 'vitest';
import { clickhouseComponent } from '../../infra/clickhouse.ts';
import { endpointsFromEnv, extraPortsFromEnv } from '../../infra/config.ts';
import { ensureStackUp, portProblemsBeforeStart, stackPortsToStart, stackStatus } from '../../infra/stack.ts';
import { provideInfra } from '../support/infra.ts';
import { freePort } from '../support/serviceProcess.ts';

test.skipIf(process.env.TEST_INFRA === 'containers')('a second ensureStackUp reuses the running servers', async () => {
  const endpoints = await provideInfra();
  const before = await stackStatus();
  expect(before.map((entry) => entry.running)).toEqual([true, true, true, true]);
  expect(await ensureStackUp()).toEqual(endpoints);
  const after = await stackStatus();
  expect(after.map((entry) => entry.pid)).toEqual(before.map((entry) => entry.pid));
  expect(after.map((entry) => entry.endpoint)).toEqual([endpoints.kafkaBrokers, endpoints.clickhouseUrl, endpoints.s3Endpoint, endpoints.postgresUrl]);
});

test('a port that a component to be started needs, held by another program, is named before anything is installed', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const heldPort = (other.address() as { port: number }).port;
  try {
    // A ClickHouse that `up` would start here: nothing answers at its URL and, under a name with
    // no pid file, it is not ours; another program holds the port its native protocol needs.
    const endpoints = { ...endpointsFromEnv({}), clickhouseUrl: `http://127.0.0.1:${await freePort()}` };
    const component = { ...clickhouseComponent(endpoints, { ...extraPortsFromEnv({}), clickhouseTcpPort: heldPort }), name: 'clickhouse-port-check' };
    expect(await portProblemsBeforeStart([component])).toEqual([
      expect.stringMatching(new RegExp(`^port ${heldPort} on 127\\.0\\.0\\.1 \\(ClickHouse's native protocol\\) is in use by pid ${process.pid} \\(.*CLICKHOUSE_TCP_PORT$`)),
    ]);
  } finally {
    other.close();
  }
});

test.skipIf(process.env.TEST_INFRA === 'containers')('components that already answer are reused, so none of their ports needs to be free', async () => {
  await provideInfra();
  expect(await stackPortsToStart()).toEqual([]);
});
