// Control-plane replicas of our own (child processes, the way `npm start` runs one) on the shared
// Kafka, isolated by a topic prefix; and a JSON client for them.
import { randomBytes } from 'node:crypto';
import { deleteTopicsAfterSweep } from './secretSweep.ts';
import { provideInfra } from './infra.ts';
import { freePort, startService, waitFor, type ServiceProcess } from './serviceProcess.ts';
import { loadConfig, type Config } from '../../platform/config.ts';

export interface ControlPlaneStack {
  /** One URL per replica. */
  urls: string[];
  apiKey: string;
  env: Record<string, string>;
  config: Config;
  /** The prefix of its log files under .local/logs/test/ (`<id>-control-plane-<n>.log`). */
  id: string;
  replicas: ServiceProcess[];
  stop(): Promise<void>;
}

export async function startControlPlane(
  name: string,
  replicas = 1,
  extraEnv: Record<string, string> = {},
): Promise<ControlPlaneStack> {
  const infra = await provideInfra();
  const id = `${name}_${randomBytes(3).toString('hex')}`;
  const base: Record<string, string> = {
    KAFKA_BROKERS: infra.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: `${id}.`,
    // The object store of internal_source uploads (upload-url, and the worker's builds).
    S3_ENDPOINT: infra.s3Endpoint,
    S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
    BOOTSTRAP_API_KEY: `lsk_test_${randomBytes(16).toString('hex')}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    ...extraEnv,
  };
  const ports = await Promise.all(Array.from({ length: replicas }, () => freePort()));
  // Replicas behind one address, as behind a load balancer: deployments' URLs name the first.
  base.CONTROL_PLANE_PUBLIC_URL ??= `http://127.0.0.1:${ports[0]}`;
  // Only the first replica may deploy (CONTROL_PLANE_DEPLOYER): two would both build every revision.
  const processes = ports.map((port, n) =>
    startService(
      'services/processes/controlPlaneMain.ts',
      { ...base, CONTROL_PLANE_PORT: String(port), ...(n > 0 ? { CONTROL_PLANE_DEPLOYER: 'none' } : {}) },
      `${id}-control-plane-${n}`,
    ),
  );
  const stack: ControlPlaneStack = {
    urls: ports.map((port) => `http://127.0.0.1:${port}`),
    apiKey: base.BOOTSTRAP_API_KEY!,
    env: base,
    config: loadConfig(base),
    id,
    replicas: processes,
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
      // Swept for the suite's secrets (deployment secrets among them) before they are deleted.
      await deleteTopicsAfterSweep(infra.kafkaBrokers.split(','), `${id}.`);
    },
  };
  for (const [n, url] of stack.urls.entries())
    await waitFor(
      'the control plane to be ready',
      async () => {
        const exit = processes[n]!.child.exitCode;
        if (exit !== null)
          throw new Error(`control plane exited with ${exit}; see .local/logs/test/${id}-control-plane-${n}.log`);
        return (await fetch(`${url}/ready`)).ok;
      },
      90_000,
      200,
    );
  return stack;
}

/** A JSON call with an API key: the status and the parsed body (null when there is none). */
export async function controlPlaneCall(
  url: string,
  apiKey: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}
