// A tracing stack of our own (API + runs projector as child processes) on the shared
// infrastructure, isolated by a topic prefix and a ClickHouse database of its own.
import { randomBytes } from 'node:crypto';
import { Consumer } from '@platformatic/kafka';
import { deleteTopicsAfterSweep } from './secretSweep.ts';
import { provideInfra } from './infra.ts';
import { startService, waitFor, freePort, type ServiceProcess } from './serviceProcess.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { loadConfig, type Config } from '../../platform/config.ts';
import { multipartBody, type Part } from './runFactory.ts';
import { topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { exportWorkerProcessEnv } from '../../services/processes/exportWorkerProcess.ts';

export interface TracingStack {
  url: string;
  apiKey: string;
  env: Record<string, string>;
  config: Config;
  api: ServiceProcess;
  projector: ServiceProcess;
  /** The export worker, once startExportWorker() was called. */
  exportWorker: ServiceProcess | null;
  startProjector(): ServiceProcess;
  startExportWorker(): ServiceProcess;
  stop(options?: { dropData?: boolean }): Promise<void>;
}

export async function startTracingStack(name: string, extraEnv: Record<string, string> = {}): Promise<TracingStack> {
  const infra = await provideInfra();
  const id = `${name}_${randomBytes(3).toString('hex')}`;
  const port = await freePort();
  const env: Record<string, string> = {
    KAFKA_BROKERS: infra.kafkaBrokers,
    CLICKHOUSE_URL: infra.clickhouseUrl,
    S3_ENDPOINT: infra.s3Endpoint,
    S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
    KAFKA_TOPIC_PREFIX: `${id}.`,
    CLICKHOUSE_DATABASE: id,
    TRACING_PORT: String(port),
    BOOTSTRAP_API_KEY: `lsk_test_${randomBytes(16).toString('hex')}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    ...extraEnv,
  };
  const config = loadConfig(env);
  const api = startService('services/processes/tracingApiMain.ts', env, `${id}-api`);
  const startProjector = () => startService('projections/projectorMain.ts', env, `${id}-projector`);
  const stack: TracingStack = {
    url: `http://127.0.0.1:${port}`,
    apiKey: env.BOOTSTRAP_API_KEY!,
    env,
    config,
    api,
    projector: startProjector(),
    exportWorker: null,
    startProjector() {
      stack.projector = startProjector();
      return stack.projector;
    },
    startExportWorker() {
      stack.exportWorker = startService(
        'services/processes/exportWorkerMain.ts',
        { ...env, ...exportWorkerProcessEnv(process.env) },
        `${id}-export-worker`,
      );
      return stack.exportWorker;
    },
    async stop({ dropData = true } = {}) {
      await Promise.all([stack.api.stop(), stack.projector.stop(), stack.exportWorker?.stop()]);
      if (dropData) await dropStackData(id, config);
    },
  };
  await waitFor(
    'the tracing API to be ready',
    async () => {
      if (api.child.exitCode !== null)
        throw new Error(`tracing API exited with ${api.child.exitCode}; see .local/logs/test/${id}-api.log`);
      const res = await fetch(`${stack.url}/ready`);
      return res.ok;
    },
    90_000,
    200,
  );
  return stack;
}

/** Drops the ClickHouse database and the topics of a stack named `id` (its topic prefix is `${id}.`), after sweeping them for secrets. */
export async function dropStackData(
  id: string,
  config: Pick<Config, 'CLICKHOUSE_URL' | 'KAFKA_BROKERS'>,
): Promise<void> {
  const ch = new ClickHouseClient({ url: config.CLICKHOUSE_URL, database: id });
  await ch.exec(sql`DROP DATABASE IF EXISTS ${ident(id)}`, { database: null }).catch(() => {});
  await ch.close();
  // Swept for the suite's secrets first (test/support/secretSweep.ts): a secret in a message fails the stack's teardown.
  await deleteTopicsAfterSweep(config.KAFKA_BROKERS.split(','), `${id}.`);
}

/** A client for the stack's own ClickHouse database (close it after use). */
export const stackClickHouse = (stack: TracingStack): ClickHouseClient => ClickHouseClient.fromConfig(stack.config);

/**
 * The rows a workspace has in `runs` once merged on disk, not only under FINAL: for a test that
 * expects each run once. OPTIMIZE ... FINAL does nothing, silently, while a background merge holds
 * some of the parts, so it is asked again (for up to a minute) until the count is `expected`; a
 * duplicate that merging cannot remove (a different sorting key) never converges, and the last
 * count is returned.
 */
export async function runsOnceMerged(ch: ClickHouseClient, tenantId: string, expected: number): Promise<number> {
  let onDisk = -1;
  await waitFor(
    'the merged table to hold each run once',
    async () => {
      await ch.exec(sql`OPTIMIZE TABLE runs FINAL`);
      const [merged] = await ch.query<{ rows: string }>(
        sql`SELECT count() AS rows FROM runs WHERE tenant_id = toUUID(${tenantId})`,
      );
      onDisk = Number(merged!.rows);
      return onDisk === expected;
    },
    60_000,
    1_000,
  ).catch(() => undefined);
  return onDisk;
}

/** POSTs a multipart body made of `parts` to the stack's /runs/multipart with its API key. */
export async function postMultipart(stack: TracingStack, parts: Part[]): Promise<Response> {
  const { body, contentType } = multipartBody(parts);
  return fetch(`${stack.url}/runs/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
    body,
  });
}

/** A JSON call to the stack's API with its key: the status and the parsed body (null when not JSON). */
export async function stackCall(
  stack: Pick<TracingStack, 'url' | 'apiKey'>,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers: { 'x-api-key': stack.apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/**
 * The end offsets of a stack's write topics (runs, feedback, projects, lineage), as one
 * comparable string: equal before and after a request means the request appended nothing.
 */
export function topicEndOffsets(stack: TracingStack): { snapshot(): Promise<string>; close(): Promise<void> } {
  const consumer = new Consumer({
    clientId: 'offsets',
    groupId: `offsets-${randomBytes(6).toString('hex')}`,
    bootstrapBrokers: [stack.env.KAFKA_BROKERS!],
  });
  const topics = [TOPICS.runs, TOPICS.feedback, TOPICS.projects, TOPICS.runLineage].map((t) =>
    topicName(stack.config, t),
  );
  return {
    async snapshot() {
      const result = await consumer.listOffsets({ topics });
      return JSON.stringify(
        [...result.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([t, o]) => [t, o.map(String)]),
      );
    },
    close: () => consumer.close(),
  };
}
