// With AGENT_SERVER_CHECKPOINTER=postgres, threads, runs and checkpoints survive the server:
// a restarted server continues a thread where it was, and a run cut short by a killed server
// is marked failed instead of staying "running" for ever (at once, by the server that takes its
// address; after AGENT_SERVER_RUN_LEASE_MS, by any other server on the database).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { scratchPostgres, type ScratchPostgres } from '../../support/scratchPostgres.ts';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../support/agentServer.ts';
import { freePort } from '../../support/serviceProcess.ts';

let db: ScratchPostgres;
let env: Record<string, string>;
let configFile: string;
let port: number;
const servers: AgentServer[] = [];

beforeAll(async () => {
  db = await scratchPostgres('agent_checkpoints');
  env = db.agentServerEnv;
  configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      slow: `${join(import.meta.dirname, 'fixtures', 'slowGraph.ts')}:graph`,
    },
  });
  port = await freePort();
});

// Each test restarts servers on one port: none may outlive its test.
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

afterAll(() => db?.drop());

async function start(): Promise<Client> {
  const server = await startAgentServer('postgres', { configFile, env, port });
  servers.push(server);
  return new Client({ apiUrl: server.url, apiKey: server.apiKey });
}

const human = (content: string) => ({ messages: [{ type: 'human', content }] });

describe('PostgreSQL checkpoints', () => {
  it('a restarted server continues a thread from PostgreSQL', async () => {
    let client = await start();
    const thread = await client.threads.create({ metadata: { purpose: 'durability' } });
    await client.runs.wait(thread.thread_id, 'agent', { input: human('before the restart') });
    const before = await client.threads.getState(thread.thread_id);
    await servers.pop()!.stop();

    client = await start();
    const stored = await client.threads.get(thread.thread_id);
    expect(stored).toMatchObject({
      thread_id: thread.thread_id,
      status: 'idle',
      metadata: { purpose: 'durability', graph_id: 'agent' },
    });
    const after = await client.threads.getState(thread.thread_id);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    const values: any = await client.runs.wait(thread.thread_id, 'agent', { input: human('after the restart') });
    expect(values.messages.map((m: any) => m.content)).toEqual([
      'before the restart',
      'Turn 1: you said "before the restart"',
      'after the restart',
      'Turn 2: you said "after the restart"',
    ]);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(['success', 'success']);
    expect((await client.threads.search({ metadata: { purpose: 'durability' } })).map((t) => t.thread_id)).toEqual([
      thread.thread_id,
    ]);
    expect((await client.threads.getHistory(thread.thread_id, { limit: 100 })).length).toBeGreaterThan(4);
  });

  it('a run cut short by a killed server is marked failed, and the thread takes new runs', async () => {
    let client = await start();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'slow', {
      input: human('never finishes'),
      streamMode: ['custom'],
    });
    for await (const event of client.runs.joinStream(thread.thread_id, run.run_id)) if (event.event === 'custom') break;
    await servers.pop()!.process.kill('SIGKILL');

    client = await start();
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('error');
    // as after any failed run: the thread says so, and why
    const after: any = await client.threads.get(thread.thread_id);
    expect(after.status).toBe('error');
    expect(after.error).toMatchObject({
      error: 'AgentServerGone',
      message: expect.stringMatching(/stopped before it ended/),
    });
    const values: any = await client.runs.wait(thread.thread_id, 'agent', { input: human('carry on') });
    expect(values.messages.at(-1).content).toBe('Turn 2: you said "carry on"');
  });
});
