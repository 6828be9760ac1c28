import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from 'vitest';
import {
  brokerAddresses,
  endpointsFromEnv,
  extraPortsFromEnv,
  infraConfigProblems,
  isLoopback,
  localDir,
  repoRoot,
  urlHostPort,
} from '../../infra/config.ts';
import { localKafkaCluster, replicationOf } from '../../infra/kafka.ts';

test('endpoints default to the operating contract', () => {
  expect(endpointsFromEnv({})).toEqual({
    kafkaBrokers: '127.0.0.1:9092',
    clickhouseUrl: 'http://127.0.0.1:8123',
    s3Endpoint: 'http://127.0.0.1:9000',
    s3AccessKeyId: 'minioadmin',
    s3SecretAccessKey: 'minioadmin-dev-secret',
    postgresUrl: 'postgres://postgres:postgres@127.0.0.1:5432/postgres',
  });
  expect(extraPortsFromEnv({})).toEqual({ kafkaControllerPort: 9093, clickhouseTcpPort: 9002, minioConsolePort: 9091 });
});

test('environment overrides the defaults; empty values count as unset', () => {
  const endpoints = endpointsFromEnv({
    KAFKA_BROKERS: '127.0.0.1:19092',
    CLICKHOUSE_URL: '',
    S3_SECRET_ACCESS_KEY: 'other-secret',
  });
  expect(endpoints.kafkaBrokers).toBe('127.0.0.1:19092');
  expect(endpoints.clickhouseUrl).toBe('http://127.0.0.1:8123');
  expect(endpoints.s3SecretAccessKey).toBe('other-secret');
  expect(() => extraPortsFromEnv({ CLICKHOUSE_TCP_PORT: 'ninety' })).toThrow(/CLICKHOUSE_TCP_PORT/);
});

test('brokerAddresses reads every host:port of a list, IPv6 in brackets included', () => {
  expect(brokerAddresses('127.0.0.1:9092,127.0.0.1:9093')).toEqual([
    { host: '127.0.0.1', port: 9092 },
    { host: '127.0.0.1', port: 9093 },
  ]);
  expect(brokerAddresses('[::1]:9092')).toEqual([{ host: '::1', port: 9092 }]);
  expect(() => brokerAddresses('localhost')).toThrow(/KAFKA_BROKERS/);
  expect(() => brokerAddresses('127.0.0.1:9092,nope')).toThrow(/KAFKA_BROKERS/);
});

test('urlHostPort fills in the scheme default port', () => {
  expect(urlHostPort('http://127.0.0.1:8123', 'X')).toEqual({ host: '127.0.0.1', port: 8123 });
  expect(urlHostPort('https://s3.example.test', 'X')).toEqual({ host: 's3.example.test', port: 443 });
  expect(urlHostPort('http://[::1]:9000/', 'X')).toEqual({ host: '::1', port: 9000 });
  expect(urlHostPort('postgres://u:p@127.0.0.1/db', 'X')).toEqual({ host: '127.0.0.1', port: 5432 });
  expect(urlHostPort('postgresql://[::1]:15432/db', 'X')).toEqual({ host: '::1', port: 15432 });
  expect(() => urlHostPort('not a url', 'S3_ENDPOINT')).toThrow(/S3_ENDPOINT/);
});

test('only loopback hosts are started locally', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(isLoopback(host)).toBe(true);
  for (const host of ['0.0.0.0', '10.0.0.1', 'kafka', 's3.example.test']) expect(isLoopback(host)).toBe(false);
});

