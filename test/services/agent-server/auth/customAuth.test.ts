// A custom auth module (langgraph.json `auth.path`) replaces API keys, and its `auth.on(…)`
// handlers apply per resource and action, as on the LangGraph server: the module here stamps
// every thread and run with its owner and lets each user see only their own. Two users drive the
// official JS SDK (@langchain/langgraph-sdk) and A2A; a handler answering false is a 403, one
// throwing an HTTPException answers with its status. Both stores are checked.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';

const OWNER_AUTH_CONFIG = () =>
  writeAgentConfig({
    graphs: { agent: exampleGraph('chatAgent') },
    auth: { path: `${join(import.meta.dirname, '..', 'fixtures', 'ownerAuth.ts')}:auth` },
  });

let server: AgentServer;
let db: ScratchPostgres | undefined;
afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

const as = (user: string) =>
  new Client({ apiUrl: server.url, apiKey: null, defaultHeaders: { authorization: `Bearer token-${user}` } });
const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const status = async (call: Promise<unknown>): Promise<number | 'ok'> => {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return Number(/(\d{3})/.exec(String((err as Error).message))?.[1] ?? (err as { status?: number }).status);
  }
};
const raw = (user: string, method: string, path: string, json?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer token-${user}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });

describe.each(['memory', 'postgres'] as const)('%s store', (store) => {
  beforeAll(async () => {
    await server?.stop();
    let env = {};
    if (store === 'postgres') {
      db = await scratchPostgres('agent_custom_auth');
      env = db.agentServerEnv;
    }
    server = await startAgentServer(`owner-auth-${store}`, { configFile: OWNER_AUTH_CONFIG(), env });
  });

  it('stamps the owner on what a user creates, and shows each user only their own threads and runs', async () => {
    const alice = as('alice');
    const bob = as('bob');
    const topic = randomUUID();
    const thread = await alice.threads.create({ metadata: { topic } });
    expect(thread.metadata).toMatchObject({ topic, owner: 'alice' });
    const values: any = await alice.runs.wait(thread.thread_id, 'agent', { input: human('mine') });
    expect(values.user_id).toBe('alice');
    const [run] = await alice.runs.list(thread.thread_id);
    expect(run!.metadata).toMatchObject({ owner: 'alice' });
    const bobs = await bob.threads.create({ metadata: { topic } });

    // Searches and counts: each their own.
    expect((await alice.threads.search({ metadata: { topic } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect((await bob.threads.search({ metadata: { topic } })).map((t) => t.thread_id)).toEqual([bobs.thread_id]);
    expect((await bob.threads.search({ limit: 1000 })).map((t) => t.thread_id)).not.toContain(thread.thread_id);
    expect(await (await raw('bob', 'POST', '/threads/count', { metadata: { topic } })).json()).toBe(1);

    // Every route that names alice's thread or run is a 404 for bob, as for a thread that does not exist.
    const id = thread.thread_id;
    for (const [what, call] of [
      ['get', () => bob.threads.get(id)],
      ['state', () => bob.threads.getState(id)],
      ['history', () => bob.threads.getHistory(id)],
      ['update', () => bob.threads.update(id, { metadata: { owner: 'bob' } })],
      ['update state', () => bob.threads.updateState(id, { values: human('intruder'), asNode: 'agent' })],
      ['delete', () => bob.threads.delete(id)],
      ['list runs', () => bob.runs.list(id)],
      ['get run', () => bob.runs.get(id, run!.run_id)],
      ['join run', () => bob.runs.join(id, run!.run_id)],
      ['delete run', () => bob.runs.delete(id, run!.run_id)],
      ['run on it', () => bob.runs.wait(id, 'agent', { input: human('intruder'), ifNotExists: 'create' })],
    ] as const) {
      expect(await status(call()), what).toBe(404);
    }
    expect(await status(bob.threads.create({ threadId: id, ifExists: 'do_nothing' })), 'create with its id').toBe(409);
    const after = await alice.threads.get(id);
    expect(after.metadata).toMatchObject({ topic, owner: 'alice' });
    expect(JSON.stringify((await alice.threads.getState(id)).values)).not.toContain('intruder');
    expect((await alice.runs.list(id)).map((r) => r.run_id)).toEqual([run!.run_id]);
  });

  it('stamps the threads runs create, stateless ones included', async () => {
    const topic = randomUUID();
    const threadId = randomUUID();
    await as('bob').runs.wait(threadId, 'agent', {
      input: human('new thread'),
      ifNotExists: 'create',
      metadata: { topic },
    });
    // The SDK's types leave on_completion out of stateless runs; the server takes it.
    expect(
      (
        await raw('bob', 'POST', '/runs/wait', {
          assistant_id: 'agent',
          input: human('stateless'),
          on_completion: 'keep',
          metadata: { topic },
        })
      ).status,
    ).toBe(200);
    const found = await as('bob').threads.search({ metadata: { topic } });
    expect(found).toHaveLength(2);
    for (const t of found) expect(t.metadata?.owner).toBe('bob');
    expect(await as('alice').threads.search({ metadata: { topic } })).toEqual([]);
  });

  it('an A2A task of one user is not found by another', async () => {
    const send = async (user: string, method: string, params: unknown) =>
      (await (await raw(user, 'POST', '/a2a/agent', { jsonrpc: '2.0', id: 1, method, params })).json()) as any;
    const task = (
      await send('alice', 'message/send', {
        message: { role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hello' }] },
      })
    ).result;
    expect(task.status.state).toBe('completed');
    expect((await send('alice', 'tasks/get', { id: task.id })).result.status.state).toBe('completed');
    expect((await send('bob', 'tasks/get', { id: task.id })).error.code).toBe(-32001);
    const hijack = await send('bob', 'message/send', {
      message: {
        role: 'user',
        messageId: randomUUID(),
        contextId: task.contextId,
        parts: [{ kind: 'text', text: 'intruder' }],
      },
    });
    expect(hijack.error).toBeDefined();
  });

  it('the assistants are everyone’s (their handler allows them)', async () => {
    expect((await as('bob').assistants.search()).map((a) => a.graph_id)).toEqual(['agent']);
    expect((await as('alice').assistants.get('agent')).graph_id).toBe('agent');
  });

  it('a handler answering false refuses with 403; one throwing an HTTPException answers with its status and message', async () => {
    const carols = await as('carol').threads.create();
    const denied = await raw('carol', 'DELETE', `/threads/${carols.thread_id}`);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({ error: 'FORBIDDEN', detail: 'Forbidden' });
    expect((await as('carol').threads.get(carols.thread_id)).thread_id).toBe(carols.thread_id);
    const refused = await raw('mallory', 'POST', '/threads', {});
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as any).detail).toBe('mallory must pay before she creates threads');
    // A filter with $eq (the delete handler's) finds the owner's own thread.
    const alices = await as('alice').threads.create();
    expect(await status(as('alice').threads.delete(alices.thread_id))).toBe('ok');
  });

  it('no API key is needed or taken: the module decides', async () => {
    expect(
      (
        await fetch(`${server.url}/threads/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
    const info = (await (await fetch(`${server.url}/info`)).json()) as any;
    expect(info.auth).toEqual({ mode: 'custom' });
  });
});
