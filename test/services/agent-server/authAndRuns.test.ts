// A custom auth module named in the config file authenticates every request (but health, info
// and agent cards); the user reaches the graph. Runs that are cancelled while their graph runs,
// and graphs that interrupt for input and are resumed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../support/agentServer.ts';

const fixture = (name: string) => join(import.meta.dirname, 'fixtures', name);
let server: AgentServer;

beforeAll(async () => {
  const configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      slow: `${fixture('slowGraph.ts')}:graph`,
      approval: `${fixture('approvalGraph.ts')}:graph`,
    },
    auth: { path: `${fixture('tokenAuth.ts')}:auth` },
  });
  server = await startAgentServer('auth', { configFile });
});
afterAll(() => server?.stop());

const as = (token: string) => new Client({ apiUrl: server.url, defaultHeaders: { authorization: `Bearer ${token}` } });
const human = (content: string) => ({ messages: [{ type: 'human', content }] });

describe('custom auth', () => {
  it('refuses requests without a valid token with the handler’s status and message', async () => {
    const none = await fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(401);
    expect(await none.text()).toContain('a Bearer token is required');
    const wrong = await fetch(`${server.url}/assistants/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('unknown token');
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
    expect((await fetch(`${server.url}/info`)).status).toBe(200);
  });

  it('passes the authenticated user to the graph', async () => {
    const thread = await as('token-alice').threads.create();
    const values: any = await as('token-alice').runs.wait(thread.thread_id, 'agent', { input: human('who am I') });
    expect(values.user_id).toBe('alice');
    const bob: any = await as('token-bob').runs.wait(null, 'agent', { input: human('and me') });
    expect(bob.user_id).toBe('bob');
  });
});

describe('cancelling a running run', () => {
  it('stops the graph mid-node: the run is interrupted and the thread free again', async () => {
    const client = as('token-alice');
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'slow', {
      input: human('take your time'),
      streamMode: ['custom'],
    });
    // The graph has started once its custom event is out.
    for await (const event of client.runs.joinStream(thread.thread_id, run.run_id)) if (event.event === 'custom') break;
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
    const next: any = await client.runs.wait(thread.thread_id, 'agent', { input: human('still here') });
    expect(next.messages.at(-1).content).toBe('Turn 2: you said "still here"');
  });

  it('rollback cancels the running run, deletes it and puts the thread back as it was before it', async () => {
    const client = as('token-alice');
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: human('kept') });
    const before = await client.threads.getState(thread.thread_id);
    const slow = await client.runs.create(thread.thread_id, 'slow', {
      input: human('rolled back'),
      streamMode: ['custom'],
    });
    for await (const event of client.runs.joinStream(thread.thread_id, slow.run_id))
      if (event.event === 'custom') break;
    const after: any = await client.runs.wait(thread.thread_id, 'agent', {
      input: human('next'),
      multitaskStrategy: 'rollback',
    });
    expect(after.messages.map((m: any) => m.content)).toEqual([
      'kept',
      'Turn 1: you said "kept"',
      'next',
      'Turn 2: you said "next"',
    ]);
    await expect(client.runs.get(thread.thread_id, slow.run_id)).rejects.toThrow(/404|not found/i);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).not.toContain(slow.run_id);
    expect((before.values as any).messages).toHaveLength(2);
  });

  it('rolling back a thread’s first run leaves it without state', async () => {
    const client = as('token-alice');
    const thread = await client.threads.create();
    const slow = await client.runs.create(thread.thread_id, 'slow', { input: human('gone'), streamMode: ['custom'] });
    for await (const event of client.runs.joinStream(thread.thread_id, slow.run_id))
      if (event.event === 'custom') break;
    await client.runs.cancel(thread.thread_id, slow.run_id, true, 'rollback');
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({});
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
  });

  it('cancels a running run when a client streaming with on_disconnect=cancel goes away', async () => {
    const client = as('token-alice');
    const thread = await client.threads.create();
    const abort = new AbortController();
    let runId = '';
    const stream = client.runs.stream(thread.thread_id, 'slow', {
      input: human('x'),
      streamMode: ['custom'],
      onDisconnect: 'cancel',
      signal: abort.signal,
      onRunCreated: (meta) => (runId = meta.run_id),
    });
    try {
      for await (const event of stream) if (event.event === 'custom') abort.abort();
    } catch {
      /* the SDK may end the aborted stream with an AbortError or quietly */
    }
    expect(runId).not.toBe('');
    const deadline = Date.now() + 10_000;
    let status = '';
    while (Date.now() < deadline && status !== 'interrupted') {
      status = (await client.runs.get(thread.thread_id, runId)).status;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('interrupted');
  });
});

describe('interrupts', () => {
  it('a graph waiting for input leaves the thread interrupted, and a resume command goes on', async () => {
    const client = as('token-bob');
    const thread = await client.threads.create();
    const waiting: any = await client.runs.wait(thread.thread_id, 'approval', { input: human('may I?') });
    expect(waiting.__interrupt__).toEqual([expect.objectContaining({ value: { question: 'approve?' } })]);
    const stored = await client.threads.get(thread.thread_id);
    expect(stored.status).toBe('interrupted');
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(['ask']);
    const done: any = await client.runs.wait(thread.thread_id, 'approval', { command: { resume: 'yes' } });
    expect(done.messages.at(-1).content).toBe('answer was yes');
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
  });
});
