// `npm start`: checks the configuration and every port it needs before anything else, brings up
// the local infrastructure when it is not reachable, makes sure there is an API key for the
// default workspace, then runs every service as a child process in the foreground until Ctrl-C:
// one that crashes is restarted, one that cannot start stops them all (platform/restartPolicy.ts).
// It composes no context itself: each service is a process whose root is in services/processes/
// (it composes the contexts' plugins; projections/projectorMain.ts runs the projectors).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CANNOT_START_EXIT_CODE } from '../platform/cannotStart.ts';
import { devSecret } from '../platform/devSecrets.ts';
import type { Config } from '../platform/config.ts';
import type { PortNeed } from '../platform/ports.ts';
import { generateApiKey } from './tenancy/index.ts';
import { exportWorkerProcessEnv } from './processes/exportWorkerProcess.ts';
import { exampleAgentPort } from '../examples/otel-a2a-agent/exampleAgentConfig.ts';
import { chatAppPort } from '../examples/chat-app/chatAppConfig.ts';
import { RestartPolicy } from '../platform/restartPolicy.ts';
import { checkConfiguration, checkPorts, type StartConfig } from './startupChecks.ts';
import { endpointsFromEnv } from '../infra/config.ts';

const root = join(import.meta.dirname, '..');

interface ServiceSpec {
  name: string;
  entry: string;
  /** Where it listens; workers listen nowhere. */
  port?: PortNeed;
  /** Environment of this service's process only. */
  env?: Readonly<Record<string, string>>;
}

function serviceSpecs({ config, exampleAgent, chatApp }: StartConfig, env: NodeJS.ProcessEnv): ServiceSpec[] {
  const agentEnv = agentServerTracingEnv(config, env);
  return [
    {
      name: 'tracing-api',
      entry: 'services/processes/tracingApiMain.ts',
      port: { host: config.HOST, port: config.TRACING_PORT, variable: 'TRACING_PORT', purpose: 'the tracing API' },
    },
    {
      name: 'control-plane',
      entry: 'services/processes/controlPlaneMain.ts',
      port: {
        host: config.HOST,
        port: config.CONTROL_PLANE_PORT,
        variable: 'CONTROL_PLANE_PORT',
        purpose: 'the control plane',
      },
      // Its deployed agent servers trace where this one does (each into its deployment's project).
      env: deployedTracingEnv(agentEnv),
    },
    { name: 'projectors', entry: 'projections/projectorMain.ts' },
    { name: 'export-worker', entry: 'services/processes/exportWorkerMain.ts', env: exportWorkerProcessEnv(env) },
    {
      name: 'agent-server',
      entry: 'services/processes/agentServerMain.ts',
      port: {
        host: config.HOST,
        port: config.AGENT_SERVER_PORT,
        variable: 'AGENT_SERVER_PORT',
        purpose: 'the agent server',
      },
      env: agentEnv,
    },
    // An example agent that is not LangGraph: A2A on @a2a-js/sdk, traced over OpenTelemetry.
    {
      name: 'example-a2a-agent',
      entry: 'examples/otel-a2a-agent/main.ts',
      port: exampleAgentPort(exampleAgent),
      env: agentEnv,
    },
    // The example chat app: the agent streaming protocol and its page, signed in with the platform's
    // API keys; each turn traced with its caller's key into project "chat-app" of the caller's workspace.
    {
      name: 'chat-app',
      entry: 'examples/chat-app/main.ts',
      port: chatAppPort(chatApp),
      env: { ...agentEnv, LANGSMITH_PROJECT: env.LANGSMITH_PROJECT ?? 'chat-app' },
    },
  ];
}

/** How a browser on this machine reaches a server listening on `host` (all addresses: the loopback one). */
function localUrl({ host, port }: { host: string; port: number }): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The agents trace into our own tracing API (the agent server through LangChain's langsmith
 * tracer, the example agent over OTLP) unless the environment already points LANGSMITH_* somewhere.
 */
function agentServerTracingEnv(config: Config, env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    LANGSMITH_TRACING: env.LANGSMITH_TRACING ?? 'true',
    LANGSMITH_ENDPOINT: env.LANGSMITH_ENDPOINT ?? localUrl({ host: config.HOST, port: config.TRACING_PORT }),
    LANGSMITH_API_KEY: env.LANGSMITH_API_KEY ?? config.BOOTSTRAP_API_KEY ?? '',
    LANGSMITH_PROJECT: env.LANGSMITH_PROJECT ?? 'agent-server',
  };
}

/**
 * The control plane's LANGSMITH_ENDPOINT, where its deployed agent servers trace (each with a key of
 * its own, in its deployment's workspace); none when tracing is off.
 */
function deployedTracingEnv(agentEnv: Record<string, string>): Record<string, string> {
  if (agentEnv.LANGSMITH_TRACING !== 'true') return {};
  return { LANGSMITH_ENDPOINT: agentEnv.LANGSMITH_ENDPOINT! };
}

