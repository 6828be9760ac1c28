// Readiness that reflects whether Kafka answers: a metadata request every few seconds.
import { Admin } from '@platformatic/kafka';
import type { KafkaConfig } from '../config.ts';
import { brokerList } from '../kafka/topicAdmin.ts';

export class KafkaReadiness {
  readonly #admin: Admin;
  #lastOk = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(config: KafkaConfig) {
    this.#admin = new Admin({ clientId: 'readiness', bootstrapBrokers: brokerList(config), retries: 0, timeout: 2000 });
  }

  start(intervalMs = 3000): void {
    const check = async () => {
      try {
        await this.#admin.metadata({ topics: [], forceUpdate: true });
        this.#lastOk = Date.now();
      } catch {
        /* stays not ready */
      }
    };
    void check();
    this.#timer = setInterval(check, intervalMs);
  }

  ready = (): boolean => Date.now() - this.#lastOk < 10_000;

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#admin.close();
  }
}
