// docker-compose.yml runs for real in npm run test:compose (test/compose, on demand: minutes of
// image builds); in npm test, this keeps it honest statically: it
// parses, it is the production topology the fault tests exercise (three Kafka nodes with the
// local cluster's durability settings, several replicas of the services that share work, one
// gateway), the infrastructure images are the versions DESIGN.md names, the host ports are the
// local stack's, the services get every variable of the operating contract and no variable the
// platform does not read, and the gateway's nginx configuration passes `nginx -t`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, expect } from 'vitest';
import { parse } from 'yaml';
import { endpointsFromEnv, repoRoot, urlHostPort, brokerAddresses } from '../../infra/config.ts';
import { durabilitySettings } from '../../infra/kafka.ts';
import { ensureCommands } from '../../infra/toolchain.ts';
import { configVariables, loadConfig } from '../../platform/config.ts';
import { exportWorkerProcessEnv } from '../../services/processes/exportWorkerProcess.ts';

type ComposeService = {
  image?: string;
  command?: string[];
  deploy?: { replicas?: number };
  volumes?: string[];
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
  // MinIO as clients reach it, for presigned URLs: the services reach it by its compose name.
  'S3_PUBLIC_ENDPOINT',
  'POSTGRES_URL',
  'BOOTSTRAP_API_KEY',
  'SECRETS_ENCRYPTION_KEY',
  'FF_BULK_EXPORT_DEFAULT_COMPRESSION',
];

function loadCompose(): ComposeFile {
  // merge: resolves the `<<: *anchor` keys the file uses to share the S3 credentials.
  return parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

function environmentOf(service: ComposeService): Record<string, string | null> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => [
        entry.split('=')[0] ?? entry,
        entry.includes('=') ? entry.slice(entry.indexOf('=') + 1) : null,
      ]),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null ? null : String(value)]));
}

const compose = loadCompose();
const appServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

const kafkaNodes = ['kafka-1', 'kafka-2', 'kafka-3'];
const infrastructure = [...kafkaNodes, 'clickhouse', 'minio', 'postgres'];

test('declares the infrastructure (three Kafka nodes), every service of the platform as a process of its own, and the gateway', () => {
  expect(Object.keys(compose.services)).toEqual(expect.arrayContaining([...infrastructure, 'gateway']));
  const entries = Object.fromEntries(appServices.map(([name, service]) => [name, service.command?.at(-1)]));
  expect(entries).toEqual({
    'tracing-api': 'services/processes/tracingApiMain.ts',
    projectors: 'projections/projectorMain.ts',
    'export-worker': 'services/processes/exportWorkerMain.ts',
    'control-plane': 'services/processes/controlPlaneMain.ts',
    'agent-server': 'services/processes/agentServerMain.ts',
    'chat-app': 'examples/chat-app/main.ts',
  });
  // The services that share their work (through Kafka, or the agent server's run queue in PostgreSQL) run as several replicas.
  for (const name of ['tracing-api', 'projectors', 'export-worker', 'agent-server'])
    expect(compose.services[name]?.deploy?.replicas, name).toBeGreaterThanOrEqual(2);
});

test("the Kafka nodes are one KRaft quorum with the local cluster's durability settings (infra/kafka.ts)", () => {
  const expected = Object.fromEntries(
    Object.entries(durabilitySettings(3)).map(([key, value]) => [
      `KAFKA_${key.toUpperCase().replaceAll('.', '_')}`,
      String(value),
    ]),
  );
  const voters = kafkaNodes.map((name, i) => `${i + 1}@${name}:9093`).join(',');
  kafkaNodes.forEach((name, i) => {
    const env = environmentOf(compose.services[name] ?? {});
    expect(env, name).toMatchObject({
      ...expected,
      KAFKA_NODE_ID: String(i + 1),
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: voters,
    });
    expect(env.CLUSTER_ID, name).toBe(environmentOf(compose.services['kafka-1'] ?? {}).CLUSTER_ID);
  });
  // The services bootstrap from every node.
  for (const [name, service] of appServices)
    expect(environmentOf(service).KAFKA_BROKERS, name).toBe(kafkaNodes.map((n) => `${n}:29092`).join(','));
});

