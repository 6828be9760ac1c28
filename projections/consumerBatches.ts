// What every projector's consume loop shares: grouping a Kafka message stream into batches,
// and retrying a step forever (with backoff) while a store is down, so nothing is skipped.
import { Consumer, stringDeserializer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { Config } from '../services/common/config.ts';
import type { Logger } from '../services/common/logger.ts';
import { brokerList } from '../services/common/kafka/topics.ts';
import type { ClickHouseClient } from '../services/common/clickhouse/client.ts';
import { ident, sql } from '../services/common/clickhouse/sql.ts';

export type StringMessage = Message<string, Buffer, string, string>;

export function createProjectorConsumer(config: Config, clientId: string, groupId: string): Consumer<string, Buffer, string, string> {
  return new Consumer({
    clientId,
    groupId,
    bootstrapBrokers: brokerList(config),
    deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
    // Under load, a fetch per few messages costs more (here and in the broker) than the
    // messages: let the broker gather 256 KiB, or answer after 50 ms, whichever comes first.
    minBytes: 256 * 1024,
    maxWaitTime: 50,
    maxBytes: 64 * 1024 * 1024,
    highWaterMark: 4096,
    retries: true,
    retryDelay: 1000,
  }) as Consumer<string, Buffer, string, string>;
}

/** Commits the last offset of each partition in the batch. Call only after its rows are written. */
export async function commitBatch(batch: StringMessage[], logger: Logger): Promise<void> {
  const last = new Map<number, StringMessage>();
  for (const m of batch) last.set(m.partition, m);
  try {
    await Promise.all([...last.values()].map((m) => m.commit()));
  } catch (err) {
    // After a rebalance the new owner re-reads from the last commit; projecting is idempotent.
    logger.warn({ err }, 'offset commit failed; the batch will be re-read and re-applied idempotently');
  }
}

/**
 * Deletes a deleted project's rows from one table (a mutation), unless it has none: every
 * start folds every tombstone again, and a mutation rewrites parts even when nothing matches.
 */
export async function deleteProjectRows(ch: ClickHouseClient, table: string, tenantId: string, projectId: string): Promise<void> {
  const where = sql`tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId})`;
  const found = await ch.query(sql`SELECT 1 FROM ${ident(table)} WHERE ${where} LIMIT 1`);
  if (found.length > 0) await ch.exec(sql`ALTER TABLE ${ident(table)} DELETE WHERE ${where}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function retryForever(logger: Logger, what: string, fn: () => Promise<void>, stopping: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (stopping()) throw err;
      const delay = Math.min(5000, 100 * 2 ** Math.min(attempt, 6));
      logger.warn({ err: (err as Error).message, attempt, delay }, `${what} failed; retrying`);
      await sleep(delay);
    }
  }
}

/** Groups a message stream into batches of up to `maxMessages` events or `flushMs` of waiting. */
export async function* batches(stream: MessagesStream<string, Buffer, string, string>, maxMessages: number, flushMs: number): AsyncGenerator<StringMessage[]> {
  let pending: StringMessage[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  stream.on('data', (m: StringMessage) => {
    pending.push(m);
    if (pending.length >= maxMessages) stream.pause();
    if (wake && pending.length >= maxMessages) wake();
  });
  stream.on('close', () => {
    ended = true;
    wake?.();
  });
  while (!ended) {
    if (pending.length < maxMessages) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pending.length ? flushMs : flushMs * 2);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    if (pending.length === 0) continue;
    const batch = pending;
    pending = [];
    yield batch;
    if (stream.isPaused()) stream.resume();
  }
}
