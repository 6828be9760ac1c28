// `npm start` (services/main.ts): infra if needed, every service in the foreground, URLs and
// the dev API key printed, a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { freePort, waitFor } from '../support/serviceProcess.ts';
import { dropStackData } from '../support/tracingStack.ts';

test('npm start runs the services and prints the URLs and the dev API key', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const agentPort = await freePort();
  const exampleAgentPort = await freePort();
  const id = `start_${randomBytes(3).toString('hex')}`;
  const { BOOTSTRAP_API_KEY: _ignored, ...env } = Object.fromEntries(
    Object.entries({ ...process.env, ...inject('tracingEnv') }).filter(([name]) => !name.startsWith('LANGSMITH_')),
  );
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../services/main.ts')], {
    env: { ...env, TRACING_PORT: String(port), AGENT_SERVER_PORT: String(agentPort), A2A_EXAMPLE_AGENT_PORT: String(exampleAgentPort), KAFKA_TOPIC_PREFIX: `${id}.`, CLICKHOUSE_DATABASE: id, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    const key = await waitFor('the dev API key to be printed', async () => /API key for the default workspace: (\S+)/.exec(out)?.[1], 60_000);
    expect(out).toContain(`http://127.0.0.1:${port}`);
    await waitFor('the tracing API', async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok, 60_000, 200);
    const runId = uuidv7();
    const res = await fetch(`http://127.0.0.1:${port}/runs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ id: runId, name: 'hello', run_type: 'chain' }) });
    expect(res.status).toBe(202);
    // The projector runs too: the run becomes readable.
    await waitFor('the run to be projected', async () => (await fetch(`http://127.0.0.1:${port}/runs/${runId}`, { headers: { 'x-api-key': key } })).ok, 60_000, 200);

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
    await waitFor('the example A2A agent', async () => (await fetch(`http://127.0.0.1:${exampleAgentPort}/.well-known/agent-card.json`)).ok, 60_000, 200);
    await waitFor('the agent run traced', async () => (await fetch(`http://127.0.0.1:${port}/runs/${agentRunId}`, { headers: { 'x-api-key': key } })).ok, 60_000, 200);
  } finally {
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', (c, s) => r(c ?? s)));
    expect(code).toBe(0);
    await dropStackData(id, { CLICKHOUSE_URL: env.CLICKHOUSE_URL!, KAFKA_BROKERS: env.KAFKA_BROKERS! });
  }
});
