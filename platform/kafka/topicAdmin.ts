// Creates topics as their declarations say (schemas/topics.ts), and names them: every name
// gets the configured prefix so several stacks (or test runs) can share one broker.
import { Admin } from '@platformatic/kafka';
import type { Config } from '../config.ts';
import type { TopicDeclaration } from '../../schemas/topics.ts';

export function topicName(config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>, logical: string): string {
  return config.KAFKA_TOPIC_PREFIX + logical;
}

export function brokerList(config: Pick<Config, 'KAFKA_BROKERS'>): string[] {
  return config.KAFKA_BROKERS.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}

export type TopicAdminConfig = Pick<Config, 'KAFKA_BROKERS' | 'KAFKA_TOPIC_PREFIX' | 'KAFKA_PARTITIONS'>;

/** Creates the declared topics that do not exist yet, then waits for their leaders. Safe to run from every process at start-up. */
export async function ensureTopics(config: TopicAdminConfig, topics: readonly TopicDeclaration[]): Promise<void> {
  const admin = new Admin({
    clientId: 'topic-setup',
    bootstrapBrokers: brokerList(config),
    retries: 10,
    retryDelay: 500,
  });
  try {
    const existing = new Set(await admin.listTopics());
    for (const topic of topics) {
      const name = topicName(config, topic.name);
      if (existing.has(name)) continue;
      try {
        await admin.createTopics({
          topics: [name],
          partitions: topic.partitions === 'configured' ? config.KAFKA_PARTITIONS : topic.partitions,
          // The broker's default.replication.factor (and its min.insync.replicas): one copy on a
          // single node, three on the local cluster (infra/kafka.ts), what the operator chose on theirs.
          replicas: -1,
          configs: [
            { name: 'cleanup.policy', value: topic.cleanupPolicy },
            { name: 'retention.ms', value: '-1' },
          ],
        });
      } catch (err) {
        // Another process created it between our list and create: that is fine.
        if (
          !/already exists/i.test(
            String((err as Error).message) + JSON.stringify((err as { errors?: unknown }).errors ?? ''),
          )
        )
          throw err;
      }
    }
    await waitForLeaders(
      admin,
      topics.map((t) => topicName(config, t.name)),
    );
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
    if (Date.now() > deadline)
      throw new Error(`topics ${topics.join(', ')} have no partition leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
