// Issue 19, item 1: a 2xx means the events are in Kafka, also on a cluster that loses brokers.
// A cluster of three KRaft nodes of its own (replication factor 3, min.insync.replicas 2, what the
// local stack runs when KAFKA_BROKERS lists three local addresses) under a tracing stack (API and
// runs projector, acks=all, idempotent producer). During a sustained multipart ingest of posts and
// patches, the node that leads most partitions of the runs topic is killed with SIGKILL; writes go
// on with two nodes. Then a second node is killed: with one copy left, every write is refused. Both
// come back and catch up. Every request answered 2xx must be in ClickHouse exactly once, its patch
// applied; a request the API cannot append gets 503 with Retry-After, never a 2xx that is then lost
// and never another error. How long writes were refused is printed as one JSON line.
// KEEP_FAILOVER=1 leaves the cluster and the stack running afterwards, to look at.
import { mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Admin } from '@platformatic/kafka';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { endTimeAfter, makeTrace, multipartBody, postParts } from '../support/runFactory.ts';
import { freePort, waitFor } from '../support/serviceProcess.ts';
import { clusterComponents, kafkaCluster, type KafkaCluster } from '../../infra/kafka.ts';
import { ensureComponentsUp, stopComponents } from '../../infra/stack.ts';
import { localDir } from '../../infra/config.ts';
import { ownPid } from '../../infra/processes.ts';
import type { Component } from '../../infra/component.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/apiKeys.ts';

const id = `kafka-failover-${randomBytes(3).toString('hex')}`;
const dir = join(localDir, 'tmp', id);
let cluster: KafkaCluster;
let components: Component[];
let stack: TracingStack | undefined;

beforeAll(async () => {
  const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  const brokers = ports.slice(0, 3).map((port) => ({ host: '127.0.0.1', port }));
  mkdirSync(dir, { recursive: true });
  cluster = kafkaCluster(dir, brokers, ports.slice(3), id, '512m');
  components = clusterComponents(cluster);
  await ensureComponentsUp(components);
  stack = await startTracingStack('failover', {
    KAFKA_BROKERS: brokers.map((b) => `${b.host}:${b.port}`).join(','),
    KAFKA_APPEND_TIMEOUT_MS: '3000',
  });
}, 300_000);

