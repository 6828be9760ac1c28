// Where a topic ends and how far one consumer group has got, per partition, from Kafka's own
// bookkeeping (the reader never joins the group).
import { Consumer } from '@platformatic/kafka';
import type { KafkaConfig } from '../../platform/config.ts';
import { brokerList } from '../../platform/kafka/topicAdmin.ts';

export type Offsets = bigint[];

export class TopicOffsets {
  readonly #consumer: Consumer;
  readonly #topic: string;

  constructor(config: KafkaConfig, topic: string, groupId: string) {
    this.#topic = topic;
    this.#consumer = new Consumer({
      clientId: 'replay-offsets',
      groupId,
      bootstrapBrokers: brokerList(config),
      retries: 3,
      timeout: 5000,
    });
  }

  async end(): Promise<Offsets> {
    return (await this.#consumer.listOffsets({ topics: [this.#topic] })).get(this.#topic) ?? [];
  }

  /** The next offset the group will read in each partition (0 where it has committed nothing). */
  async committed(partitions: number): Promise<Offsets> {
    const ids = Array.from({ length: partitions }, (_, i) => i);
    const got =
      (
        await this.#consumer
          .listCommittedOffsets({ topics: [{ topic: this.#topic, partitions: ids }] })
          .catch(() => new Map())
      ).get(this.#topic) ?? [];
    return ids.map((p) => (got[p] !== undefined && got[p] >= 0n ? got[p] : 0n));
  }

  close(): Promise<void> {
    return this.#consumer.close();
  }
}

export const sumOffsets = (offsets: Offsets): number => offsets.reduce((a, b) => a + Number(b), 0);
/** True when every partition has reached its target. */
export const reached = (done: Offsets, target: Offsets): boolean => target.every((t, p) => (done[p] ?? 0n) >= t);
