// The dead-letter check every projector's tests share (projections/shared/projectorRuntime.ts): messages
// a projector cannot read — bytes that are not its schema, a schema version or an event type it
// does not know — are appended to its topic before a good event with the same key (so the same
// partition); once the good event is projected, each bad message must be in the topic's
// dead-letter topic byte for byte (key, value, every header, plus the reason and the source), and
// the projector's group must have committed past it.
import { Consumer, MessagesStreamModes, type Message } from '@platformatic/kafka';
import { expect } from 'vitest';
import type { Config } from '../../platform/config.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { brokerList, topicName } from '../../platform/kafka/topicAdmin.ts';
import { DEAD_LETTER_TOPICS, type ProjectedTopic } from '../../schemas/topics.ts';
import type { EncodedEvent } from '../../schemas/registry.ts';
import { waitFor } from './serviceProcess.ts';

type RawMessage = Message<Buffer, Buffer, Buffer, Buffer>;

export interface Poison {
  label: string;
  key: string;
  value: Buffer;
  headers: Array<[string, Buffer]>;
}

/** Three messages the projector of `readable`'s topic cannot read, all with `key`. */
export function poisonMessages(key: string, readable: EncodedEvent): Poison[] {
  const eventType = readable.headers['event-type']!;
  const version = readable.headers['schema-version']!;
  // not UTF-8 either, so a reader that went through text would change them
  const binaryHeader: [string, Buffer] = ['x-trace-bytes', Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28])];
  return [
    {
      label: 'garbage bytes with the event headers',
      key,
      value: Buffer.concat([Buffer.from('definitely not avro '), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff, 0x00])]),
      headers: [['event-type', Buffer.from(eventType)], ['schema-version', Buffer.from(version)], binaryHeader],
    },
    {
      label: 'an unknown schema version',
      key,
      value: readable.value,
      headers: [['event-type', Buffer.from(eventType)], ['schema-version', Buffer.from('9999')], binaryHeader],
    },
    {
      label: 'an unknown event type',
      key,
      value: readable.value,
      headers: [
        ['event-type', Buffer.from(`${eventType}FromTheFuture`)],
        ['schema-version', Buffer.from(version)],
      ],
    },
  ];
}

export async function appendPoison(config: Config, topic: ProjectedTopic, poisons: Poison[]): Promise<void> {
  const log = new EventLog(config, 'test-poison');
  try {
    for (const p of poisons) await log.appendRaw(topic, { key: p.key, value: p.value, headers: new Map(p.headers) });
  } finally {
    await log.close();
  }
}

/** The first `count` messages of `topic`'s dead-letter topic, as bytes. */
export async function readDeadLetters(config: Config, topic: ProjectedTopic, count: number): Promise<RawMessage[]> {
  const consumer = new Consumer({
    clientId: 'dead-letter-reader',
    groupId: `dead-letter-reader-${Date.now()}`,
    bootstrapBrokers: brokerList(config),
  });
  const stream = await consumer.consume({
    topics: [topicName(config, DEAD_LETTER_TOPICS[topic])],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
  });
  try {
    const got: RawMessage[] = [];
    stream.on('data', (m: RawMessage) => got.push(m));
    await waitFor(`${count} dead letters of ${topic}`, async () => got.length >= count, 30_000, 100);
    return got;
  } finally {
    await stream.close();
    await consumer.close(true);
  }
}

/** The message of `topic`'s dead-letter topic whose key is `key` (waiting for it). */
export async function findDeadLetter(config: Config, topic: ProjectedTopic, key: string): Promise<RawMessage> {
  const consumer = new Consumer({
    clientId: 'dead-letter-finder',
    groupId: `dead-letter-finder-${Date.now()}`,
    bootstrapBrokers: brokerList(config),
  });
  const stream = await consumer.consume({
    topics: [topicName(config, DEAD_LETTER_TOPICS[topic])],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
  });
  try {
    let found: RawMessage | null = null;
    stream.on('data', (m: RawMessage) => {
      if (m.key?.toString() === key) found ??= m;
    });
    return await waitFor(`the dead letter keyed ${key} in ${topic}`, async () => found, 30_000, 100);
  } finally {
    await stream.close();
    await consumer.close(true);
  }
}

/** A header of a dead-lettered message, as text. */
export const deadLetterHeader = (message: RawMessage, name: string): string | undefined =>
  message.headerEntries.find(([k]) => k.toString() === name)?.[1].toString();

/** The next offset `groupId` will read in `partition` of `topic` (-1 when it has committed nothing). */
export async function committedOffset(
  config: Config,
  groupId: string,
  topic: ProjectedTopic,
  partition: number,
): Promise<bigint> {
  const consumer = new Consumer({ clientId: 'committed-reader', groupId, bootstrapBrokers: brokerList(config) });
  try {
    const name = topicName(config, topic);
    const offsets = await consumer.listCommittedOffsets({ topics: [{ topic: name, partitions: [partition] }] });
    return offsets.get(name)?.[partition] ?? -1n;
  } finally {
    await consumer.close();
  }
}

/**
 * Call once the good event appended after `poisons` is projected: every poison is in the
 * dead-letter topic as it was appended, and the projector's group has committed past it.
 */
export async function expectDeadLettered(
  config: Config,
  topic: ProjectedTopic,
  groupId: string,
  poisons: Poison[],
): Promise<void> {
  const dead = await readDeadLetters(config, topic, poisons.length);
  expect(dead).toHaveLength(poisons.length);
  dead.forEach((d, i) => {
    const p = poisons[i]!;
    const headers = d.headerEntries.map(([k, v]) => [k.toString(), v]);
    expect(d.key.equals(Buffer.from(p.key)), `${p.label}: key`).toBe(true);
    expect(d.value.equals(p.value), `${p.label}: value`).toBe(true);
    expect(headers.slice(0, p.headers.length), `${p.label}: the original headers, byte for byte`).toEqual(p.headers);
    const added = Object.fromEntries(headers.slice(p.headers.length).map(([k, v]) => [k, v!.toString()]));
    expect(Object.keys(added).sort(), `${p.label}: the headers the runtime adds`).toEqual([
      'dead-letter-reason',
      'dead-letter-source',
    ]);
    expect(added['dead-letter-reason'], p.label).not.toBe('');
    expect(added['dead-letter-source'], p.label).toMatch(
      new RegExp(`^${topicName(config, topic).replaceAll('.', '\\.')}/\\d+/\\d+$`),
    );
  });
  expect(dead[1]!.headerEntries.find(([k]) => k.toString() === 'dead-letter-reason')![1].toString()).toMatch(/9999/);
  expect(dead[2]!.headerEntries.find(([k]) => k.toString() === 'dead-letter-reason')![1].toString()).toMatch(
    /unknown event type/,
  );
  // The source names where each was read; the group's committed offset is past all of them and
  // past the good event appended right after them (the next offset of that partition).
  const sources = dead.map((d) =>
    d.headerEntries
      .find(([k]) => k.toString() === 'dead-letter-source')![1]
      .toString()
      .split('/'),
  );
  const partitions = new Set(sources.map((s) => Number(s.at(-2))));
  expect(partitions.size, 'one key, one partition').toBe(1);
  const [partition] = [...partitions];
  const last = sources.map((s) => BigInt(s.at(-1)!)).reduce((a, b) => (a > b ? a : b));
  await waitFor(
    'the committed offset past the unreadable messages',
    async () => (await committedOffset(config, groupId, topic, partition!)) > last + 1n,
    30_000,
    100,
  );
}