test('uses Kafka 3.9, ClickHouse 24.8 or newer, a pinned MinIO release and PostgreSQL 18 or newer', () => {
  for (const name of kafkaNodes) expect(compose.services[name]?.image, name).toMatch(/^apache\/kafka:3\.9\.\d+$/);
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

test('the services are given only variables the platform reads (docs/configuration.md), and the export worker its process settings', () => {
  const page = readFileSync(join(repoRoot, 'docs/configuration.md'), 'utf8');
  const documented = new Set([...page.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  expect(documented.size).toBeGreaterThan(50);
  for (const key of configVariables) expect(documented, key).toContain(key);
  const processSettings = exportWorkerProcessEnv({});
  for (const [name, service] of appServices) {
    for (const variable of Object.keys(environmentOf(service))) {
      if (name === 'export-worker' && variable in processSettings) continue;
      expect(documented, `${name}: ${variable}`).toContain(variable);
    }
  }
  expect(environmentOf(compose.services['export-worker'] ?? {})).toMatchObject(processSettings);
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

test("PostgreSQL is made with the default POSTGRES_URL's credentials, and the services reach it by service name", () => {
  const defaults = new URL(endpointsFromEnv({}).postgresUrl);
  const postgresEnv = environmentOf(compose.services.postgres ?? {});
  expect(postgresEnv.POSTGRES_USER).toBe(defaults.username);
  expect(postgresEnv.POSTGRES_PASSWORD).toBe(defaults.password);
  expect(postgresEnv.POSTGRES_DB).toBe(defaults.pathname.slice(1));
  for (const [name, service] of appServices) {
    const url = new URL(environmentOf(service).POSTGRES_URL ?? '');
    expect(url.host, name).toBe('postgres:5432');
    expect([url.username, url.password, url.pathname], name).toEqual([
      defaults.username,
      defaults.password,
      defaults.pathname,
    ]);
  }
});

test('infrastructure is published on the default endpoints, loopback only', () => {
  const defaults = endpointsFromEnv({});
  // Host port (the local stack's) and the port inside the container.
  const expected: Record<string, [number, number]> = {
    'kafka-1': [brokerAddresses(defaults.kafkaBrokers)[0]!.port, 9092],
    'kafka-2': [9094, 9094],
    'kafka-3': [9096, 9096],
    clickhouse: [urlHostPort(defaults.clickhouseUrl, 'CLICKHOUSE_URL').port, 8123],
    minio: [urlHostPort(defaults.s3Endpoint, 'S3_ENDPOINT').port, 9000],
    postgres: [urlHostPort(defaults.postgresUrl, 'POSTGRES_URL').port, 5432],
  };
  for (const [name, [hostPort, containerPort]] of Object.entries(expected)) {
    const ports = compose.services[name]?.ports ?? [];
    expect(ports, name).toContain(`127.0.0.1:${hostPort}:${containerPort}`);
  }
  for (const [name, service] of Object.entries(compose.services)) {
    for (const mapping of service.ports ?? [])
      expect(mapping, `${name} publishes beyond loopback`).toMatch(/^127\.0\.0\.1:/);
  }
});

test('the gateway publishes each service on its usual port, and its nginx configuration is valid', async () => {
  const defaults = loadConfig({});
  const ports = compose.services.gateway?.ports ?? [];
  for (const port of [defaults.TRACING_PORT, defaults.CONTROL_PLANE_PORT, defaults.AGENT_SERVER_PORT, 3000])
    expect(ports).toContain(`127.0.0.1:${port}:${port}`);
  const conf = readFileSync(join(repoRoot, 'infra', 'compose', 'gateway.conf'), 'utf8');
  for (const [service, port] of [
    ['tracing-api', defaults.TRACING_PORT],
    ['control-plane', defaults.CONTROL_PLANE_PORT],
    ['agent-server', defaults.AGENT_SERVER_PORT],
    ['chat-app', 3000],
  ] as const) {
    expect(conf).toContain(`listen ${port};`);
    expect(conf).toContain(` ${service}:${port};`);
    expect(Object.keys(compose.services.gateway?.depends_on ?? {})).toContain(service);
  }
  expect(compose.services.gateway?.volumes).toContain('./infra/compose/gateway.conf:/etc/nginx/conf.d/default.conf:ro');
  // The file as nginx's image includes it (inside http {}), checked by Debian's nginx.
  await ensureCommands([{ command: 'nginx', aptPackage: 'nginx-light' }]);
  const dir = mkdtempSync(join(tmpdir(), 'gateway-conf-'));
  try {
    writeFileSync(
      join(dir, 'nginx.conf'),
      `error_log stderr;\npid ${dir}/nginx.pid;\nevents {}\nhttp {\n  access_log off;\n  include ${join(repoRoot, 'infra', 'compose', 'gateway.conf')};\n}\n`,
    );
    execFileSync('nginx', ['-t', '-q', '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'pipe' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
