// Thread ids are per workspace: two workspaces on one agent server may each have a thread of one
// id, each its own (records, checkpoints, runs and their queue). Neither learns that the other has
// it (no 409, no 404 where its own would be), neither can take an id from the other, and nothing
// one does to its thread (runs, a busy thread, cancels, deletes) shows in, or blocks, the other's.
// Both stores (memory, and PostgreSQL with its shared run queue) are checked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentServer, startAgentServerOn, type AgentServerOnStore } from '../../../support/agentServer.ts';
import { createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';
import { sseEvents } from '../../../support/sseEvents.ts';

type Res = { status: number; body: any; text: string };

let server: AgentServer;
let a: Workspace;
let b: Workspace;
let current: AgentServerOnStore | undefined;

async function send(ws: Workspace, method: string, path: string, json?: unknown): Promise<Res> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': ws.apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* SSE or empty */
  }
  return { status: res.status, body, text };
}

async function expectStatus(res: Promise<Res>, status: number, what: string): Promise<Res> {
  const r = await res;
  expect(r.status, `${what}: ${r.status} ${r.text.slice(0, 300)}`).toBe(status);
  return r;
}

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const texts = (values: any): string[] => (values?.messages ?? []).map((m: any) => m.content);
const runOn = (ws: Workspace, threadId: string, content: string, extra: Record<string, unknown> = {}) =>
  expectStatus(
    send(ws, 'POST', `/threads/${threadId}/runs/wait`, { assistant_id: 'agent', input: human(content), ...extra }),
    200,
    `${content}: a run`,
  );

afterAll(() => current?.stop());

