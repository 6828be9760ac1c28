// EventLog against the real broker: appends that arrive while a produce request is in flight go
// together in the next request (the idempotent producer keeps one request in flight, so one
// request each would queue them round trip after round trip), in the order they were appended,
// and never more of them in one request than one record batch of the topic takes.
import { randomUUID } from 'node:crypto';
import { tracingChannel } from 'node:diagnostics_channel';
import { Admin, ConfigResourceTypes, Consumer, MessagesStreamModes, type Message } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { loadConfig, type Config } from '../../../platform/config.ts';
import { EventLog } from '../../../platform/kafka/eventLog.ts';
import { brokerList, ensureTopics, topicName } from '../../../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS, TOPICS } from '../../../schemas/topics.ts';
import { decodeEvent } from '../../../schemas/registry.ts';
import { projectCreatedEvent } from '../../../projections/projects/projectRegistry.ts';
import { waitFor } from '../../support/serviceProcess.ts';

let config: Config;
let admin: Admin;

beforeAll(async () => {
  config = loadConfig({
    ...inject('tracingEnv'),
    KAFKA_TOPIC_PREFIX: `eventlog-${randomUUID().slice(0, 8)}.`,
    KAFKA_PARTITIONS: '3',
  });
  await ensureTopics(config, TOPIC_DECLARATIONS);
  admin = new Admin({ clientId: 'eventlog-test', bootstrapBrokers: brokerList(config) });
});
afterAll(async () => {
  await admin?.deleteTopics({ topics: TOPIC_DECLARATIONS.map((t) => topicName(config, t.name)) }).catch(() => {});
  await admin?.close();
});

/** The messages of each produce request the clients with this id send while `during` runs. */
async function produceRequests(clientId: string, during: () => Promise<void>): Promise<number[][]> {
  const requests: number[][] = [];
  const start = (context: unknown) => {
    const c = context as { client?: { clientId?: string }; options?: { messages?: Array<{ value?: Buffer }> } };
    if (c.client?.clientId === clientId) requests.push((c.options?.messages ?? []).map((m) => m.value?.length ?? 0));
  };
  const sends = tracingChannel('plt:kafka:producer:sends');
  const handlers = { start, end: () => {}, asyncStart: () => {}, asyncEnd: () => {}, error: () => {} };
  sends.subscribe(handlers);
  try {
    await during();
  } finally {
    sends.unsubscribe(handlers);
  }
  return requests;
}

/** The `count` first events of the projects topic, decoded, in the order of their partition. */
async function readProjectNames(count: number): Promise<string[]> {
  const consumer = new Consumer({
    clientId: 'eventlog-reader',
    groupId: `eventlog-reader-${randomUUID()}`,
    bootstrapBrokers: brokerList(config),
  });
  const stream = await consumer.consume({
    topics: [topicName(config, TOPICS.projects)],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
  });
  try {
    const got: Array<Message<Buffer, Buffer, Buffer, Buffer>> = [];
    stream.on('data', (m: Message<Buffer, Buffer, Buffer, Buffer>) => got.push(m));
    await waitFor(`${count} project events`, async () => got.length >= count, 30_000, 100);
    return got.map((m) => {
      const headers = new Map(m.headerEntries.map(([k, v]) => [k.toString(), v.toString()]));
      return (decodeEvent(headers, m.value).payload as { name: string }).name;
    });
  } finally {
    await stream.close();
    await consumer.close(true);
  }
}

describe('appends while a produce request is in flight', () => {
  test('go together in the next request, each acknowledged, in the order they were appended', async () => {
    const log = new EventLog(config, 'eventlog-coalesce');
    const tenant = randomUUID();
    const project = randomUUID();
    // One key: one partition, where the order is kept.
    const names = Array.from({ length: 30 }, (_, i) => `p-${String(i).padStart(2, '0')}`);
    try {
      const requests = await produceRequests('eventlog-coalesce', async () => {
        await Promise.all(names.map((name) => log.append([projectCreatedEvent(tenant, project, { name })])));
      });
      // The first goes alone (nothing was in flight); the 29 appended meanwhile go in one request.
      expect(requests.map((r) => r.length)).toEqual([1, 29]);
    } finally {
      await log.close();
    }
    expect(await readProjectNames(names.length)).toEqual(names);
  });

  test('never more in one request than one record batch of the topic takes', async () => {
    const limit = 64 * 1024;
    await admin.incrementalAlterConfigs({
      resources: [
        {
          resourceType: ConfigResourceTypes.TOPIC,
          resourceName: topicName(config, TOPICS.projects),
          configs: [{ name: 'max.message.bytes', configOperation: 0, value: String(limit) }],
        },
      ],
    });
    const log = new EventLog(config, 'eventlog-budget');
    try {
      // 24 events of ~10 KiB appended at once: ~240 KiB, several requests' worth at 64 KiB each.
      const description = 'd'.repeat(10_000);
      const requests = await produceRequests('eventlog-budget', async () => {
        await Promise.all(
          Array.from({ length: 24 }, (_, i) =>
            log.append([projectCreatedEvent(randomUUID(), randomUUID(), { name: `big-${i}`, description })]),
          ),
        );
      });
      expect(requests.flat()).toHaveLength(24);
      for (const request of requests) expect(request.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThan(limit);
      expect(requests.some((r) => r.length > 1)).toBe(true);
    } finally {
      await log.close();
    }
  });
});
