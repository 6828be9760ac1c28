// Topic names, in one place. Every name gets the configured prefix so several stacks (or
// test runs) can share one broker.
import { Admin } from '@platformatic/kafka';
import type { Config } from '../config.ts';

export const TOPICS = {
  runs: 'tracing.runs',
  feedback: 'tracing.feedback',
  projects: 'tracing.projects',
  runLineage: 'tracing.run-lineage',
  tenancy: 'tenancy.events',
  /** Destinations, exports and export runs: commands decided against the fold of this topic. */
  bulkExport: 'bulk-export.events',
  /** Events a projector could not read, kept byte for byte (with the reason) instead of dropped. */
  runsDeadLetter: 'tracing.runs.dead-letter',
  feedbackDeadLetter: 'tracing.feedback.dead-letter',
} as const;

/** The dead-letter topic of each topic a projector reads (projections/projectorRuntime.ts). */
export const DEAD_LETTER_TOPICS = {
  [TOPICS.runs]: TOPICS.runsDeadLetter,
  [TOPICS.feedback]: TOPICS.feedbackDeadLetter,
} as const;

export type ProjectedTopic = keyof typeof DEAD_LETTER_TOPICS;

export function topicName(config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>, logical: string): string {
  return config.KAFKA_TOPIC_PREFIX + logical;
}

export function brokerList(config: Pick<Config, 'KAFKA_BROKERS'>): string[] {
  return config.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean);
}

/** Small registries (projects, lineage, tenancy) are compacted; runs and feedback are kept forever. */
const compacted = new Set<string>([TOPICS.runLineage]);

/** Creates the topics that do not exist yet. Safe to run from every process at start-up. */
export async function ensureTopics(config: Config): Promise<void> {
  const admin = new Admin({ clientId: 'topic-setup', bootstrapBrokers: brokerList(config), retries: 10, retryDelay: 500 });
  try {
    const existing = new Set(await admin.listTopics());
    for (const logical of Object.values(TOPICS)) {
      const name = topicName(config, logical);
      if (existing.has(name)) continue;
      const single = logical === TOPICS.tenancy || logical === TOPICS.projects || logical === TOPICS.bulkExport;
      try {
        await admin.createTopics({
          topics: [name],
          partitions: single ? 1 : config.KAFKA_PARTITIONS,
          replicas: 1,
          configs: [
            { name: 'cleanup.policy', value: compacted.has(logical) ? 'compact' : 'delete' },
            { name: 'retention.ms', value: '-1' },
          ],
        });
      } catch (err) {
        // Another process created it between our list and create: that is fine.
        if (!/already exists/i.test(String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''))) throw err;
      }
    }
    await waitForLeaders(admin, Object.values(TOPICS).map((t) => topicName(config, t)));
  } finally {
    await admin.close();
  }
}

/** A consumer that joins before a new topic's partitions have leaders gets no assignment; wait for them. */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const metadata = await admin.metadata({ topics, forceUpdate: true });
      const ready = topics.every((t) => {
        const topic = metadata.topics.get(t);
        return topic !== undefined && topic.partitionsCount > 0 && topic.partitions.every((p) => p.leader >= 0);
      });
      if (ready) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`topics ${topics.join(', ')} have no partition leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
