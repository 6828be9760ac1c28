// The one place tests get Kafka, ClickHouse, S3 and PostgreSQL from.
//   default               the local stack (infra/stack.ts): started if not running, reused if it is
//   TEST_INFRA=containers  throwaway containers via testcontainers, for machines with Docker
// Either way the result has the operating contract's shape, so tests never branch on it.
import type { StackEndpoints } from '../../infra/stack.ts';
import {
  defaultPostgresUrl,
  defaultS3AccessKeyId,
  defaultS3SecretAccessKey,
  endpointsFromEnv,
} from '../../infra/config.ts';

export type { StackEndpoints } from '../../infra/stack.ts';

// Images for the containers path; the same versions docker-compose.yml uses where it can.
// @testcontainers/kafka drives Confluent's image; Confluent Platform 7.9 is Apache Kafka 3.9.
export const containerImages = {
  kafka: 'confluentinc/cp-kafka:7.9.6',
  clickhouse: 'clickhouse/clickhouse-server:24.8',
  minio: 'minio/minio:RELEASE.2025-09-07T16-13-09Z',
  postgres: 'postgres:18',
} as const;

type Stoppable = { stop: () => Promise<unknown> };

let provided: Promise<StackEndpoints> | undefined;
const startedContainers: Stoppable[] = [];

/**
 * Set by the run's global setup (test/support/globalSetup.ts) once the local stack is up, in the
 * environment of every test process it starts after that: a test file then takes the endpoints
 * from the environment as ensureStackUp would, without loading infra/stack.ts (its Kafka, S3 and
 * PostgreSQL clients cost a test process 1.5 s of CPU to import, and most test files use none of
 * them) or probing the servers again. The fault tests that stop a server start it again themselves.
 */
export const STACK_UP = 'TEST_INFRA_STACK_UP';

/** Endpoints of running infrastructure; the first call in a process provides it, later calls reuse it. */
export function provideInfra(): Promise<StackEndpoints> {
  provided ??=
    process.env.TEST_INFRA === 'containers'
      ? startContainers()
      : process.env[STACK_UP]
        ? Promise.resolve(endpointsFromEnv())
        : import('../../infra/stack.ts').then(({ ensureStackUp }) => ensureStackUp());
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
  const [{ KafkaContainer }, { ClickHouseContainer }, { MinioContainer }, { GenericContainer, Wait }] =
    await Promise.all([
      import('@testcontainers/kafka'),
      import('@testcontainers/clickhouse'),
      import('@testcontainers/minio'),
      import('testcontainers'),
    ]);
  // The superuser, password and database of POSTGRES_URL, as the local stack's initdb takes them.
  const postgresUrl = new URL(process.env.POSTGRES_URL || defaultPostgresUrl);
  const accessKeyId = process.env.S3_ACCESS_KEY_ID || defaultS3AccessKeyId;
  const secretAccessKey = process.env.S3_SECRET_ACCESS_KEY || defaultS3SecretAccessKey;

  const [kafka, clickhouse, minio, postgres] = await Promise.all([
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
    new GenericContainer(containerImages.postgres)
      .withEnvironment({
        POSTGRES_USER: decodeURIComponent(postgresUrl.username),
        POSTGRES_PASSWORD: decodeURIComponent(postgresUrl.password),
        // The URL's database, else one named after the user (libpq's default, and the local stack's).
        POSTGRES_DB: decodeURIComponent(postgresUrl.pathname.slice(1)) || decodeURIComponent(postgresUrl.username),
        // Without a password the local stack trusts loopback clients; the image needs telling.
        ...(postgresUrl.password ? {} : { POSTGRES_HOST_AUTH_METHOD: 'trust' }),
      })
      .withExposedPorts(5432)
      // The entrypoint's temporary server says it once, the real one a second time.
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
  ]);
  startedContainers.push(kafka, clickhouse, minio, postgres);
  postgresUrl.hostname = postgres.getHost();
  postgresUrl.port = String(postgres.getMappedPort(5432));

  return {
    kafkaBrokers: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    clickhouseUrl: clickhouse.getHttpUrl(),
    s3Endpoint: minio.getConnectionUrl(),
    s3AccessKeyId: accessKeyId,
    s3SecretAccessKey: secretAccessKey,
    postgresUrl: postgresUrl.toString(),
  };
}
