// Where a run sits in its trace (trace_id, dotted_order, project), for POST /runs children
// and direct PATCHes that do not say it themselves, and to check a child against its parent. Runs created through POST /runs are
// recorded on the lineage topic, which every API replica folds; catchUp() makes a run
// posted a moment ago through another replica visible. Older runs fall back to ClickHouse.
import type { KafkaConfig } from '../../../platform/config.ts';
import type { Logger } from '../../../platform/logger.ts';
import { TopicState } from '../../../platform/kafka/topicState.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';

export interface RunLineage {
  traceId: string;
  dottedOrder: string;
  sessionId: string;
}

export type LineageFallback = (tenantId: string, runId: string) => Promise<RunLineage | null>;

export class LineageIndex {
  readonly #entries = new Map<string, RunLineage>();
  readonly #maxEntries: number;
  readonly #topicState: TopicState;
  readonly #fallback: LineageFallback;

  constructor(config: KafkaConfig, logger: Logger, fallback: LineageFallback, maxEntries = 500_000) {
    this.#maxEntries = maxEntries;
    this.#fallback = fallback;
    this.#topicState = new TopicState(config, TOPICS.runLineage, this.apply, logger);
  }

  start(): Promise<void> {
    return this.#topicState.start();
  }

  apply = (e: DecodedEvent): void => {
    if (e.name !== 'RunLineageRecorded') return;
    const p = e.payload;
    this.remember(p.tenant_id, p.run_id, { traceId: p.trace_id, dottedOrder: p.dotted_order, sessionId: p.session_id });
  };

  remember(tenantId: string, runId: string, lineage: RunLineage): void {
    const key = `${tenantId}/${runId}`;
    this.#entries.delete(key);
    this.#entries.set(key, lineage);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** What this process holds now of the run's lineage: no catch-up, no read of ClickHouse (for checks on the hot path). */
  recall(tenantId: string, runId: string): RunLineage | undefined {
    return this.#entries.get(`${tenantId}/${runId}`);
  }

  async find(tenantId: string, runId: string): Promise<RunLineage | null> {
    const key = `${tenantId}/${runId}`;
    const local = this.#entries.get(key);
    if (local) return local;
    await this.#topicState.catchUp();
    return this.#entries.get(key) ?? (await this.#fallback(tenantId, runId));
  }

  close(): Promise<void> {
    return this.#topicState.close();
  }
}
