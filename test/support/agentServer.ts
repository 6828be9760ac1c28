// An agent server of a test's own, as a child process the way `npm start` runs it, on a free
// port, with a config file of the test's choice (default: the example assistants). It takes the
// API keys of the shared tracing stack (it reads the stack's tenancy topic), so `apiKey` (the
// stack's bootstrap key, the default workspace) or a key of createWorkspaces() opens it, unless
// the test turns authentication off (AGENT_SERVER_AUTH=none) or its config names an auth module.
import { inject } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, repoRoot, startService, waitFor, type ServiceProcess } from './serviceProcess.ts';
import { scratchPostgres } from './scratchPostgres.ts';

export const EXAMPLES_CONFIG = join(repoRoot, 'examples/agent-server/langgraph.json');

let withoutAdk: string | undefined;
/**
 * The example assistants but the ADK one, what a server of a test serves unless it names a config:
 * loading @google/adk and what it brings (OpenTelemetry, Google's auth and Vertex clients, an ORM,
 * some 2,500 modules) is over a third of a server's start. The tests of the ADK assistant, and of
 * the whole example list, name EXAMPLES_CONFIG.
 */
export function examplesWithoutAdk(): string {
  if (withoutAdk) return withoutAdk;
  const examples = JSON.parse(readFileSync(EXAMPLES_CONFIG, 'utf8')) as { graphs: Record<string, unknown> };
  const absolute = (path: string) => join(dirname(EXAMPLES_CONFIG), path);
  const graphs = Object.fromEntries(
    Object.entries(examples.graphs)
      .filter(([id]) => id !== 'adk_echo')
      .map(([id, spec]) => [
        id,
        typeof spec === 'string'
          ? absolute(spec)
          : { ...(spec as Record<string, unknown>), path: absolute((spec as { path: string }).path) },
      ]),
  );
  withoutAdk = writeAgentConfig({ ...examples, graphs });
  return withoutAdk;
}

export interface AgentServer {
  url: string;
  /** A key of the default workspace (the shared stack's bootstrap key); unset when the server runs with AGENT_SERVER_AUTH=none. */
  apiKey: string;
  /** `{'x-api-key': apiKey}`, for plain fetches. */
  headers: Record<string, string>;
  process: ServiceProcess;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface AgentServerOptions {
  /** A langgraph.json-format file; the example assistants' but the ADK one's when absent (examplesWithoutAdk). */
  configFile?: string;
  env?: Record<string, string>;
  /** Reuse a port (e.g. to restart a server where it was). */
  port?: number;
}

/** Writes a langgraph.json-format config into a temporary directory and returns its path. Graph paths may be absolute. */
export function writeAgentConfig(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
  const file = join(dir, 'langgraph.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** The example assistants' graph modules, by absolute path, for configs written by tests. */
export const exampleGraph = (name: 'chatAgent' | 'counterGraph' | 'noopGraph' | 'approvalGraph') =>
  join(repoRoot, 'examples/agent-server', `${name}.ts:graph`);

/** Where the shared tracing stack keeps its API keys (its broker and topic prefix), and its bootstrap key: an agent server given this env takes that key. */
export function sharedTenancyEnv(): { env: Record<string, string>; apiKey: string } {
  const stack = inject('tracingEnv');
  return {
    env: { KAFKA_BROKERS: stack.KAFKA_BROKERS!, KAFKA_TOPIC_PREFIX: stack.KAFKA_TOPIC_PREFIX! },
    apiKey: inject('bootstrapApiKey'),
  };
}

export async function startAgentServer(name: string, options: AgentServerOptions = {}): Promise<AgentServer> {
  const port = options.port ?? (await freePort());
  // Outside vitest (the benchmark) there is no shared stack: such callers run without authentication.
  const tenancy = options.env?.AGENT_SERVER_AUTH === 'none' ? { env: {}, apiKey: '' } : sharedTenancyEnv();
  const env: Record<string, string> = {
    ...tenancy.env,
    AGENT_SERVER_PORT: String(port),
    AGENT_SERVER_CONFIG: options.configFile ?? examplesWithoutAdk(),
    LANGSMITH_TRACING: 'false',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const child = startService('services/processes/agentServerMain.ts', env, `agent-server-${name}`);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.child.once('exit', (code) =>
      reject(new Error(`the agent server exited with ${code} (see .local/logs/test/agent-server-${name}.log)`)),
    ),
  );
  exited.catch(() => undefined);
  // ready: with a shared run queue, registered (a dead predecessor at this address reaped)
  await Promise.race([waitFor(`the agent server at ${url}`, async () => (await fetch(`${url}/ready`)).ok), exited]);
  return {
    url,
    apiKey: tenancy.apiKey,
    headers: tenancy.apiKey ? { 'x-api-key': tenancy.apiKey } : {},
    process: child,
    env,
    stop: () => child.stop(),
  };
}

/** An agent server on one of its stores, and how to stop it (and drop its database). */
export interface AgentServerOnStore {
  server: AgentServer;
  stop(): Promise<void>;
}

/**
 * For tests run on each store (`describe.each(['memory', 'postgres'])`): an agent server keeping
 * its threads in memory, or in a scratch PostgreSQL database of its own (with the example
 * assistants, or those of `configFile`).
 */
export async function startAgentServerOn(
  store: 'memory' | 'postgres',
  name: string,
  options: Omit<AgentServerOptions, 'port'> = {},
): Promise<AgentServerOnStore> {
  const db = store === 'postgres' ? await scratchPostgres(`agent_${name.replaceAll('-', '_')}`) : undefined;
  const server = await startAgentServer(`${name}-${store}`, {
    ...options,
    env: { ...options.env, ...db?.agentServerEnv },
  }).catch(async (err) => {
    await db?.drop();
    throw err;
  });
  return {
    server,
    async stop() {
      await server.stop();
      await db?.drop();
    },
  };
}