afterAll(async () => {
  if (process.env.KEEP_FAILOVER) return;
  await stack?.stop().catch(() => undefined);
  if (components) await stopComponents(components, 0);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type PartitionState = { leader: number; replicas: number[]; isr: number[] };

/** The partitions of a topic: leader, replicas and in-sync replicas, from a fresh metadata request. */
async function partitionsOf(brokers: string[], topic: string): Promise<PartitionState[]> {
  const admin = new Admin({ clientId: 'failover-test', bootstrapBrokers: brokers, retries: 0 });
  try {
    const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
    return metadata.topics
      .get(topic)!
      .partitions.map((p) => ({ leader: p.leader, replicas: [...p.replicas], isr: [...p.isr] }));
  } finally {
    await admin.close();
  }
}

/** The node that leads most of the partitions, and how many it leads. */
function busiestLeader(partitions: PartitionState[]): { nodeId: number; partitions: number } {
  const led = new Map<number, number>();
  for (const p of partitions) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
  const [nodeId, count] = [...led].sort((a, b) => b[1] - a[1])[0]!;
  return { nodeId, partitions: count };
}

/** The longest interval between consecutive times (sorted here). */
function longestGap(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < sorted.length; i++) gap = Math.max(gap, sorted[i]! - sorted[i - 1]!);
  return gap;
}

function killNode(nodeId: number): void {
  const node = cluster.nodes.find((n) => n.nodeId === nodeId)!;
  const pid = ownPid(node.name, join(node.dir, 'server.properties'));
  if (pid === undefined) throw new Error(`Kafka node ${nodeId} is not running`);
  process.kill(pid, 'SIGKILL');
}

type Answer = { sent: number; at: number; status: number; retryAfter: string | null; error?: string };

test('SIGKILL of the leading broker: every 2xx is in ClickHouse exactly once; refused writes are 503 with Retry-After', {
  timeout: 300_000,
}, async () => {
  const s = stack!;
  const brokers = s.env.KAFKA_BROKERS!.split(',');
  const runsTopic = topicName(s.config, TOPICS.runs);
  const accepted = new Set<string>();
  const patched = new Set<string>();
  const answers: Answer[] = [];
  let stop = false;

  const send = async (body: { body: Buffer | string; contentType: string }): Promise<boolean> => {
    const sent = Date.now();
    const res = await fetch(`${s.url}/runs/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': s.apiKey, 'content-type': body.contentType },
      body: body.body,
    });
    const answer: Answer = { sent, at: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') };
    if (res.status !== 202) answer.error = ((await res.json().catch(() => ({}))) as { error?: string }).error;
    else await res.arrayBuffer();
    answers.push(answer);
    return res.status === 202;
  };
  // Four clients, each posting ten traces of four runs, then patching them in a later request.
  const client = async () => {
    while (!stop) {
      const runs = Array.from({ length: 10 }, () => makeTrace(4)).flat();
      if (!(await send(multipartBody(postParts(runs))))) {
        await sleep(200);
        continue;
      }
      for (const r of runs) accepted.add(r.id);
      const end = endTimeAfter(runs);
      if (
        await send(
          multipartBody(
            postParts(
              runs.map((r) => ({ ...r, inputs: undefined, outputs: { ok: true }, end_time: end })),
              'patch',
            ),
          ),
        )
      )
        for (const r of runs) patched.add(r.id);
    }
  };
  const load = Promise.all(Array.from({ length: 4 }, client));

  await sleep(6_000);
  const before = await partitionsOf(brokers, runsTopic);
  expect(before.every((p) => p.replicas.length === 3 && p.isr.length === 3)).toBe(true); // the topic took the cluster's replication
  const leader = busiestLeader(before);
  const killedAt = Date.now();
  killNode(leader.nodeId);
  await sleep(15_000);
  stop = true;
  await load;

  // Every answer is a 202 or a 503 with Retry-After: nothing else, and no 2xx is taken back below.
  const unexpected = (list: Answer[]) =>
    list.filter((a) => a.status !== 202 && !(a.status === 503 && /^\d+$/.test(a.retryAfter ?? '')));
  expect(unexpected(answers)).toEqual([]);
  const refused = answers.filter((a) => a.status === 503);
  const lastRefused = refused.length > 0 ? Math.max(...refused.map((a) => a.at)) : killedAt;
  // Writes go on with two of three nodes (min.insync.replicas 2).
  expect(answers.filter((a) => a.status === 202 && a.sent > lastRefused).length).toBeGreaterThan(10);
  const failover = {
    killed_node: leader.nodeId,
    partitions_it_led: leader.partitions,
    requests: answers.length,
    refused_503: refused.length,
    refused_errors: [...new Set(refused.map((a) => a.error))],
    // The longest time without a 2xx after the kill: how long writes were not taken (refused or waiting).
    no_2xx_for_ms: longestGap([
      killedAt,
      ...answers.filter((a) => a.status === 202 && a.at > killedAt).map((a) => a.at),
    ]),
    // The first request sent after the kill that was answered 2xx: how soon a new write was taken.
    first_2xx_sent_after_kill_ms:
      Math.min(...answers.filter((a) => a.sent >= killedAt && a.status === 202).map((a) => a.at)) - killedAt,
    runs_accepted: accepted.size,
  };

  // A second node down: one copy left, fewer than min.insync.replicas, so nothing is acknowledged.
  const second = cluster.nodes.find((n) => n.nodeId !== leader.nodeId)!.nodeId;
  killNode(second);
  const withOne: Answer[] = [];
  for (let i = 0; i < 3; i++) {
    const runs = makeTrace(4);
    const answersBefore = answers.length;
    if (await send(multipartBody(postParts(runs)))) for (const r of runs) accepted.add(r.id);
    withOne.push(...answers.slice(answersBefore));
  }
  expect(withOne.map((a) => [a.status, a.retryAfter, a.error])).toEqual(
    Array(3).fill([503, '2', 'EVENT_LOG_UNAVAILABLE']),
  );

  // Both back: they rejoin, catch up (every partition's replicas in sync again), and writes are taken.
  const restartedAt = Date.now();
  await ensureComponentsUp(components);
  const back = await waitFor(
    'a write to be taken with the nodes back',
    async () => {
      const runs = makeTrace(4);
      if (!(await send(multipartBody(postParts(runs))))) return false;
      for (const r of runs) accepted.add(r.id);
      return Date.now();
    },
    120_000,
    500,
  );
  await waitFor(
    'every partition to have three replicas in sync again',
    async () => (await partitionsOf(brokers, runsTopic)).every((p) => p.isr.length === 3),
    120_000,
    1_000,
  );
  expect(unexpected(answers)).toEqual([]);
  console.log(
    JSON.stringify({
      kafka_failover: {
        ...failover,
        one_node_left_refused: withOne.length,
        writes_again_after_restart_ms: back - restartedAt,
      },
    }),
  );

  const ch = ClickHouseClient.fromConfig(s.config);
  try {
    const tenant = DEFAULT_WORKSPACE_ID;
    const read = async () => {
      const rows = await ch.query<{ id: string; status: string }>(
        sql`SELECT toString(id) AS id, status FROM runs FINAL WHERE tenant_id = toUUID(${tenant})`,
      );
      const done = new Set(rows.filter((r) => r.status === 'success').map((r) => r.id));
      const ids = new Set(rows.map((r) => r.id));
      return {
        rows,
        ids,
        missing: [...accepted].filter((r) => !ids.has(r)),
        unpatched: [...patched].filter((r) => !done.has(r)),
      };
    };
    // A 503'd request may still have reached Kafka (its client would retry it): more rows than
    // accepted runs are allowed, fewer are not.
    await waitFor(
      'every accepted run and patch to be projected',
      async () => {
        const { missing, unpatched } = await read();
        return missing.length === 0 && unpatched.length === 0;
      },
      120_000,
      1_000,
    ).catch(() => undefined);
    const { rows, ids, missing, unpatched } = await read();
    if (missing.length + unpatched.length > 0)
      console.log(JSON.stringify({ missing: missing.slice(0, 5), unpatched: unpatched.slice(0, 5) }));
    expect({ missing: missing.length, unpatched: unpatched.length, of: accepted.size }).toEqual({
      missing: 0,
      unpatched: 0,
      of: accepted.size,
    });
    expect(rows.length).toBe(ids.size); // exactly once
  } finally {
    await ch.close();
  }
});
