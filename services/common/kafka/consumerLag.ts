// Reports how far a consumer group (a projector) is behind its topic, as the
// projector_lag_messages gauge of the process that serves /metrics. Measured from Kafka's
// own bookkeeping (end offsets minus committed offsets), so it is right whichever process
// or replica runs the projector, and it keeps growing when the projector is dead.
import { Consumer } from '@platformatic/kafka';
import type { Config } from '../config.ts';
import { projectorLag } from '../metrics.ts';
import { brokerList } from './topics.ts';

export class ConsumerLagMonitor {
  readonly #consumer: Consumer;
  readonly #topic: string;
  readonly #label: string;
  #timer: NodeJS.Timeout | null = null;

  constructor(config: Config, groupId: string, topic: string, label: string) {
    this.#topic = topic;
    this.#label = label;
    // Never joins the group: it only reads the group's committed offsets.
    this.#consumer = new Consumer({ clientId: `lag-${label}`, groupId, bootstrapBrokers: brokerList(config), retries: 0, timeout: 3000 });
  }

  async measure(): Promise<number[]> {
    const ends = (await this.#consumer.listOffsets({ topics: [this.#topic] })).get(this.#topic) ?? [];
    const partitions = ends.map((_, i) => i);
    const committed = (await this.#consumer.listCommittedOffsets({ topics: [{ topic: this.#topic, partitions }] })).get(this.#topic) ?? [];
    return ends.map((end, p) => {
      const done = committed[p] ?? -1n;
      const lag = Number(end - (done < 0n ? 0n : done));
      projectorLag.set({ projector: this.#label, partition: String(p) }, lag);
      return lag;
    });
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
