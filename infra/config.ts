// Where the local stack lives and which endpoints it serves. Endpoint names and defaults are
// the operating contract in DESIGN.md; everything on disk is under the git-ignored .local/.
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type StackEndpoints = {
  kafkaBrokers: string;
  clickhouseUrl: string;
  s3Endpoint: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  postgresUrl: string;
};

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // not made yet
  }
}

export const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)));
/**
 * .local by its real path: a git worktree whose .local links to another checkout's then names the
 * servers' files (in their command lines, by which a server is known as ours) as that checkout
 * does, so that it can stop and restart them as that checkout would (the fault tests).
 */
export const localDir = realPathOr(join(repoRoot, '.local'));
export const runDir = join(localDir, 'run');
export const logsDir = join(localDir, 'logs');
export const binDir = join(localDir, 'bin');

// Dev credentials; MinIO uses them as its root user, so the secret must be >= 8 characters.
export const defaultS3AccessKeyId = 'minioadmin';
export const defaultS3SecretAccessKey = 'minioadmin-dev-secret';
// The superuser and password of the local PostgreSQL (fixed when its data directory is made).
export const defaultPostgresUrl = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

type Env = Record<string, string | undefined>;

export function endpointsFromEnv(env: Env = process.env): StackEndpoints {
  return {
    kafkaBrokers: env.KAFKA_BROKERS || '127.0.0.1:9092',
    clickhouseUrl: env.CLICKHOUSE_URL || 'http://127.0.0.1:8123',
    s3Endpoint: env.S3_ENDPOINT || 'http://127.0.0.1:9000',
    s3AccessKeyId: env.S3_ACCESS_KEY_ID || defaultS3AccessKeyId,
    s3SecretAccessKey: env.S3_SECRET_ACCESS_KEY || defaultS3SecretAccessKey,
    postgresUrl: env.POSTGRES_URL || defaultPostgresUrl,
  };
}

/** Ports the stack uses besides the endpoints; overridable for machines where they clash. */
export type ExtraPorts = { kafkaControllerPort: number; clickhouseTcpPort: number; minioConsolePort: number };

/** The variables that move them, and their defaults (docs/configuration.md lists them too). */
export const extraPortDefaults = {
  KAFKA_CONTROLLER_PORT: 9093,
  // 9000, ClickHouse's usual native port, is MinIO's here.
  CLICKHOUSE_TCP_PORT: 9002,
  MINIO_CONSOLE_PORT: 9091,
} as const;

export function extraPortsFromEnv(env: Env = process.env): ExtraPorts {
  return {
    kafkaControllerPort: portFromEnv(env, 'KAFKA_CONTROLLER_PORT', extraPortDefaults.KAFKA_CONTROLLER_PORT),
    clickhouseTcpPort: portFromEnv(env, 'CLICKHOUSE_TCP_PORT', extraPortDefaults.CLICKHOUSE_TCP_PORT),
    minioConsolePort: portFromEnv(env, 'MINIO_CONSOLE_PORT', extraPortDefaults.MINIO_CONSOLE_PORT),
  };
}

/**
 * Every problem with the stack's settings at once (the endpoints' forms, the extra ports), by the
 * same rules the components apply when they read them; for a check before anything starts.
 */
export function infraConfigProblems(env: Env = process.env): string[] {
  const endpoints = endpointsFromEnv(env);
  const problems: string[] = [];
  const check = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (err) {
      problems.push((err as Error).message);
      return undefined;
    }
  };
  check(() => kafkaNodeProblems(endpoints.kafkaBrokers));
  check(() => urlHostPort(endpoints.clickhouseUrl, 'CLICKHOUSE_URL'));
  const s3 = check(() => urlHostPort(endpoints.s3Endpoint, 'S3_ENDPOINT'));
  check(() => urlHostPort(endpoints.postgresUrl, 'POSTGRES_URL'));
  for (const [name, fallback] of Object.entries(extraPortDefaults)) check(() => portFromEnv(env, name, fallback));
  // The local MinIO takes the S3 credentials as its root user, and refuses a short one only once started.
  if (s3 !== undefined && isLoopback(s3.host)) {
    const minio = "the local MinIO's root";
    if (endpoints.s3AccessKeyId.length < 3) problems.push(`S3_ACCESS_KEY_ID: at least 3 characters (${minio} user)`);
    if (endpoints.s3SecretAccessKey.length < 8)
      problems.push(`S3_SECRET_ACCESS_KEY: at least 8 characters (${minio} password)`);
  }
  return problems;
}

/**
 * Several brokers on loopback addresses are a local cluster to start (one KRaft node each): they
 * must be distinct, at most 9 (controller ports follow KAFKA_CONTROLLER_PORT), and all local or all remote.
 */
function kafkaNodeProblems(kafkaBrokers: string): void {
  const brokers = brokerAddresses(kafkaBrokers);
  if (brokers.length === 1) return;
  const local = brokers.filter((b) => isLoopback(b.host)).length;
  if (local !== 0 && local !== brokers.length)
    throw new Error(
      `KAFKA_BROKERS=${kafkaBrokers}: the brokers are either all local (a cluster the local stack starts) or all remote`,
    );
  if (new Set(brokers.map((b) => `${b.host}:${b.port}`)).size !== brokers.length)
    throw new Error(`KAFKA_BROKERS=${kafkaBrokers}: a broker is listed twice`);
  if (local > 9) throw new Error(`KAFKA_BROKERS=${kafkaBrokers}: the local stack starts at most 9 brokers`);
}

function portFromEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}=${raw} is not a TCP port`);
  return port;
}

export type HostPort = { host: string; port: number };

/** Every host:port of a comma-separated KAFKA_BROKERS list, in order (IPv6 in brackets). */
export function brokerAddresses(kafkaBrokers: string): HostPort[] {
  const items = kafkaBrokers.split(',').map((b) => b.trim());
  return items.map((item) => {
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(item);
    if (!match) throw new Error(`KAFKA_BROKERS=${kafkaBrokers}: expected host:port[,host:port…]`);
    return { host: match[1] as string, port: Number(match[2]) };
  });
}

const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443, 'postgres:': 5432, 'postgresql:': 5432 };

/** Host and port of an http(s) or postgres URL, with the scheme's default port filled in. */
export function urlHostPort(url: string, name: string): HostPort {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${name}=${url} is not a URL`);
  }
  const port = parsed.port ? Number(parsed.port) : (defaultPorts[parsed.protocol] ?? 80);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
}

/** The local stack can only start servers on this machine's loopback addresses. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
