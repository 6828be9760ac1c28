// Every topic is declared once, in schemas/topics.ts, beside its schemas: the folders of
// schemas/ and the declarations agree, and the broker gets exactly the declared settings.
import { readdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Admin, ConfigResourceTypes } from '@platformatic/kafka';
import { expect, inject, test } from 'vitest';
import { schemasDir, readSchemaFiles } from '../../schemas/registry.ts';
import { DEAD_LETTER_TOPICS, TOPIC_DECLARATIONS, TOPICS } from '../../schemas/topics.ts';
import { brokerList, ensureTopics, topicName } from '../../platform/kafka/topicAdmin.ts';

test('each schema folder is a declared topic with schemas, and each declared topic with schemas has its folder', () => {
  const folders = readdirSync(schemasDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const withSchemas = TOPIC_DECLARATIONS.filter((t) => t.hasSchemas)
    .map((t) => t.name)
    .sort();
  expect(folders).toEqual(withSchemas);
  expect(new Set(readSchemaFiles().map((f) => f.topic))).toEqual(new Set(withSchemas));
  expect(new Set(TOPIC_DECLARATIONS.map((t) => t.name)).size).toBe(TOPIC_DECLARATIONS.length);
});

test('every dead-letter topic is itself declared, and is where its topic says', () => {
  for (const [source, deadLetter] of Object.entries(DEAD_LETTER_TOPICS)) {
    expect(TOPIC_DECLARATIONS.find((t) => t.name === source)?.deadLetter).toBe(deadLetter);
    expect(TOPIC_DECLARATIONS.find((t) => t.name === deadLetter)?.hasSchemas).toBe(false);
  }
  expect(Object.keys(DEAD_LETTER_TOPICS).sort()).toEqual([TOPICS.examples, TOPICS.feedback, TOPICS.runs].sort());
});

test('the broker gets the declared partitions and cleanup policy of every topic', async () => {
  const env = inject('tracingEnv');
  const config = {
    KAFKA_BROKERS: env.KAFKA_BROKERS!,
    KAFKA_TOPIC_PREFIX: `topics-${randomUUID().slice(0, 8)}.`,
    KAFKA_PARTITIONS: 3,
  };
  await ensureTopics(config, TOPIC_DECLARATIONS);
  const admin = new Admin({ clientId: 'topics-test', bootstrapBrokers: brokerList(config) });
  try {
    const names = TOPIC_DECLARATIONS.map((t) => topicName(config, t.name));
    const metadata = await admin.metadata({ topics: names });
    const described = await admin.describeConfigs({
      resources: names.map((resourceName) => ({
        resourceType: ConfigResourceTypes.TOPIC,
        resourceName,
        configurationKeys: ['cleanup.policy', 'retention.ms'],
      })),
    });
    for (const t of TOPIC_DECLARATIONS) {
      const name = topicName(config, t.name);
      expect(metadata.topics.get(name)?.partitionsCount, name).toBe(t.partitions === 'configured' ? 3 : t.partitions);
      const configs = described.find((d) => d.resourceName === name)!.configs;
      expect(configs.find((c) => c.name === 'cleanup.policy')?.value, name).toBe(t.cleanupPolicy);
      expect(configs.find((c) => c.name === 'retention.ms')?.value, name).toBe('-1');
    }
    await admin.deleteTopics({ topics: names });
  } finally {
    await admin.close();
  }
});
