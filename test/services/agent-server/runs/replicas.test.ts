// Agent-server replicas on one PostgreSQL database share the work (runs/postgresRunQueue.ts):
// runs created on any replica execute exactly once, one at a time per thread across replicas;
// join, stream and cancel work from any replica; and a replica killed mid-run leaves its run
// failed (within the lease) and its thread free for the runs queued behind it. Two workspaces'
// threads of one id are two threads, each with its own queue. The store's items are the same
// through every replica. Through the official LangGraph JS client, against three server processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';
import { startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import { waitFor } from '../../../support/serviceProcess.ts';
import { readSseUntil } from '../../../support/sseEvents.ts';
import { createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';
import { randomUUID } from 'node:crypto';

const LEASE_MS = 2000;
let db: ScratchPostgres;
let configFile: string;
const replicas: AgentServer[] = [];
const clients: Client[] = [];

async function startReplica(i: number): Promise<void> {
  const server = await startAgentServer(`replica-${i}`, {
    configFile,
    env: { ...db.agentServerEnv, AGENT_SERVER_RUN_LEASE_MS: String(LEASE_MS) },
  });
  replicas[i] = server;
  clients[i] = new Client({ apiUrl: server.url, apiKey: server.apiKey });
}

beforeAll(async () => {
  db = await scratchPostgres('agent_replicas');
  const fixtures = join(import.meta.dirname, '..', 'fixtures');
  configFile = writeAgentConfig({
    graphs: {
      probe: `${join(fixtures, 'replicaProbeGraph.ts')}:graph`,
      slow: `${join(fixtures, 'slowGraph.ts')}:graph`,
      configured: `${join(fixtures, 'assistantConfigGraph.ts')}:graph`,
    },
  });
  await Promise.all([0, 1, 2].map(startReplica));
}, 120_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r?.stop()));
  await db?.drop();
});

interface Ran {
  run_id: string;
  replica: string;
  start: number;
  end: number;
}

const ranOf = (values: any): Ran[] =>
  (values.messages ?? []).filter((m: any) => m.type === 'ai').map((m: any) => JSON.parse(m.content));
const probeInput = (ms: number) => ({ messages: [{ role: 'user', content: 'probe' }], ms });

