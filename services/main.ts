// `npm start`: brings up the local infrastructure when it is not reachable, makes sure there
// is an API key for the default workspace, then runs every service as a child process in the
// foreground (restarting one that dies) until Ctrl-C.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../platform/config.ts';
import { generateApiKey } from './tenancy/index.ts';
import { EXPORT_WORKER_PROCESS_ENV } from './bulk-export/index.ts';
import { ensureStackUp, stackStatus } from '../infra/stack.ts';
import { endpointsFromEnv } from '../infra/config.ts';

const root = join(import.meta.dirname, '..');

interface ServiceSpec {
  name: string;
  entry: string;
  url?: string;
  /** Environment of this service's process only. */
  env?: Readonly<Record<string, string>>;
}

const services: ServiceSpec[] = [
  { name: 'tracing-api', entry: 'services/tracing/apiMain.ts', url: `http://127.0.0.1:${process.env.TRACING_PORT ?? 1984}` },
  { name: 'projectors', entry: 'projections/projectorMain.ts' },
  { name: 'export-worker', entry: 'services/bulk-export/exportWorkerMain.ts', env: EXPORT_WORKER_PROCESS_ENV },
  { name: 'agent-server', entry: 'services/agent-server/agentServerMain.ts', url: `http://127.0.0.1:${process.env.AGENT_SERVER_PORT ?? 2024}` },
  // An example agent that is not LangGraph: A2A on @a2a-js/sdk, traced over OpenTelemetry.
  { name: 'example-a2a-agent', entry: 'examples/otel-a2a-agent/main.ts', url: `http://127.0.0.1:${process.env.A2A_EXAMPLE_AGENT_PORT ?? 2025}` },
];

/**
 * The agents trace into our own tracing API (the agent server through LangChain's langsmith
 * tracer, the example agent over OTLP) unless the environment already points LANGSMITH_* somewhere.
 */
function agentServerTracingEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    LANGSMITH_TRACING: env.LANGSMITH_TRACING ?? 'true',
    LANGSMITH_ENDPOINT: env.LANGSMITH_ENDPOINT ?? `http://127.0.0.1:${env.TRACING_PORT ?? 1984}`,
    LANGSMITH_API_KEY: env.LANGSMITH_API_KEY ?? env.BOOTSTRAP_API_KEY ?? '',
    LANGSMITH_PROJECT: env.LANGSMITH_PROJECT ?? 'agent-server',
  };
}

/** The value of `name` from the environment, else from .local/<file>, else made by `generate` and kept there. */
function devSecret(name: string, file: string, generate: () => string): string {
  const fromEnv = process.env[name];
  if (fromEnv) return fromEnv;
  const path = join(root, '.local', file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = generate();
  mkdirSync(join(root, '.local'), { recursive: true });
  writeFileSync(path, value + '\n', { mode: 0o600 });
  return value;
}

async function main(): Promise<void> {
  // Infrastructure that already answers (a container's, a cluster's) is used as it is; the
  // local stack is installed and started only when something is not reachable.
  const reachable = (await stackStatus()).every((component) => component.running);
  const endpoints = reachable ? endpointsFromEnv() : await ensureStackUp();
  const env = {
    ...process.env,
    KAFKA_BROKERS: endpoints.kafkaBrokers,
    CLICKHOUSE_URL: endpoints.clickhouseUrl,
    S3_ENDPOINT: endpoints.s3Endpoint,
    S3_ACCESS_KEY_ID: endpoints.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: endpoints.s3SecretAccessKey,
    POSTGRES_URL: endpoints.postgresUrl,
    BOOTSTRAP_API_KEY: devSecret('BOOTSTRAP_API_KEY', 'dev-api-key', generateApiKey),
    SECRETS_ENCRYPTION_KEY: devSecret('SECRETS_ENCRYPTION_KEY', 'dev-secrets-key', () => randomBytes(32).toString('hex')),
  };
  loadConfig(env); // fail fast on a bad configuration, before starting anything
  for (const agent of services.filter((s) => s.name === 'agent-server' || s.name === 'example-a2a-agent')) agent.env = agentServerTracingEnv(env);

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const start = (spec: ServiceSpec, restarts = 0) => {
    const child = spawn(process.execPath, [join(root, spec.entry)], { env: { ...env, ...spec.env }, stdio: 'inherit' });
    children.set(spec.name, child);
    child.on('exit', (code, signal) => {
      if (stopping) return;
      const delay = Math.min(10_000, 500 * 2 ** restarts);
      console.error(`[main] ${spec.name} exited (${signal ?? code}); restarting in ${delay} ms`);
      setTimeout(() => start(spec, restarts + 1), delay);
    });
  };
  for (const spec of services) start(spec);

  console.log('\nServices:');
  for (const s of services) console.log(`  ${s.name.padEnd(16)} ${s.url ?? '(worker)'}`);
  console.log(`  API docs         http://127.0.0.1:${process.env.TRACING_PORT ?? 1984}/docs`);
  console.log(`\nAPI key for the default workspace: ${env.BOOTSTRAP_API_KEY}`);
  console.log(`  export LANGSMITH_ENDPOINT=http://127.0.0.1:${process.env.TRACING_PORT ?? 1984} LANGSMITH_API_KEY=${env.BOOTSTRAP_API_KEY} LANGSMITH_TRACING=true\n`);

  const stop = () => {
    stopping = true;
    for (const child of children.values()) child.kill('SIGTERM');
    setTimeout(() => process.exit(0), 5000).unref();
    Promise.all([...children.values()].map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))))).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
