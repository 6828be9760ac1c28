// A Kafka broker or a ClickHouse server of a test file's own, in .local/tmp/<id>: a fault test
// stops and starts it as it likes while the local stack that every other test shares keeps
// running, so the fault tests run in the main suite beside the others instead of alone after it.
// Each is the local stack's component (infra/kafka.ts, infra/clickhouse.ts) on free ports.
import { mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { clusterComponents, kafkaCluster } from '../../infra/kafka.ts';
import { clickhouseServerComponent } from '../../infra/clickhouse.ts';
import { ensureComponentsUp, stopComponents } from '../../infra/stack.ts';
import { localDir } from '../../infra/config.ts';
import type { Component } from '../../infra/component.ts';
import { freePort } from './serviceProcess.ts';

export interface PrivateServer {
  /** Where it answers: KAFKA_BROKERS for a broker, CLICKHOUSE_URL for a ClickHouse server. */
  endpoint: string;
  /** Stops it: SIGTERM, then SIGKILL after graceMs (the component's own grace by default). */
  stop(graceMs?: number): Promise<void>;
  /** Starts it again on the same data and waits until it answers. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  remove(): Promise<void>;
}

async function started(component: Component, dir: string): Promise<PrivateServer> {
  await ensureComponentsUp([component]);
  return {
    endpoint: component.endpoint,
    stop: async (graceMs) => {
      await stopComponents([component], graceMs);
    },
    start: () => ensureComponentsUp([component]),
    remove: async () => {
      await stopComponents([component], 0);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownDir(name: string): { id: string; dir: string } {
  const id = `${name}-${randomBytes(3).toString('hex')}`;
  const dir = join(localDir, 'tmp', id);
  mkdirSync(dir, { recursive: true });
  return { id, dir };
}

/** A single-node KRaft broker of its own (replication factor 1, as the local stack's). */
export async function privateKafka(name: string): Promise<PrivateServer> {
  const { id, dir } = ownDir(`${name}-kafka`);
  const [port, controllerPort] = await Promise.all([freePort(), freePort()]);
  const cluster = kafkaCluster(dir, [{ host: '127.0.0.1', port }], [controllerPort], id, '512m');
  return started(clusterComponents(cluster)[0]!, dir);
}

/** A ClickHouse server of its own (the local stack's version and configuration). */
export async function privateClickHouse(name: string): Promise<PrivateServer> {
  const { id, dir } = ownDir(`${name}-clickhouse`);
  const [httpPort, tcpPort] = await Promise.all([freePort(), freePort()]);
  return started(clickhouseServerComponent(id, dir, '127.0.0.1', { httpPort, tcpPort }), dir);
}
