// Issue 19, item 2b, its first part: replicated ClickHouse as a provisioning option. Two ClickHouse
// 18.16 servers and a ZooKeeper of the test's own (infra/clickhouse.ts clickhouseReplicas,
// infra/zookeeper.ts), one cluster of one shard and two replicas. Tables made ON CLUSTER with a
// replicated engine exist on both; rows written to either are read from the other; with one
// replica killed, writes and reads go on through the other (a Distributed table over the cluster
// answers too), and the killed replica, started again, catches up with what it missed. (The read
// models on replicated engines, chosen by configuration, come next.)
import { mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { clickhouseReplicas } from '../../infra/clickhouse.ts';
import { zookeeperComponent } from '../../infra/zookeeper.ts';
import { ensureComponentsUp, stopComponents } from '../../infra/stack.ts';
import { localDir } from '../../infra/config.ts';
import { ownPid } from '../../infra/processes.ts';
import type { Component } from '../../infra/component.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { freePort, waitFor } from '../support/serviceProcess.ts';

const id = `ch-replicas-${randomBytes(3).toString('hex')}`;
const dir = join(localDir, 'tmp', id);
const host = '127.0.0.1';
let components: Component[] = [];
let replicas: Component[] = [];
let clients: ClickHouseClient[] = [];

beforeAll(async () => {
  const ports = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  mkdirSync(dir, { recursive: true });
  const zookeeper = { host, port: ports[0]! };
  replicas = clickhouseReplicas(dir, host, zookeeper, [0, 1].map((i) => ({ httpPort: ports[1 + i * 3]!, tcpPort: ports[2 + i * 3]!, interserverPort: ports[3 + i * 3]! })), id);
  const zk = zookeeperComponent(`${id}-zk`, join(dir, 'zk'), zookeeper);
  components = [zk, ...replicas];
  // ZooKeeper first: 18.16's distributed-DDL thread asks for it as the server starts, and a
  // server that cannot reach it then stops.
  await ensureComponentsUp([zk]);
  await ensureComponentsUp(replicas);
  clients = replicas.map((r) => new ClickHouseClient({ url: r.endpoint, database: 'default' }));
}, 240_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  if (components.length) await stopComponents(components, 0);
  if (!process.env.KEEP_REPLICAS) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const count = async (c: ClickHouseClient, table: 'events' | 'events_all' = 'events') =>
  Number((await c.query<{ n: string }>(table === 'events' ? sql`SELECT count() AS n FROM rt.events FINAL` : sql`SELECT count() AS n FROM rt.events_all`))[0]!.n);
const insert = (c: ClickHouseClient, from: number, n: number) =>
  c.exec(sql`INSERT INTO rt.events SELECT generateUUIDv4(), toUInt64(number + ${from}), toString(number + ${from}) FROM system.numbers LIMIT ${n}`);

test('tables ON CLUSTER exist on both replicas; writes on either are read from the other; a killed replica catches up', { timeout: 240_000 }, async () => {
  const [a, b] = clients as [ClickHouseClient, ClickHouseClient];
  await a.exec(sql`CREATE DATABASE IF NOT EXISTS rt ON CLUSTER read_models`);
  await a.exec(
    sql`CREATE TABLE IF NOT EXISTS rt.events ON CLUSTER read_models (id UUID, version UInt64, value String) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/rt/events', '{replica}', version) ORDER BY id`,
  );
  await a.exec(sql`CREATE TABLE IF NOT EXISTS rt.events_all ON CLUSTER read_models AS rt.events ENGINE = Distributed(read_models, rt, events)`);
  await waitFor('the table on the second replica', async () => (await count(b)) === 0, 30_000, 250);

  await insert(a, 0, 1_000);
  await waitFor('the first replica\'s rows on the second', async () => (await count(b)) === 1_000, 60_000, 250);
  await insert(b, 1_000, 500);
  await waitFor('the second replica\'s rows on the first', async () => (await count(a)) === 1_500, 60_000, 250);

  // One replica down: the other takes writes and answers reads, the cluster's Distributed table too.
  const [, second] = replicas as [Component, Component];
  const pid = ownPid(second.name, second.processMarker);
  expect(pid).toBeDefined();
  process.kill(pid!, 'SIGKILL');
  await waitFor('the second replica to be gone', async () => !(await second.isHealthy()), 30_000, 200);
  await insert(a, 1_500, 2_000);
  expect(await count(a)).toBe(3_500);
  expect(await count(a, 'events_all')).toBe(3_500);

  // Back: it fetches the parts it missed from the first.
  await ensureComponentsUp([second]);
  await waitFor('the returning replica to catch up', async () => (await count(b).catch(() => -1)) === 3_500, 120_000, 500);
  expect(await count(b, 'events_all')).toBe(3_500);
});
