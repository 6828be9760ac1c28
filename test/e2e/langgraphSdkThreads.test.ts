// The thread methods of the official LangGraph SDKs beyond create/get/search/state (which
// langgraphSdkJs.test.ts covers): copy, patchState, TTLs (with their sweeper) and, from the
// Python SDK, prune; on an agent server keeping threads in memory and on one keeping them in
// PostgreSQL. The config file sweeps every 0.6 s so TTLs of a fraction of a minute run out here.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { exampleGraph, startAgentServerOn, writeAgentConfig, type AgentServerOnStore } from '../support/agentServer.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { createWorkspaces } from '../support/tracingClient.ts';

const configFile = writeAgentConfig({
  graphs: { agent: exampleGraph('chatAgent') },
  checkpointer: { ttl: { sweep_interval_minutes: 0.01 } },
});

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const status = (err: unknown) => (err as { status?: number }).status;

describe.each(['memory', 'postgres'] as const)('threads on %s', (store) => {
  let on: AgentServerOnStore;
  let client: Client;
  let other: Client;
  let pyenv: PythonEnv;
  let apiKey: string;

  beforeAll(async () => {
    [on, pyenv] = await Promise.all([startAgentServerOn(store, 'sdk-threads', { configFile }), ensurePythonEnv()]);
    const [a, b] = await createWorkspaces(2);
    apiKey = a!.apiKey;
    client = new Client({ apiUrl: on.server.url, apiKey });
    other = new Client({ apiUrl: on.server.url, apiKey: b!.apiKey });
  });
  afterAll(() => on?.stop());

  it('copies a thread with its checkpoints: the copy continues where the original was, on its own', async () => {
    const thread = await client.threads.create({ metadata: { topic: 'copy me' } });
    await client.runs.wait(thread.thread_id, 'agent', { input: human('first') });
    await client.runs.wait(thread.thread_id, 'agent', { input: human('second') });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });

    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect(copy.metadata).toMatchObject({ topic: 'copy me', graph_id: 'agent' });
    const copied = await client.threads.getHistory(copy.thread_id, { limit: 100 });
    expect(copied.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.map((s) => s.checkpoint.checkpoint_id));
    expect(copied.map((s) => s.values)).toEqual(history.map((s) => s.values));
    expect(copied[0]!.checkpoint.thread_id).toBe(copy.thread_id);

    const next = (await client.runs.wait(copy.thread_id, 'agent', { input: human('third') })) as any;
    expect(next.messages.at(-1).content).toBe('Turn 3: you said "third"');
    expect((await client.threads.getState(thread.thread_id)).values).toEqual(history[0]!.values);
    expect(await client.runs.list(copy.thread_id)).toHaveLength(1);

    await expect(other.threads.copy(thread.thread_id)).rejects.toSatisfy((e) => status(e) === 404);
  });

  it('a NUL character PostgreSQL cannot keep is a 422, not a 500, and writes nothing', async () => {
    const threadId = randomUUID();
    const res = await fetch(`${on.server.url}/threads`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: threadId, metadata: { note: 'a\u0000b' } }),
    });
    if (store === 'postgres') {
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/NUL/);
      await expect(client.threads.get(threadId)).rejects.toSatisfy((e) => status(e) === 404);
      await expect(client.assistants.create({ graphId: 'agent', name: 'a\u0000b' })).rejects.toSatisfy(
        (e) => status(e) === 422,
      );
    } else expect(res.status).toBe(200);
    // An offset past what PostgreSQL's LIMIT/OFFSET take is a 422 too.
    for (const path of ['/threads/search', '/assistants/search']) {
      const far = await fetch(`${on.server.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ offset: 1e19 }),
      });
      expect(far.status, path).toBe(422);
    }
  });

  it('a state update the graph refuses is a 422 saying why, and a thread created with such supersteps is not kept', async () => {
    const thread = await client.threads.create({ graphId: 'agent' });
    await client.runs.wait(thread.thread_id, 'agent', { input: human('hello') });
    const before = await client.threads.getState(thread.thread_id);
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ values: [1, 2] }, /return an object/],
      [{ values: 'a string' }, /return an object/],
      [{ values: { messages: 5 } }, /coerce message/],
      [{ values: { messages: [{ a: 1 }] } }, /coerce message/],
      [{ values: {}, as_node: 'no_such_node' }, /Node "no_such_node" does not exist/],
      [{ values: {}, as_node: '__end__' }, /does not exist/],
    ];
    for (const [body, reason] of refused) {
      const res = await fetch(`${on.server.url}/threads/${thread.thread_id}/state`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
      const { detail } = (await res.json()) as { detail: string };
      expect(detail).toMatch(/^the graph refused the state update: /);
      expect(detail).toMatch(reason);
      expect(detail).not.toMatch(/Troubleshooting/);
    }
    const after = await client.threads.getState(thread.thread_id);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    // The same update in supersteps: the thread is not created.
    const threadId = randomUUID();
    const res = await fetch(`${on.server.url}/threads`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        thread_id: threadId,
        metadata: { graph_id: 'agent' },
        supersteps: [
          { updates: [{ values: { messages: [human('hi').messages[0]] }, as_node: '__start__' }] },
          { updates: [{ values: { messages: 5 }, as_node: '__start__' }] },
        ],
      }),
    });
    expect(res.status).toBe(422);
    await expect(client.threads.get(threadId)).rejects.toSatisfy((e) => status(e) === 404);
    await expect(client.threads.getHistory(threadId)).rejects.toSatisfy((e) => status(e) === 404);
  });

  it('patchState merges metadata into the latest checkpoint', async () => {
    const thread = await client.threads.create();
    await expect(client.threads.patchState(thread.thread_id, { reviewed: true })).rejects.toSatisfy(
      (e) => status(e) === 409,
    );
    await client.runs.wait(thread.thread_id, 'agent', { input: human('hello') });
    const before = await client.threads.getState(thread.thread_id);
    await client.threads.patchState(thread.thread_id, { reviewed: true });
    const after = await client.threads.getState(thread.thread_id);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(after.metadata).toMatchObject({ ...before.metadata, reviewed: true });
    expect(after.values).toEqual(before.values);
    await client.threads.patchState({ configurable: { thread_id: thread.thread_id } }, { round: 2 });
    expect((await client.threads.getState(thread.thread_id)).metadata).toMatchObject({ reviewed: true, round: 2 });
    await expect(other.threads.patchState(thread.thread_id, { x: 1 })).rejects.toSatisfy((e) => status(e) === 404);
  });

  it('a thread past its TTL is deleted; keep_latest keeps only its latest checkpoint; a change starts the TTL again', async () => {
    const gone = await client.threads.create({ ttl: 0.005 }); // 0.3 s
    expect((gone as any).ttl).toMatchObject({ strategy: 'delete', ttl_minutes: 0.005 });
    const kept = await client.threads.create({ ttl: { ttl: 0.01, strategy: 'keep_latest' } as any });
    await client.runs.wait(kept.thread_id, 'agent', { input: human('one') });
    await client.runs.wait(kept.thread_id, 'agent', { input: human('two') });
    const latest = await client.threads.getState(kept.thread_id);
    const lasting = await client.threads.create({ ttl: 60 });

    await expect.poll(() => client.threads.get(gone.thread_id).catch(status), { timeout: 30_000 }).toBe(404);
    await expect
      .poll(async () => (await client.threads.getHistory(kept.thread_id, { limit: 100 })).length, { timeout: 30_000 })
      .toBe(1);
    const pruned = await client.threads.getState(kept.thread_id);
    expect(pruned.values).toEqual(latest.values);
    expect(pruned.checkpoint.checkpoint_id).toBe(latest.checkpoint.checkpoint_id);
    const resumed = (await client.runs.wait(kept.thread_id, 'agent', { input: human('three') })) as any;
    expect(resumed.messages).toHaveLength(6);
    expect((await client.threads.get(lasting.thread_id)).thread_id).toBe(lasting.thread_id);

    // A TTL set later, by PATCH, counts from the change.
    const later = await client.threads.create();
    const patched = await client.threads.update(later.thread_id, { ttl: 0.005 });
    expect((patched as any).ttl).toMatchObject({ ttl_minutes: 0.005, expires_at: expect.any(String) });
    await expect.poll(() => client.threads.get(later.thread_id).catch(status), { timeout: 30_000 }).toBe(404);

    // A TTL past any date (10^14 minutes) is refused, naming it, and nothing is created.
    const before = await client.threads.count();
    await expect(client.threads.create({ ttl: 1e14 })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/ttl/),
    });
    await expect(client.threads.update(lasting.thread_id, { ttl: 1e14 })).rejects.toMatchObject({ status: 422 });
    expect(await client.threads.count()).toBe(before);
    expect(await client.threads.search({ limit: 1000 })).toHaveLength(before);
  });

  it('prune from the Python SDK: delete, and keep_latest; another workspace’s threads are not pruned', async () => {
    const a = await client.threads.create();
    const b = await client.threads.create();
    await client.runs.wait(b.thread_id, 'agent', { input: human('one') });
    await client.runs.wait(b.thread_id, 'agent', { input: human('two') });
    const theirs = await other.threads.create();
    const { result } = await runPythonScript<any>(
      pyenv,
      'langgraph_sdk_threads.py',
      [on.server.url, a.thread_id, b.thread_id, theirs.thread_id, randomUUID()],
      { LANGGRAPH_API_KEY: apiKey },
    );
    expect(result).toMatchObject({
      pruned_delete: { pruned_count: 1 },
      deleted_status: 404,
      pruned_keep: { pruned_count: 1 },
      kept_history: 1,
      kept_messages: 4,
      copy_metadata: { graph_id: 'agent' },
      copy_history: 1,
      ttl: { strategy: 'delete', ttl_minutes: 30 },
    });
    expect((await other.threads.get(theirs.thread_id)).thread_id).toBe(theirs.thread_id);
  });
});
