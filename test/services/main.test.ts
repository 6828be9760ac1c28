// `npm start` (services/main.ts): infra if needed, every service in the foreground, URLs and
// the dev API key printed, a clean stop on SIGTERM. Before anything is provisioned or started, a
// bad configuration or a taken port ends it at once (exit code 78); a service that cannot start
// is not restarted for ever.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { portProblems } from '../../platform/ports.ts';
import { writeAgentConfig } from '../support/agentServer.ts';
import { freePort, waitFor } from '../support/serviceProcess.ts';
import { dropStackData } from '../support/tracingStack.ts';

/** The test environment without a dev key or LANGSMITH_* of its own, as a user's shell would be. */
function userEnv(): Record<string, string> {
  const { BOOTSTRAP_API_KEY: _ignored, ...env } = Object.fromEntries(
    Object.entries({ ...process.env, ...inject('tracingEnv') }).filter(([name]) => !name.startsWith('LANGSMITH_')),
  ) as Record<string, string>;
  return env;
}

/** Runs services/main.ts until it exits by itself, or for at most `limitMs` (then stops it: 'still running'). */
async function runMain(
  env: Record<string, string>,
  limitMs: number,
): Promise<{ code: number | string; output: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../services/main.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  let stillRunning = false;
  const timer = setTimeout(() => {
    stillRunning = true;
    child.kill('SIGTERM');
  }, limitMs);
  const code = await exited;
  clearTimeout(timer);
  return { code: stillRunning ? 'still running' : code, output };
}

