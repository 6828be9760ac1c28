// ensureStackUp is idempotent: with the stack running it starts nothing and answers quickly.
// Before it installs or starts anything, every port of what it would start must be free. In stages (`npm start`),
// the services' components are up before one they start without (MinIO, built on a first start) is.
import { createServer } from 'node:net';
import { test, expect } from 'vitest';
import { clickhouseComponent } from '../../infra/clickhouse.ts';
import { endpointsFromEnv, extraPortsFromEnv } from '../../infra/config.ts';
import type { Component } from '../../infra/component.ts';
import {
  ensureComponentsUpInStages,
  ensureStackUp,
  portProblemsBeforeStart,
  stackPortsToStart,
  stackStatus,
} from '../../infra/stack.ts';
import { provideInfra } from '../support/infra.ts';
import { freePort } from '../support/serviceProcess.ts';

test.skipIf(process.env.TEST_INFRA === 'containers')('a second ensureStackUp reuses the running servers', async () => {
  const endpoints = await provideInfra();
  const before = await stackStatus();
  expect(before.map((entry) => entry.running)).toEqual([true, true, true, true]);
  expect(await ensureStackUp()).toEqual(endpoints);
  const after = await stackStatus();
  expect(after.map((entry) => entry.pid)).toEqual(before.map((entry) => entry.pid));
  expect(after.map((entry) => entry.endpoint)).toEqual([
    endpoints.kafkaBrokers,
    endpoints.clickhouseUrl,
    endpoints.s3Endpoint,
    endpoints.postgresUrl,
  ]);
});

test('a port that a component to be started needs, held by another program, is named before anything is installed', async () => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const heldPort = (other.address() as { port: number }).port;
  try {
    // A ClickHouse that `up` would start here: nothing answers at its URL and, under a name with
    // no pid file, it is not ours; another program holds the port its native protocol needs.
    const endpoints = { ...endpointsFromEnv({}), clickhouseUrl: `http://127.0.0.1:${await freePort()}` };
    const component = {
      ...clickhouseComponent(endpoints, { ...extraPortsFromEnv({}), clickhouseTcpPort: heldPort }),
      name: 'clickhouse-port-check',
    };
    expect(await portProblemsBeforeStart([component])).toEqual([
      expect.stringMatching(
        new RegExp(
          `^port ${heldPort} on 127\\.0\\.0\\.1 \\(ClickHouse's native protocol\\) is in use by pid ${process.pid} \\(.*CLICKHOUSE_TCP_PORT$`,
        ),
      ),
    ]);
  } finally {
    other.close();
  }
});

test.skipIf(process.env.TEST_INFRA === 'containers')(
  'components that already answer are reused, so none of their ports needs to be free',
  async () => {
    await provideInfra();
    expect(await stackPortsToStart()).toEqual([]);
  },
);

/**
 * A component of the test's own on a free port: `healthy` says whether it answers; `install` is awaited before
 * it is started (then it answers). No server runs: what is tested is the order ensureComponentsUpInStages keeps.
 */
async function testComponent(
  name: string,
  options: { healthy: boolean; install: () => Promise<void>; servicesStartWithout?: boolean },
): Promise<Component> {
  const port = await freePort();
  let healthy = options.healthy;
  return {
    name: `${name}-${process.pid}-${port}`,
    endpoint: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    ports: [{ host: '127.0.0.1', port, variable: 'TEST_PORT', purpose: name }],
    processMarker: `stack-stages-test-${port}`,
    isHealthy: async () => healthy,
    install: options.install,
    start: async () => {
      healthy = true;
      return { pid: process.pid, exited: new Promise<never>(() => {}) };
    },
    healthTimeoutMs: 30_000,
    stopGraceMs: 0,
    logFiles: [],
    ...(options.servicesStartWithout ? { servicesStartWithout: true } : {}),
  };
}

test('in stages: the core is up while a component the services start without still installs, and `all` waits for it', async () => {
  let built!: () => void;
  const building = new Promise<void>((resolve) => (built = resolve));
  const objectStorage = await testComponent('object-storage', {
    healthy: false,
    install: () => building,
    servicesStartWithout: true,
  });
  const broker = await testComponent('broker', { healthy: true, install: async () => {} });
  const { core, all } = ensureComponentsUpInStages([broker, objectStorage]);
  let allSettled = false;
  void all.finally(() => (allSettled = true)).catch(() => undefined);
  await core;
  expect(allSettled, 'object storage is still being installed').toBe(false);
  expect(await objectStorage.isHealthy()).toBe(false);
  built();
  await all;
  expect(await objectStorage.isHealthy()).toBe(true);
});

test('in stages: a core component that cannot start fails the core at once, not after the slow one', async () => {
  let built!: () => void;
  const building = new Promise<void>((resolve) => (built = resolve));
  const objectStorage = await testComponent('object-storage', {
    healthy: false,
    install: () => building,
    servicesStartWithout: true,
  });
  const broker = await testComponent('broker', {
    healthy: false,
    install: () => Promise.reject(new Error('no jars for the broker')),
  });
  const { core, all } = ensureComponentsUpInStages([broker, objectStorage]);
  all.catch(() => undefined);
  await expect(core).rejects.toThrow('no jars for the broker');
  built();
  await expect(all).rejects.toThrow(/infra up failed[\s\S]*no jars for the broker/);
});