test('infraConfigProblems names every bad setting at once, by the rules the components apply', () => {
  expect(infraConfigProblems({})).toEqual([]);
  expect(
    infraConfigProblems({
      KAFKA_BROKERS: 'kafka',
      S3_ENDPOINT: 'not a url',
      CLICKHOUSE_TCP_PORT: 'ninety',
      MINIO_CONSOLE_PORT: '70000',
    }),
  ).toEqual([
    expect.stringContaining('KAFKA_BROKERS=kafka'),
    expect.stringContaining('S3_ENDPOINT=not a url is not a URL'),
    'CLICKHOUSE_TCP_PORT=ninety is not a TCP port',
    'MINIO_CONSOLE_PORT=70000 is not a TCP port',
  ]);
  // The local MinIO's root user and password have minimum lengths; a remote S3 is not ours to judge.
  expect(infraConfigProblems({ S3_ACCESS_KEY_ID: 'ab', S3_SECRET_ACCESS_KEY: 'short' })).toEqual([
    expect.stringMatching(/^S3_ACCESS_KEY_ID: at least 3 characters/),
    expect.stringMatching(/^S3_SECRET_ACCESS_KEY: at least 8 characters/),
  ]);
  expect(
    infraConfigProblems({
      S3_ENDPOINT: 'https://s3.example.test',
      S3_ACCESS_KEY_ID: 'ab',
      S3_SECRET_ACCESS_KEY: 'short',
    }),
  ).toEqual([]);
});

test('.local is named by its real path (a worktree whose .local links to another checkout names its servers as that checkout does)', () => {
  expect(localDir).toBe(realpathSync(join(repoRoot, '.local')));
});

test('several local brokers are a cluster the stack starts: distinct, all local or all remote, at most 9', () => {
  expect(brokerAddresses('127.0.0.1:9092, 127.0.0.1:9094,[::1]:9096')).toEqual([
    { host: '127.0.0.1', port: 9092 },
    { host: '127.0.0.1', port: 9094 },
    { host: '::1', port: 9096 },
  ]);
  expect(infraConfigProblems({ KAFKA_BROKERS: '127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096' })).toEqual([]);
  expect(infraConfigProblems({ KAFKA_BROKERS: 'k1.example.test:9092,k2.example.test:9092' })).toEqual([]);
  expect(infraConfigProblems({ KAFKA_BROKERS: '127.0.0.1:9092,kafka.example.test:9092' })).toEqual([
    expect.stringMatching(/all local .* or all remote/),
  ]);
  expect(infraConfigProblems({ KAFKA_BROKERS: '127.0.0.1:9092,127.0.0.1:9092' })).toEqual([
    expect.stringMatching(/listed twice/),
  ]);
  expect(
    infraConfigProblems({ KAFKA_BROKERS: Array.from({ length: 10 }, (_, i) => `127.0.0.1:${9100 + i}`).join(',') }),
  ).toEqual([expect.stringMatching(/at most 9/)]);
});

test('the local cluster: node i at the i-th broker, its controller at KAFKA_CONTROLLER_PORT + i - 1; one node keeps the single-node layout', () => {
  const single = localKafkaCluster(endpointsFromEnv({}), extraPortsFromEnv({}));
  expect(single.nodes).toEqual([
    { host: '127.0.0.1', port: 9092, name: 'kafka', nodeId: 1, controllerPort: 9093, dir: join(localDir, 'kafka') },
  ]);
  const three = localKafkaCluster(
    endpointsFromEnv({ KAFKA_BROKERS: '127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096' }),
    extraPortsFromEnv({ KAFKA_CONTROLLER_PORT: '9193' }),
  );
  expect(three.nodes.map((n) => [n.name, n.nodeId, n.port, n.controllerPort, n.dir])).toEqual([
    ['kafka-1', 1, 9092, 9193, join(localDir, 'kafka', 'cluster', 'node-1')],
    ['kafka-2', 2, 9094, 9194, join(localDir, 'kafka', 'cluster', 'node-2')],
    ['kafka-3', 3, 9096, 9195, join(localDir, 'kafka', 'cluster', 'node-3')],
  ]);
  expect([1, 2, 3, 5].map(replicationOf)).toEqual([
    { factor: 1, minInSync: 1 },
    { factor: 2, minInSync: 2 },
    { factor: 3, minInSync: 2 },
    { factor: 3, minInSync: 2 },
  ]);
});