describe.each(['memory', 'postgres'] as const)('%s store', (store) => {
  beforeAll(async () => {
    await current?.stop();
    current = await startAgentServerOn(store, 'thread-ids');
    server = current.server;
    [a, b] = (await createWorkspaces(2)) as [Workspace, Workspace];
  }, 120_000);

  it('a thread id another workspace has is a new thread of the caller’s own, also with if_exists do_nothing', async () => {
    const t = randomUUID();
    await expectStatus(send(a, 'POST', '/threads', { thread_id: t, metadata: { owner: 'A' } }), 200, 'A creates T');
    const created = await expectStatus(
      send(b, 'POST', '/threads', { thread_id: t, metadata: { owner: 'B' } }),
      200,
      'B creates T',
    );
    expect(created.body).toMatchObject({ thread_id: t, metadata: { owner: 'B' }, values: {} });
    const again = await expectStatus(
      send(b, 'POST', '/threads', { thread_id: t, if_exists: 'do_nothing', metadata: { owner: 'B again' } }),
      200,
      'B, do_nothing',
    );
    expect(again.body.metadata).toEqual({ owner: 'B' });
    // within a workspace an id is still taken
    await expectStatus(send(a, 'POST', '/threads', { thread_id: t }), 409, 'A creates T again');
    expect((await send(a, 'GET', `/threads/${t}`)).body.metadata).toEqual({ owner: 'A' });
    expect((await send(b, 'GET', `/threads/${t}`)).body.metadata).toEqual({ owner: 'B' });
    const [searchA, searchB] = await Promise.all([a, b].map((ws) => send(ws, 'POST', '/threads/search', { ids: [t] })));
    expect(searchA!.body.map((x: any) => x.metadata.owner)).toEqual(['A']);
    expect(searchB!.body.map((x: any) => x.metadata.owner)).toEqual(['B']);
  });

  it('each workspace runs on its own thread of one id and reads only its own state, history and runs', async () => {
    const t = randomUUID();
    await Promise.all(
      [a, b].map((ws) => expectStatus(send(ws, 'POST', '/threads', { thread_id: t }), 200, 'create T')),
    );
    // at once: neither thread is busy for the other's run
    const [valuesA, valuesB] = await Promise.all([runOn(a, t, 'hello from A'), runOn(b, t, 'hello from B')]);
    expect(texts(valuesA!.body)).toEqual(['hello from A', 'Turn 1: you said "hello from A"']);
    expect(texts(valuesB!.body)).toEqual(['hello from B', 'Turn 1: you said "hello from B"']);
    await runOn(a, t, 'again from A');

    for (const [ws, own, turns] of [
      [a, 'A', 2],
      [b, 'B', 1],
    ] as const) {
      const state = await expectStatus(send(ws, 'GET', `/threads/${t}/state`), 200, `${own}: state`);
      expect(texts(state.body.values).filter((x) => x.startsWith('hello') || x.startsWith('again'))).toEqual(
        own === 'A' ? ['hello from A', 'again from A'] : ['hello from B'],
      );
      // checkpoints name the thread by the id the client chose
      expect(state.body.checkpoint.thread_id).toBe(t);
      const history = await expectStatus(
        send(ws, 'POST', `/threads/${t}/history`, { limit: 100 }),
        200,
        `${own}: history`,
      );
      expect(history.body.length).toBeGreaterThan(0);
      for (const h of history.body) {
        expect(h.checkpoint.thread_id).toBe(t);
        if (h.parent_checkpoint) expect(h.parent_checkpoint.thread_id).toBe(t);
        expect(JSON.stringify(h.values)).not.toContain(own === 'A' ? 'from B' : 'from A');
      }
      const atCheckpoint = await expectStatus(
        send(ws, 'GET', `/threads/${t}/state/${state.body.checkpoint.checkpoint_id}`),
        200,
        `${own}: state at its checkpoint`,
      );
      expect(atCheckpoint.body.values).toEqual(state.body.values);
      const runs = await expectStatus(send(ws, 'GET', `/threads/${t}/runs`), 200, `${own}: runs`);
      expect(runs.body).toHaveLength(turns);
      expect((await send(ws, 'GET', `/threads/${t}`)).body.values.messages).toHaveLength(turns * 2);
    }
    // the other's checkpoint is not a state of this thread
    const checkpointOfB = (await send(b, 'GET', `/threads/${t}/state`)).body.checkpoint.checkpoint_id;
    const asA = await send(a, 'POST', `/threads/${t}/state/checkpoint`, {
      checkpoint: { checkpoint_id: checkpointOfB },
    });
    expect(JSON.stringify(asA.body)).not.toContain('from B');
  });

  it('a run of the other workspace’s thread of the same id is not found through the caller’s: get, join, stream, cancel, delete', async () => {
    const t = randomUUID();
    await Promise.all(
      [a, b].map((ws) => expectStatus(send(ws, 'POST', '/threads', { thread_id: t }), 200, 'create T')),
    );
    const finished = await expectStatus(
      send(a, 'POST', `/threads/${t}/runs`, { assistant_id: 'agent', input: human('finished of A') }),
      200,
      'A: a run',
    );
    await expectStatus(send(a, 'GET', `/threads/${t}/runs/${finished.body.run_id}/join`), 200, 'A joins its run');
    const pending = await expectStatus(
      send(a, 'POST', `/threads/${t}/runs`, { assistant_id: 'agent', input: human('later'), after_seconds: 600 }),
      200,
      'A: a pending run',
    );
    for (const run of [finished.body.run_id, pending.body.run_id]) {
      for (const [method, path] of [
        ['GET', `/threads/${t}/runs/${run}`],
        ['GET', `/threads/${t}/runs/${run}/join`],
        ['GET', `/threads/${t}/runs/${run}/stream`],
        ['POST', `/threads/${t}/runs/${run}/cancel`],
        ['DELETE', `/threads/${t}/runs/${run}`],
      ] as const) {
        const res = await send(b, method, path);
        expect(res.status, `B: ${method} ${path}: ${res.text.slice(0, 200)}`).toBe(404);
      }
    }
    expect((await send(a, 'GET', `/threads/${t}/runs/${pending.body.run_id}`)).body.status).toBe('pending');
    // A's pending run keeps A's thread busy, not B's: B runs on its T (multitask_strategy reject)
    expect((await send(a, 'GET', `/threads/${t}`)).body.status).toBe('busy');
    const streamed = await expectStatus(
      send(b, 'POST', `/threads/${t}/runs/stream`, {
        assistant_id: 'agent',
        input: human('streamed by B'),
        stream_mode: ['values'],
      }),
      200,
      'B streams a run',
    );
    const values = sseEvents(streamed.text).filter((e) => e.event === 'values');
    expect(texts(JSON.parse(values.at(-1)!.data))).toEqual(['streamed by B', 'Turn 1: you said "streamed by B"']);
    await expectStatus(
      send(a, 'POST', `/threads/${t}/runs/${pending.body.run_id}/cancel?wait=true`),
      202,
      'A cancels its pending run',
    );
    expect((await send(a, 'GET', `/threads/${t}/runs/${pending.body.run_id}`)).body.status).toBe('interrupted');
    expect((await send(b, 'GET', `/threads/${t}/runs`)).body.map((r: any) => r.status)).toEqual(['success']);
  });

  it('deleting a thread deletes the caller’s only: the other workspace’s thread of that id keeps its state and runs', async () => {
    const t = randomUUID();
    await Promise.all(
      [a, b].map((ws) => expectStatus(send(ws, 'POST', '/threads', { thread_id: t }), 200, 'create T')),
    );
    await Promise.all([runOn(a, t, 'from A'), runOn(b, t, 'from B')]);
    await expectStatus(send(a, 'DELETE', `/threads/${t}`), 204, 'A deletes T');
    await expectStatus(send(a, 'GET', `/threads/${t}`), 404, 'A: T is gone');
    const state = await expectStatus(send(b, 'GET', `/threads/${t}/state`), 200, 'B: state');
    expect(texts(state.body.values)).toEqual(['from B', 'Turn 1: you said "from B"']);
    expect((await send(b, 'GET', `/threads/${t}/runs`)).body).toHaveLength(1);
    // and A may make a new T, which starts empty
    await expectStatus(send(a, 'POST', '/threads', { thread_id: t }), 200, 'A creates T anew');
    expect((await runOn(a, t, 'A anew')).body.messages).toHaveLength(2);
  });

  it('an id the other workspace took first does not block the caller: create, and a run with if_not_exists create', async () => {
    const [t, u] = [randomUUID(), randomUUID()];
    await expectStatus(send(b, 'POST', '/threads', { thread_id: t, metadata: { owner: 'B' } }), 200, 'B takes T');
    await runOn(b, u, 'B takes U', { if_not_exists: 'create' });
    expect(
      (await expectStatus(send(a, 'POST', '/threads', { thread_id: t }), 200, 'A creates T')).body.metadata,
    ).toEqual({});
    expect(texts((await runOn(a, u, 'A on U', { if_not_exists: 'create' })).body)).toEqual([
      'A on U',
      'Turn 1: you said "A on U"',
    ]);
    // without if_not_exists, a thread the caller does not have is not found, whoever has it
    await expectStatus(
      send(a, 'POST', `/threads/${randomUUID()}/runs/wait`, { assistant_id: 'agent', input: human('none') }),
      404,
      'A: an unknown thread',
    );
    expect(texts((await send(b, 'GET', `/threads/${u}/state`)).body.values)).toEqual([
      'B takes U',
      'Turn 1: you said "B takes U"',
    ]);
  });

  it('an A2A contextId is a thread of the caller’s workspace: the same contextId is two conversations', async () => {
    const contextId = randomUUID();
    const say = (ws: Workspace, text: string) =>
      send(ws, 'POST', '/a2a/agent', {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: randomUUID(),
            contextId,
            parts: [{ kind: 'text', text }],
          },
        },
      });
    for (const [ws, text] of [
      [a, 'A over A2A'],
      [b, 'B over A2A'],
      [a, 'A again over A2A'],
    ] as const) {
      const res = await say(ws, text);
      expect(res.body.result?.status?.state, JSON.stringify(res.body)).toBe('completed');
      expect(res.body.result.contextId).toBe(contextId);
    }
    expect(
      texts((await send(a, 'GET', `/threads/${contextId}/state`)).body.values).filter((x) => !x.startsWith('Turn')),
    ).toEqual(['A over A2A', 'A again over A2A']);
    expect(
      texts((await send(b, 'GET', `/threads/${contextId}/state`)).body.values).filter((x) => !x.startsWith('Turn')),
    ).toEqual(['B over A2A']);
  });
});
