// docker-compose.yml cannot be run here (no Docker), so this keeps it honest statically: it
// parses, the infrastructure images are the versions DESIGN.md names, the host ports are the
// local stack's, and the services get every variable of the operating contract.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from 'vitest';
import { parse } from 'yaml';
import { endpointsFromEnv, repoRoot, urlHostPort, firstBroker } from '../../infra/config.ts';

type ComposeService = {
  image?: string;
  build?: unknown;
  environment?: Record<string, string | number | null> | string[];
  ports?: string[];
  healthcheck?: { test?: unknown };
  depends_on?: Record<string, { condition?: string }>;
};
type ComposeFile = { services: Record<string, ComposeService> };

const contractEnv = [
  'KAFKA_BROKERS',
  'CLICKHOUSE_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'POSTGRES_URL',
  'BOOTSTRAP_API_KEY',
  'FF_BULK_EXPORT_DEFAULT_COMPRESSION',
];

function loadCompose(): ComposeFile {
  // merge: resolves the `<<: *anchor` keys the file uses to share the S3 credentials.
  return parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

function environmentOf(service: ComposeService): Record<string, string | null> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => [entry.split('=')[0] ?? entry, entry.includes('=') ? entry.slice(entry.indexOf('=') + 1) : null]));
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null ? null : String(value)]));
}

const compose = loadCompose();
const appServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

const infrastructure = ['kafka', 'clickhouse', 'minio', 'postgres'];

test('declares the four infrastructure services and at least one app service', () => {
  expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(infrastructure));
  expect(appServices.length).toBeGreaterThan(0);
});

test('uses Kafka 3.9, ClickHouse 24.8 or newer, a pinned MinIO release and PostgreSQL 18 or newer', () => {
  expect(compose.services.kafka?.image).toMatch(/^apache\/kafka:3\.9\.\d+$/);
  const clickhouseTag = compose.services.clickhouse?.image?.split(':')[1] ?? '';
  const [major = 0, minor = 0] = clickhouseTag.split('.').map(Number);
  expect(major * 100 + minor).toBeGreaterThanOrEqual(24 * 100 + 8);
  expect(compose.services.minio?.image).toMatch(/^minio\/minio:RELEASE\./);
  expect(Number(/^postgres:(\d+)/.exec(compose.services.postgres?.image ?? '')?.[1])).toBeGreaterThanOrEqual(18);
});

test('every service has a healthcheck, and the app waits for healthy infrastructure', () => {
  for (const [name, service] of Object.entries(compose.services)) {
    expect(service.healthcheck?.test, `${name} healthcheck`).toBeDefined();
  }
  for (const [, service] of appServices) {
    for (const dependency of infrastructure) {
      expect(service.depends_on?.[dependency]?.condition).toBe('service_healthy');
    }
  }
});

test('every app service gets every variable of the operating contract', () => {
  for (const [name, service] of appServices) {
    const env = environmentOf(service);
    for (const variable of contractEnv) expect(Object.keys(env), `${name} lacks ${variable}`).toContain(variable);
  }
});

test('S3-, Kafka-, ClickHouse- and PostgreSQL-looking variables are contract names, not near misses', () => {
  const looksLikeEndpoint = /^(S3|KAFKA|CLICKHOUSE|POSTGRES)_/;
  for (const [name, service] of appServices) {
    for (const variable of Object.keys(environmentOf(service)).filter((key) => looksLikeEndpoint.test(key))) {
      expect(contractEnv, `${name}: ${variable}`).toContain(variable);
    }
  }
});

test('MinIO root credentials are the S3 credentials the services use', () => {
  const minioEnv = environmentOf(compose.services.minio ?? {});
  expect(minioEnv.MINIO_ROOT_USER).toMatch(/^\$\{S3_ACCESS_KEY_ID:-[^}]+\}$/);
  expect(minioEnv.MINIO_ROOT_PASSWORD).toMatch(/^\$\{S3_SECRET_ACCESS_KEY:-[^}]+\}$/);
  const defaults = endpointsFromEnv({});
  expect(minioEnv.MINIO_ROOT_USER).toBe(`\${S3_ACCESS_KEY_ID:-${defaults.s3AccessKeyId}}`);
  expect(minioEnv.MINIO_ROOT_PASSWORD).toBe(`\${S3_SECRET_ACCESS_KEY:-${defaults.s3SecretAccessKey}}`);
});

test('PostgreSQL is made with the default POSTGRES_URL\'s credentials, and the services reach it by service name', () => {
  const defaults = new URL(endpointsFromEnv({}).postgresUrl);
  const postgresEnv = environmentOf(compose.services.postgres ?? {});
  expect(postgresEnv.POSTGRES_USER).toBe(defaults.username);
  expect(postgresEnv.POSTGRES_PASSWORD).toBe(defaults.password);
  expect(postgresEnv.POSTGRES_DB).toBe(defaults.pathname.slice(1));
  for (const [name, service] of appServices) {
    const url = new URL(environmentOf(service).POSTGRES_URL ?? '');
    expect(url.host, name).toBe('postgres:5432');
    expect([url.username, url.password, url.pathname], name).toEqual([defaults.username, defaults.password, defaults.pathname]);
  }
});

test('infrastructure is published on the default endpoints, loopback only', () => {
  const defaults = endpointsFromEnv({});
  // Host port (the local stack's) and the port inside the container.
  const expected: Record<string, [number, number]> = {
    kafka: [firstBroker(defaults.kafkaBrokers).port, 9092],
    clickhouse: [urlHostPort(defaults.clickhouseUrl, 'CLICKHOUSE_URL').port, 8123],
    minio: [urlHostPort(defaults.s3Endpoint, 'S3_ENDPOINT').port, 9000],
    postgres: [urlHostPort(defaults.postgresUrl, 'POSTGRES_URL').port, 5432],
  };
  for (const [name, [hostPort, containerPort]] of Object.entries(expected)) {
    const ports = compose.services[name]?.ports ?? [];
    expect(ports, name).toContain(`127.0.0.1:${hostPort}:${containerPort}`);
  }
  for (const [name, service] of Object.entries(compose.services)) {
    for (const mapping of service.ports ?? []) expect(mapping, `${name} publishes beyond loopback`).toMatch(/^127\.0\.0\.1:/);
  }
});