describe('agent-server replicas on one database', () => {
  it('share assistants: created on one, changed on another, read and run through any; a queued run keeps its version', async () => {
    const created = await clients[0]!.assistants.create({
      graphId: 'configured',
      name: 'shared',
      config: { configurable: { model: 'v1' } },
    });
    await clients[1]!.assistants.update(created.assistant_id, { config: { configurable: { model: 'v2' } } });
    expect((await clients[2]!.assistants.getVersions(created.assistant_id)).map((v) => v.version)).toEqual([2, 1]);
    expect((await clients[0]!.assistants.get(created.assistant_id)).version).toBe(2);
    await clients[2]!.assistants.setLatest(created.assistant_id, 1);
    const runs = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => clients[i % 3]!.runs.wait(null, created.assistant_id, { input: {} })),
    );
    expect(runs.map((r: any) => r.seen.model)).toEqual(Array(6).fill('v1'));

    // A run waiting to start keeps the version it was created on, wherever it runs.
    const thread = await clients[0]!.threads.create();
    const queued = await clients[0]!.runs.create(thread.thread_id, created.assistant_id, {
      input: {},
      afterSeconds: 1,
    });
    await clients[1]!.assistants.update(created.assistant_id, { config: { configurable: { model: 'v3' } } });
    expect(((await clients[2]!.runs.join(thread.thread_id, queued.run_id)) as any).seen.model).toBe('v1');
    expect(((await clients[1]!.runs.wait(null, created.assistant_id, { input: {} })) as any).seen.model).toBe('v3');
  });

  it('share the store: an item put through one replica is read, searched and deleted through the others', async () => {
    const ns = ['replicas', randomUUID()];
    await clients[0]!.store.putItem(ns, 'k', { from: 'replica-0' });
    expect((await clients[1]!.store.getItem(ns, 'k'))?.value).toEqual({ from: 'replica-0' });
    await clients[2]!.store.putItem(ns, 'k2', { from: 'replica-2' });
    expect((await clients[1]!.store.searchItems(ns)).items.map((i) => i.key).sort()).toEqual(['k', 'k2']);
    expect((await clients[0]!.store.listNamespaces({ prefix: ns })).namespaces).toEqual([ns]);
    await clients[1]!.store.deleteItem(ns, 'k');
    expect(await clients[2]!.store.getItem(ns, 'k')).toBeNull();
  });

  it('share the runs: each runs once, one at a time per thread, whichever replica took the request', async () => {
    const threads = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => clients[i % 3]!.threads.create()));
    // five runs per thread, all sent at once, each through the next replica: most wait in the queue
    const created = await Promise.all(
      threads.flatMap((thread, t) =>
        [0, 1, 2, 3, 4].map(async (k) => {
          const via = (t + k) % 3;
          const run = await clients[via]!.runs.create(thread.thread_id, 'probe', {
            input: probeInput(40),
            multitaskStrategy: 'enqueue',
          });
          return { thread: thread.thread_id, run: run.run_id, via };
        }),
      ),
    );
    // and stateless runs beside them, answered by whichever replica took them
    const stateless = await Promise.all(
      [...Array(12).keys()].map((i) => clients[i % 3]!.runs.wait(null, 'probe', { input: probeInput(5) })),
    );
    for (const values of stateless) expect(ranOf(values)).toHaveLength(1);

    // each run joined through a replica other than the one that created it
    for (const { thread, run, via } of created) await clients[(via + 1) % 3]!.runs.join(thread, run);
    const replicasUsed = new Set<string>();
    for (const thread of threads) {
      const runs = await clients[0]!.runs.list(thread.thread_id, { limit: 10 });
      expect(runs.map((r) => r.status)).toEqual(['success', 'success', 'success', 'success', 'success']);
      const ran = ranOf((await clients[1]!.threads.getState(thread.thread_id)).values);
      // exactly once each, in the order they were queued... (enqueue: one after the other)
      expect(ran.map((r) => r.run_id).sort()).toEqual(runs.map((r) => r.run_id).sort());
      // ...never two at once on the thread, whichever replicas ran them
      for (let i = 1; i < ran.length; i++)
        expect(ran[i]!.start, JSON.stringify(ran)).toBeGreaterThanOrEqual(ran[i - 1]!.end);
      for (const r of ran) replicasUsed.add(r.replica);
      expect((await clients[2]!.threads.get(thread.thread_id)).status).toBe('idle');
    }
    // the queue spread the work: runs created on one replica ran on others
    expect(replicasUsed.size).toBeGreaterThan(1);
  });

  it('join, stream and cancel a run from any replica', async () => {
    const [a, b, c] = clients as [Client, Client, Client];
    const thread = await a.threads.create();
    const slow = await a.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      streamMode: ['custom', 'values'],
    });
    // B streams the run A executes: relayed from A, from the first event
    const seen: string[] = [];
    const streaming = (async () => {
      for await (const event of b.runs.joinStream(thread.thread_id, slow.run_id, { streamMode: ['custom'] } as never))
        seen.push(event.event);
    })();
    await waitFor('the slow run’s first event, through B', async () => seen.includes('custom'), 20_000, 50);
    // a run queued behind it, created on C, waits
    const queued = await c.runs.create(thread.thread_id, 'probe', {
      input: probeInput(10),
      multitaskStrategy: 'enqueue',
    });
    expect((await b.runs.get(thread.thread_id, queued.run_id)).status).toBe('pending');
    // C cancels A's run and waits for it to stop; the stream B relays ends
    await c.runs.cancel(thread.thread_id, slow.run_id, true);
    await streaming;
    expect(seen[0]).toBe('metadata');
    expect((await a.runs.get(thread.thread_id, slow.run_id)).status).toBe('interrupted');
    // the queued run goes next, and a join from B answers its values
    const values: any = await b.runs.join(thread.thread_id, queued.run_id);
    expect(ranOf(values).map((r) => r.run_id)).toEqual([queued.run_id]);
    // cancelling a finished run is refused on every replica
    for (const client of clients)
      await expect(client.runs.cancel(thread.thread_id, queued.run_id)).rejects.toThrow(/409/);
    // and a queued run is cancelled from a replica that neither created nor runs anything of it
    const blocker = await a.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      multitaskStrategy: 'enqueue',
    });
    const waiting = await b.runs.create(thread.thread_id, 'probe', {
      input: probeInput(10),
      multitaskStrategy: 'enqueue',
    });
    await c.runs.cancel(thread.thread_id, waiting.run_id, true);
    expect((await a.runs.get(thread.thread_id, waiting.run_id)).status).toBe('interrupted');
    await b.runs.cancel(thread.thread_id, blocker.run_id, true);
    expect((await c.runs.get(thread.thread_id, blocker.run_id)).status).toBe('interrupted');
    expect((await a.threads.get(thread.thread_id)).status).toBe('idle');
  });

  it('a queued run is streamed by the server that took the request, whichever server claims it', async () => {
    const [a, b, c] = clients as [Client, Client, Client];
    const ranOn: string[] = [];
    for (let i = 0; i < 3; i++) {
      const thread = await a.threads.create();
      const slow = await a.runs.create(thread.thread_id, 'slow', { input: { messages: [] } });
      await waitFor(
        'the slow run to run',
        async () => (await b.runs.get(thread.thread_id, slow.run_id)).status === 'running',
        20_000,
        50,
      );
      const events: string[] = [];
      let last: unknown;
      const streaming = (async () => {
        for await (const event of c.runs.stream(thread.thread_id, 'probe', {
          input: probeInput(10),
          multitaskStrategy: 'enqueue',
          streamMode: ['values', 'custom'],
        })) {
          events.push(event.event);
          last = event.data;
        }
      })();
      await waitFor(
        'the queued run',
        async () => (await a.runs.list(thread.thread_id, { status: 'pending' })).length === 1,
        20_000,
        50,
      );
      await b.runs.cancel(thread.thread_id, slow.run_id, true);
      await streaming;
      expect(events[0]).toBe('metadata');
      expect(events).toContain('custom');
      expect(events.at(-1)).toBe('values');
      ranOn.push(ranOf(last)[0]!.replica);
      expect((await a.threads.get(thread.thread_id)).status).toBe('idle');
    }
    // relayed whenever another server than C ran it
    console.log(
      `queued runs streamed through C ran on ${ranOn.map((port) => (port === replicas[2]!.env.AGENT_SERVER_PORT ? 'C' : 'another server')).join(', ')}`,
    );
  });

  it('two workspaces’ threads of one id are two threads: each queue runs its own runs, and neither waits for the other', async () => {
    const [wsA, wsB] = (await createWorkspaces(2)) as [Workspace, Workspace];
    const via = (ws: Workspace, i: number) => new Client({ apiUrl: replicas[i]!.url, apiKey: ws.apiKey });
    const t = randomUUID();
    await via(wsA, 0).threads.create({ threadId: t });
    await via(wsB, 1).threads.create({ threadId: t });
    // A's thread is busy with a slow run...
    const slow = await via(wsA, 0).runs.create(t, 'slow', { input: { messages: [] } });
    await waitFor(
      'A’s slow run to run',
      async () => (await via(wsA, 1).runs.get(t, slow.run_id)).status === 'running',
      20_000,
      50,
    );
    // ...B's is not: a run that may not wait (multitask_strategy reject) runs at once
    expect(ranOf(await via(wsB, 2).runs.wait(t, 'probe', { input: probeInput(5) }))).toHaveLength(1);
    // runs queued on both through every replica: A's wait behind the slow run, B's run now
    const queued = await Promise.all(
      [wsA, wsB].flatMap((ws) =>
        [0, 1, 2].map(async (i) => ({
          ws,
          run: await via(ws, i).runs.create(t, 'probe', { input: probeInput(20), multitaskStrategy: 'enqueue' }),
        })),
      ),
    );
    for (const { ws, run } of queued.filter((q) => q.ws === wsB)) await via(ws, 0).runs.join(t, run.run_id);
    expect((await via(wsA, 2).runs.list(t, { status: 'pending' })).length).toBe(3);
    await via(wsA, 1).runs.cancel(t, slow.run_id, true);
    for (const { ws, run } of queued.filter((q) => q.ws === wsA)) await via(ws, 2).runs.join(t, run.run_id);

    for (const [ws, own] of [
      [wsA, 3],
      [wsB, 4],
    ] as const) {
      const runs = await via(ws, 0).runs.list(t, { limit: 10 });
      const ran = ranOf((await via(ws, 1).threads.getState(t)).values);
      // each of the workspace's runs once, on its own thread only, one at a time
      expect(ran.map((r) => r.run_id).sort()).toEqual(
        runs
          .filter((r) => r.status === 'success')
          .map((r) => r.run_id)
          .sort(),
      );
      expect(ran).toHaveLength(own);
      for (let i = 1; i < ran.length; i++)
        expect(ran[i]!.start, JSON.stringify(ran)).toBeGreaterThanOrEqual(ran[i - 1]!.end);
      expect((await via(ws, 2).threads.get(t)).status).toBe('idle');
    }
    expect((await via(wsA, 0).runs.get(t, slow.run_id)).status).toBe('interrupted');
    await expect(via(wsB, 0).runs.get(t, slow.run_id)).rejects.toThrow(/404/);
  });

  it('a thread’s stream on one replica follows runs created and run on the others; a stateless run streams from any', async () => {
    const [a, b, c] = clients as [Client, Client, Client];
    const thread = await a.threads.create();
    // B's stream is watching once its headers are here: runs created from then on are followed
    const watching = await fetch(`${replicas[1]!.url}/threads/${thread.thread_id}/stream`, {
      headers: replicas[1]!.headers,
    });
    expect(watching.status).toBe(200);
    const reading = readSseUntil(watching, (seen) => seen.filter((p) => p.data?.status === 'run_done').length === 2);
    // a run created and run on A, then one queued on C behind a slow one that C's cancel ends
    const first = await a.runs.create(thread.thread_id, 'probe', { input: probeInput(5) });
    const slow = await a.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      multitaskStrategy: 'enqueue',
    });
    const queued = await c.runs.create(thread.thread_id, 'probe', {
      input: probeInput(20),
      multitaskStrategy: 'enqueue',
    });
    await c.runs.cancel(thread.thread_id, slow.run_id);
    const parts = await reading;
    const done = parts.filter((p) => p.data?.status === 'run_done').map((p) => p.data.run_id);
    expect(done).toEqual([first.run_id, slow.run_id]);
    // ...and the queued run after them, resumed after the slow run's end (its events from its start)
    // through the server that ran it: a finished run's events are held where it ran
    const ran = ranOf(await b.runs.join(thread.thread_id, queued.run_id));
    expect(ran.map((r) => r.run_id)).toEqual([first.run_id, queued.run_id]);
    const ranOn = replicas.find((r) => r?.env.AGENT_SERVER_PORT === ran[1]!.replica)!;
    const rest = await readSseUntil(
      await fetch(`${ranOn.url}/threads/${thread.thread_id}/stream`, {
        headers: { ...ranOn.headers, 'last-event-id': `${slow.run_id}:done` },
      }),
      (seen) => seen.some((p) => p.data?.status === 'run_done'),
    );
    expect(rest[0]).toMatchObject({ event: 'metadata', data: { run_id: queued.run_id } });
    expect(rest.at(-1)).toMatchObject({ id: `${queued.run_id}:done` });

    // a stateless background run created on A, streamed through B and C (relayed from where it runs)
    const stateless = await a.runs.create(null, 'probe', { input: probeInput(300), streamMode: ['values', 'custom'] });
    const [viaB, viaC] = await Promise.all(
      [b, c].map(async (client) => {
        const events: string[] = [];
        for await (const part of client.runs.joinStream(null, stateless.run_id)) events.push(part.event);
        return events;
      }),
    );
    for (const events of [viaB, viaC]) expect(events).toEqual(['metadata', 'values', 'custom', 'values']);
  });

  it('a replica killed mid-run leaves the run failed within the lease, and the runs queued behind it run elsewhere', async () => {
    const [, b, c] = clients as [Client, Client, Client];
    const thread = await c.threads.create();
    // the slow run starts on replica 0, which is then killed
    const doomed = await clients[0]!.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      streamMode: ['custom'],
    });
    for await (const event of clients[0]!.runs.joinStream(thread.thread_id, doomed.run_id))
      if (event.event === 'custom') break;
    const next = await b.runs.create(thread.thread_id, 'probe', {
      input: probeInput(10),
      multitaskStrategy: 'enqueue',
    });
    const joined = c.runs.join(thread.thread_id, doomed.run_id);
    const killedAt = Date.now();
    await replicas[0]!.process.kill('SIGKILL');

    // C's join answers once a survivor has failed the run: never stuck
    expect(await joined).toMatchObject({ __error__: { error: 'AgentServerGone' } });
    const failedAfter = Date.now() - killedAt;
    expect((await b.runs.get(thread.thread_id, doomed.run_id)).status).toBe('error');
    // the run queued behind it runs on a survivor
    const values: any = await c.runs.join(thread.thread_id, next.run_id);
    const ran = ranOf(values);
    expect(ran.map((r) => r.run_id)).toEqual([next.run_id]);
    expect(ran[0]!.replica).not.toBe(replicas[0]!.env.AGENT_SERVER_PORT);
    expect((await b.threads.get(thread.thread_id)).status).toBe('idle');
    console.log(`a killed replica's run was failed ${failedAfter} ms after the kill (lease ${LEASE_MS} ms)`);

    // the survivors keep serving, and a replica started again takes work
    await startReplica(0);
    const again: any = await clients[0]!.runs.wait(thread.thread_id, 'probe', { input: probeInput(5) });
    expect(ranOf(again)).toHaveLength(2);
  });
});
