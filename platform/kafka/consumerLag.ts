// Reports how far a consumer group (a projector) is behind its topic, as the
// projector_lag_messages gauge of the process that serves /metrics. Measured from Kafka's
// own bookkeeping (end offsets minus committed offsets), so it is right whichever process
// or replica runs the projector, and it keeps growing when the projector is dead. The same
// measure gives reads of a read model their read-your-writes: caughtUp() waits (bounded)
// until the projector has committed everything appended before the call.
import { Consumer } from '@platformatic/kafka';
import type { KafkaConfig } from '../config.ts';
import { projectorLag } from '../metrics.ts';
import { brokerList } from './topicAdmin.ts';

export class ConsumerLagMonitor {
  readonly #consumer: Consumer;
  readonly #topic: string;
  readonly #label: string;
  #timer: NodeJS.Timeout | null = null;

  constructor(config: KafkaConfig, groupId: string, topic: string, label: string) {
    this.#topic = topic;
    this.#label = label;
    // Never joins the group: it only reads the group's committed offsets.
    this.#consumer = new Consumer({
      clientId: `lag-${label}`,
      groupId,
      bootstrapBrokers: brokerList(config),
      retries: 0,
      timeout: 3000,
    });
  }

  async measure(): Promise<number[]> {
    const ends = (await this.#consumer.listOffsets({ topics: [this.#topic] })).get(this.#topic) ?? [];
    const partitions = ends.map((_, i) => i);
    const committed =
      (await this.#consumer.listCommittedOffsets({ topics: [{ topic: this.#topic, partitions }] })).get(this.#topic) ??
      [];
    return ends.map((end, p) => {
      const done = committed[p] ?? -1n;
      const lag = Number(end - (done < 0n ? 0n : done));
      projectorLag.set({ projector: this.#label, partition: String(p) }, lag);
      return lag;
    });
  }

  /**
   * Resolves true once the group has committed up to the topic's end offsets as they were at
   * the call (so everything appended before it is in the read model), false after `timeoutMs`
   * or when Kafka does not answer: the caller then serves what the read model has.
   */
  async caughtUp(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    let done = false;
    const poll = async (): Promise<boolean> => {
      try {
        const ends = (await this.#consumer.listOffsets({ topics: [this.#topic] })).get(this.#topic) ?? [];
        const partitions = ends.map((_, i) => i);
        while (!done) {
          const committed =
            (await this.#consumer.listCommittedOffsets({ topics: [{ topic: this.#topic, partitions }] })).get(
              this.#topic,
            ) ?? [];
          if (ends.every((end, p) => end === 0n || (committed[p] ?? -1n) >= end)) return true;
          await new Promise((r) => setTimeout(r, 50));
        }
      } catch {
        /* Kafka did not answer: serve what the read model has */
      }
      return false;
    };
    try {
      return await Promise.race([poll(), late]);
    } finally {
      done = true;
      clearTimeout(timer);
    }
  }

  start(intervalMs = 5000): void {
    const tick = () => void this.measure().catch(() => {});
    tick();
    this.#timer = setInterval(tick, intervalMs);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#consumer.close();
  }
}