/** A port held by a server of this test process, standing for another program on the machine. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

test('a bad configuration stops npm start at once, naming every bad variable, before any provisioning', async () => {
  const { code, output } = await runMain(
    {
      ...userEnv(),
      BOOTSTRAP_API_KEY: 'short',
      TRACING_PORT: 'twenty',
      CLICKHOUSE_TCP_PORT: 'ninety',
      // Endpoints that nothing answers at and that the stack cannot start (TEST-NET-1, not local):
      // provisioning, had it begun, would wait for them and then fail naming them.
      KAFKA_BROKERS: '192.0.2.1:9092',
      CLICKHOUSE_URL: 'http://192.0.2.1:8123',
      S3_ENDPOINT: 'http://192.0.2.1:9000',
      POSTGRES_URL: 'postgres://postgres@192.0.2.1:5432/postgres',
    },
    30_000,
  );
  expect(code).toBe(78);
  expect(output).toContain('the configuration is invalid');
  expect(output).toContain('BOOTSTRAP_API_KEY: must be at least 16 characters');
  expect(output).toContain('TRACING_PORT: a TCP port');
  expect(output).toContain('CLICKHOUSE_TCP_PORT=ninety is not a TCP port');
  expect(output).not.toContain('192.0.2.1');
  expect(output).not.toContain('[infra]');
});

test('a port another program holds stops npm start before anything starts: the port, its holder, the variable', async () => {
  const held = await holdPort();
  const tracingPort = await freePort();
  const id = `start_${randomBytes(3).toString('hex')}`;
  const env = userEnv();
  try {
    const { code, output } = await runMain(
      {
        ...env,
        TRACING_PORT: String(tracingPort),
        CONTROL_PLANE_PORT: String(await freePort()),
        AGENT_SERVER_PORT: String(held.port),
        A2A_EXAMPLE_AGENT_PORT: String(await freePort()),
        CHAT_APP_PORT: String(await freePort()),
        KAFKA_TOPIC_PREFIX: `${id}.`,
        CLICKHOUSE_DATABASE: id,
        LOG_LEVEL: 'warn',
      },
      45_000,
    );
    expect(code).toBe(78);
    expect(output).toMatch(
      new RegExp(`port ${held.port} on 127\\.0\\.0\\.1 \\(the agent server\\) is in use by pid ${process.pid} \\(`),
    );
    expect(output).toContain('AGENT_SERVER_PORT');
    expect(output).not.toContain('restarting');
    // Nothing was started: the tracing API's port is still free.
    expect(
      await portProblems([
        { host: '127.0.0.1', port: tracingPort, variable: 'TRACING_PORT', purpose: 'the tracing API' },
      ]),
    ).toEqual([]);
  } finally {
    held.server.close();
    await dropStackData(id, { CLICKHOUSE_URL: env.CLICKHOUSE_URL!, KAFKA_BROKERS: env.KAFKA_BROKERS! });
  }
});

test('a service that dies at every start is given up, and npm start stops everything, rather than restarting it for ever', {
  timeout: 120_000,
}, async () => {
  // A graph whose module throws when it loads: a failure no configuration check can see.
  const graphFile = join(mkdtempSync(join(tmpdir(), 'broken-graph-')), 'brokenGraph.ts');
  writeFileSync(graphFile, "throw new Error('this graph cannot load');\n");
  const id = `start_${randomBytes(3).toString('hex')}`;
  const env = userEnv();
  try {
    const { code, output } = await runMain(
      {
        ...env,
        TRACING_PORT: String(await freePort()),
        CONTROL_PLANE_PORT: String(await freePort()),
        AGENT_SERVER_PORT: String(await freePort()),
        A2A_EXAMPLE_AGENT_PORT: String(await freePort()),
        CHAT_APP_PORT: String(await freePort()),
        AGENT_SERVER_CONFIG: writeAgentConfig({ graphs: { broken: `${graphFile}:graph` } }),
        KAFKA_TOPIC_PREFIX: `${id}.`,
        CLICKHOUSE_DATABASE: id,
        LOG_LEVEL: 'warn',
      },
      100_000,
    );
    expect(code).toBe(1);
    expect(output).toContain('this graph cannot load');
    expect(output).toMatch(
      /\[main\] agent-server is not restarted: it exited 3 times in a row within 30 s of starting .*Stopping every service/,
    );
    // Restarted twice before the third exit in a row gave it up; more often when a start took over
    // 30 s to fail (a loaded machine), which begins the count again.
    expect(output.match(/\[main\] agent-server exited \(1\); restarting/g)?.length).toBeGreaterThanOrEqual(2);
  } finally {
    await dropStackData(id, { CLICKHOUSE_URL: env.CLICKHOUSE_URL!, KAFKA_BROKERS: env.KAFKA_BROKERS! });
  }
});

test('npm start runs the services and prints the URLs and the dev API key', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const agentPort = await freePort();
  const exampleAgentPort = await freePort();
  const controlPlanePort = await freePort();
  const chatPort = await freePort();
  const id = `start_${randomBytes(3).toString('hex')}`;
  const { BOOTSTRAP_API_KEY: _ignored, ...env } = Object.fromEntries(
    Object.entries({ ...process.env, ...inject('tracingEnv') }).filter(([name]) => !name.startsWith('LANGSMITH_')),
  );
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../services/main.ts')], {
    env: {
      ...env,
      TRACING_PORT: String(port),
      CONTROL_PLANE_PORT: String(controlPlanePort),
      AGENT_SERVER_PORT: String(agentPort),
      A2A_EXAMPLE_AGENT_PORT: String(exampleAgentPort),
      CHAT_APP_PORT: String(chatPort),
      KAFKA_TOPIC_PREFIX: `${id}.`,
      CLICKHOUSE_DATABASE: id,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const key = await waitFor(
      'the dev API key to be printed',
      async () => /API key for the default workspace: (\S+)/.exec(out)?.[1],
      60_000,
    );
    expect(out).toContain(`http://127.0.0.1:${port}`);
    await waitFor('the tracing API', async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok, 60_000, 200);
    const runId = uuidv7();
    const res = await fetch(`http://127.0.0.1:${port}/runs`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ id: runId, name: 'hello', run_type: 'chain' }),
    });
    expect(res.status).toBe(202);
    // The projector runs too: the run becomes readable.
    await waitFor(
      'the run to be projected',
      async () => (await fetch(`http://127.0.0.1:${port}/runs/${runId}`, { headers: { 'x-api-key': key } })).ok,
      60_000,
      200,
    );

    // The control plane runs, with the dev key.
    expect(out).toContain(`http://127.0.0.1:${controlPlanePort}`);
    await waitFor(
      'the control plane',
      async () => (await fetch(`http://127.0.0.1:${controlPlanePort}/ready`)).ok,
      60_000,
      200,
    );
    expect(
      (await fetch(`http://127.0.0.1:${controlPlanePort}/v2/deployments`, { headers: { 'x-api-key': key } })).status,
    ).toBe(200);

    // The agent server runs the example assistants and traces into the tracing API with the dev key.
    expect(out).toContain(`http://127.0.0.1:${agentPort}`);
    await waitFor('the agent server', async () => (await fetch(`http://127.0.0.1:${agentPort}/ok`)).ok, 60_000, 200);
    // With the dev key: the agent server takes the tracing API's keys.
    const wait = await fetch(`http://127.0.0.1:${agentPort}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ assistant_id: 'agent', input: { messages: [{ type: 'human', content: 'hi' }] } }),
    });
    expect(JSON.parse(await wait.text()).messages.at(-1).content).toBe('Turn 1: you said "hi"');
    const agentRunId = wait.headers.get('content-location')!.split('/').at(-1)!;
    await waitFor(
      'the example A2A agent',
      async () => (await fetch(`http://127.0.0.1:${exampleAgentPort}/.well-known/agent-card.json`)).ok,
      60_000,
      200,
    );
    await waitFor(
      'the agent run traced',
      async () => (await fetch(`http://127.0.0.1:${port}/runs/${agentRunId}`, { headers: { 'x-api-key': key } })).ok,
      60_000,
      200,
    );

    // The example chat app runs, signs its callers in with the dev key, and traces their turns with it.
    expect(out).toContain(`Open the chat app:       http://127.0.0.1:${chatPort}/ (the same key)`);
    await waitFor('the chat app', async () => (await fetch(`http://127.0.0.1:${chatPort}/ok`)).ok, 60_000, 200);
    expect((await fetch(`http://127.0.0.1:${chatPort}/api/threads`)).status).toBe(401);
    const chatThread = `main-${id}`;
    const started = await fetch(`http://127.0.0.1:${chatPort}/api/threads/${chatThread}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        id: 1,
        method: 'run.start',
        params: { assistant_id: 'deep_agent', input: { messages: [{ role: 'user', content: 'hello' }] } },
      }),
    });
    const chatRunId = ((await started.json()) as { result: { run_id: string } }).result.run_id;
    await waitFor(
      'the chat turn traced',
      async () => (await fetch(`http://127.0.0.1:${port}/runs/${chatRunId}`, { headers: { 'x-api-key': key } })).ok,
      60_000,
      200,
    );
  } finally {
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', (c, s) => r(c ?? s)));
    expect(code).toBe(0);
    await dropStackData(id, { CLICKHOUSE_URL: env.CLICKHOUSE_URL!, KAFKA_BROKERS: env.KAFKA_BROKERS! });
  }
});
