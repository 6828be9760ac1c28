// The one place tests get Kafka, ClickHouse and S3 from.
//   default               the local stack (infra/stack.ts): started if not running, reused if it is
//   TEST_INFRA=containers  throwaway containers via testcontainers, for machines with Docker
// Either way the result has the operating contract's shape, so tests never branch on it.
import { ensureStackUp } from '../../infra/stack.ts';
import type { StackEndpoints } from '../../infra/stack.ts';
import { defaultS3AccessKeyId, defaultS3SecretAccessKey } from '../../infra/config.ts';

export type { StackEndpoints } from '../../infra/stack.ts';

// Images for the containers path; the same versions docker-compose.yml uses where it can.
// @testcontainers/kafka drives Confluent's image; Confluent Platform 7.9 is Apache Kafka 3.9.
export const containerImages = {
  kafka: 'confluentinc/cp-kafka:7.9.6',
  clickhouse: 'clickhouse/clickhouse-server:24.8',
  minio: 'minio/minio:RELEASE.2025-09-07T16-13-09Z',
} as const;

type Stoppable = { stop: () => Promise<unknown> };

let provided: Promise<StackEndpoints> | undefined;
const startedContainers: Stoppable[] = [];

/** Endpoints of running infrastructure; the first call in a process provides it, later calls reuse it. */
export function provideInfra(): Promise<StackEndpoints> {
  provided ??= process.env.TEST_INFRA === 'containers' ? startContainers() : ensureStackUp();
  return provided;
}

/** Stops containers this process started; the local stack is left running for the next run. */
export async function releaseInfra(): Promise<void> {
  const containers = startedContainers.splice(0);
  provided = undefined;
  await Promise.all(containers.map((container) => container.stop()));
}

async function startContainers(): Promise<StackEndpoints> {
  // Imported lazily: the default path must not need Docker, or load its client at all.
  const [{ KafkaContainer }, { ClickHouseContainer }, { MinioContainer }] = await Promise.all([
    import('@testcontainers/kafka'),
    import('@testcontainers/clickhouse'),
    import('@testcontainers/minio'),
  ]);
  const accessKeyId = process.env.S3_ACCESS_KEY_ID || defaultS3AccessKeyId;
  const secretAccessKey = process.env.S3_SECRET_ACCESS_KEY || defaultS3SecretAccessKey;

  const [kafka, clickhouse, minio] = await Promise.all([
    new KafkaContainer(containerImages.kafka)
      .withKraft()
      .withEnvironment({
        // The same broker settings as the local stack (infra/kafka.ts).
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
        KAFKA_NUM_PARTITIONS: '6',
        KAFKA_LOG_RETENTION_MS: '-1',
        KAFKA_MESSAGE_MAX_BYTES: '10485760',
        KAFKA_REPLICA_FETCH_MAX_BYTES: '10485760',
      })
      .start(),
    // The `default` user without password, as in the local stack, so CLICKHOUSE_URL carries no credentials.
    new ClickHouseContainer(containerImages.clickhouse)
      .withUsername('default')
      .withPassword('')
      .withDatabase('default')
      .withEnvironment({ CLICKHOUSE_SKIP_USER_SETUP: '1' })
      .start(),
    new MinioContainer(containerImages.minio).withUsername(accessKeyId).withPassword(secretAccessKey).start(),
  ]);
  startedContainers.push(kafka, clickhouse, minio);

  return {
    kafkaBrokers: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    clickhouseUrl: clickhouse.getHttpUrl(),
    s3Endpoint: minio.getConnectionUrl(),
    s3AccessKeyId: accessKeyId,
    s3SecretAccessKey: secretAccessKey,
  };
}