async function main(): Promise<void> {
  const endpoints = endpointsFromEnv();
  const bootstrapKey = devSecret('BOOTSTRAP_API_KEY', generateApiKey);
  const secretsKey = devSecret('SECRETS_ENCRYPTION_KEY', () => randomBytes(32).toString('hex'));
  /** Where each dev secret read from a file came from, for messages about its value. */
  const secretFiles: Record<string, string> = {};
  if (bootstrapKey.file) secretFiles.BOOTSTRAP_API_KEY = bootstrapKey.file;
  if (secretsKey.file) secretFiles.SECRETS_ENCRYPTION_KEY = secretsKey.file;
  const env = {
    ...process.env,
    KAFKA_BROKERS: endpoints.kafkaBrokers,
    CLICKHOUSE_URL: endpoints.clickhouseUrl,
    S3_ENDPOINT: endpoints.s3Endpoint,
    S3_ACCESS_KEY_ID: endpoints.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: endpoints.s3SecretAccessKey,
    POSTGRES_URL: endpoints.postgresUrl,
    BOOTSTRAP_API_KEY: bootstrapKey.value,
    SECRETS_ENCRYPTION_KEY: secretsKey.value,
  };
  // Both end the process (exit code 78) with every problem named, before anything is installed or started.
  const startConfig = checkConfiguration(env, secretFiles);
  const services = serviceSpecs(startConfig, env);
  await checkPorts(services.flatMap((spec) => (spec.port ? [spec.port] : [])));

  // Infrastructure that already answers (a container's, a cluster's) is used as it is; the
  // local stack is installed and started only when something is not reachable. Loaded only now:
  // its Kafka and PostgreSQL clients take most of a second to load, which a bad configuration need not wait for.
  const { ensureStackUpInStages, stackStatus } = await import('../infra/stack.ts');
  const { ensureDeployerSandbox } = await import('../infra/toolchain.ts');
  const reachable = (await stackStatus()).every((component) => component.running);
  // The services start once Kafka, ClickHouse and PostgreSQL answer; object storage may come later (a first
  // start builds MinIO from its Go module: minutes), and what needs it answers 503 until then.
  const stack = reachable ? null : ensureStackUpInStages();
  stack?.all.catch(() => undefined); // reported once the services run (objectStorageLater)
  // The control plane runs deployments in a bubblewrap sandbox (docs/local-deployer.md).
  await Promise.all([stack?.core, ensureDeployerSandbox()]);

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of children.values()) child.kill('SIGTERM');
    setTimeout(() => process.exit(exitCode), 5000).unref();
    const exited = (c: ChildProcess) =>
      new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));
    void Promise.all([...children.values()].map(exited)).then(() => process.exit(exitCode));
  };
  const start = (spec: ServiceSpec, policy = new RestartPolicy()) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [join(root, spec.entry)], { env: { ...env, ...spec.env }, stdio: 'inherit' });
    children.set(spec.name, child);
    child.on('exit', (code, signal) => {
      if (stopping) return;
      const decision = policy.decide({ code, signal, ranMs: Date.now() - startedAt });
      if (decision.restart) {
        console.error(`[main] ${spec.name} exited (${signal ?? code}); restarting in ${decision.delayMs} ms`);
        setTimeout(() => stopping || start(spec, policy), decision.delayMs);
        return;
      }
      console.error(
        `[main] ${spec.name} is not restarted: ${decision.reason}; its log above says why. Stopping every service.`,
      );
      stop(code === CANNOT_START_EXIT_CODE ? CANNOT_START_EXIT_CODE : 1);
    });
  };
  for (const spec of services) start(spec);

  const { config } = startConfig;
  const tracingUrl = localUrl({ host: config.HOST, port: config.TRACING_PORT });
  console.log('\nServices:');
  for (const s of services) console.log(`  ${s.name.padEnd(16)} ${s.port ? localUrl(s.port) : '(worker)'}`);
  console.log(`  API docs         ${tracingUrl}/docs`);
  console.log(`\nOpen the trace explorer: ${tracingUrl}/ (sign in with the key below)`);
  console.log(`Open the chat app:       ${localUrl(chatAppPort(startConfig.chatApp))}/ (the same key)`);
  console.log(`\nAPI key for the default workspace: ${env.BOOTSTRAP_API_KEY}`);
  console.log(
    `  export LANGSMITH_ENDPOINT=${tracingUrl} LANGSMITH_API_KEY=${env.BOOTSTRAP_API_KEY} LANGSMITH_TRACING=true\n`,
  );

  process.once('SIGINT', () => stop(0));
  process.once('SIGTERM', () => stop(0));
  if (stack) objectStorageLater(stack.all, env.S3_ENDPOINT, () => stopping);
}

/**
 * Says whether object storage is still to come (what waits for it, how long it has taken) and when it is up,
 * or why it could not be started: tracing keeps running either way.
 */
function objectStorageLater(all: Promise<unknown>, endpoint: string, stopping: () => boolean): void {
  const started = Date.now();
  const waiting = "bulk export and the control plane's source uploads and revision logs";
  let done = false;
  const say = (line: string) => stopping() || console.log(`[main] ${line}`);
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  setTimeout(
    () =>
      done ||
      say(
        `object storage (${endpoint}) is still starting (its progress: [infra] lines); until it answers, ${waiting} answer 503 with Retry-After`,
      ),
    0,
  );
  const timer = setInterval(
    () => say(`object storage is still starting (${elapsed()} since the services started, which do not wait for it)`),
    60_000,
  );
  all
    .then(
      () => say(`object storage is up (${elapsed()} after the services): ${waiting} are served`),
      (err: Error) =>
        say(
          `object storage could not be started, so ${waiting} answer 503 until S3_ENDPOINT answers (run \`npm run infra:up\` to retry); the other services run. Why:\n${err.message}`,
        ),
    )
    .finally(() => {
      done = true;
      clearInterval(timer);
    });
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
