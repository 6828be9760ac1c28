// Crons through the official JS LangGraph SDK (@langchain/langgraph-sdk 2.x, and the 1.x copy
// @langchain/react brings, which sends more fields), unchanged, and the official Python SDK
// (test/e2e/python/langgraph_sdk_crons.py), against our agent server in memory mode and on
// PostgreSQL: every method of the crons client, the errors a user meets (404, 422 naming the
// field), another workspace's crons as absent as unknown ones, and, on PostgreSQL, the runs the
// crons start when due (a cron is made due by setting its next_run_date in the table, rather than
// waiting for a minute to turn: the scheduler, the claim and the runs are the real ones; with
// memory persistence the scheduler is tested in-process, test/services/agent-server/crons/).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { startAgentServerOn, type AgentServerOnStore } from '../support/agentServer.ts';
import { createWorkspaces, type Workspace } from '../support/tracingClient.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { waitFor } from '../support/serviceProcess.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The 1.x client @langchain/react depends on (its own copy of the SDK). */
async function legacyClient(apiUrl: string, apiKey: string): Promise<any> {
  const fromReact = createRequire(createRequire(import.meta.url).resolve('@langchain/react'));
  const entry = fromReact.resolve('@langchain/langgraph-sdk').replace(/index\.cjs$/, 'index.js');
  const sdk = (await import(pathToFileURL(entry).href)) as { Client: new (config: object) => any };
  return new sdk.Client({ apiUrl, apiKey });
}

let pyenv: PythonEnv;
beforeAll(async () => {
  pyenv = await ensurePythonEnv();
}, 20 * 60_000);

describe.each(['memory', 'postgres'] as const)('crons, %s store', (storeKind) => {
  let current: AgentServerOnStore;
  let client: Client;
  let counterId: string;
  let db: pg.Client | undefined;

  beforeAll(async () => {
    current = await startAgentServerOn(storeKind, 'sdk-crons');
    client = new Client({ apiUrl: current.server.url, apiKey: current.server.apiKey });
    counterId = (await client.assistants.get('counter')).assistant_id;
    if (storeKind === 'postgres') {
      db = new pg.Client({ connectionString: current.server.env.POSTGRES_URL });
      await db.connect();
    }
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await current?.stop();
  });

  /** Makes crons due now, as their tick would (PostgreSQL only). */
  const makeDue = async (...cronIds: string[]) => {
    await db!.query('UPDATE agent_crons SET next_run_date = now() WHERE cron_id = ANY($1::uuid[])', [cronIds]);
  };

  it('/info says crons are served', async () => {
    const info: any = await (await fetch(`${current.server.url}/info`)).json();
    expect(info.flags.crons).toBe(true);
  });

  it('every CronsClient method: createForThread, create, update, search, count, delete', async () => {
    const tag = `sdk-${storeKind}-${Date.now()}`;
    const thread = await client.threads.create();
    const onThread = await client.crons.createForThread(thread.thread_id, 'counter', {
      schedule: '*/5 * * * *',
      input: { count: 0 },
      metadata: { tag, kind: 'thread' },
      interruptBefore: ['increment'],
      multitaskStrategy: 'enqueue',
    });
    expect(onThread).toMatchObject({
      assistant_id: counterId,
      thread_id: thread.thread_id,
      schedule: '*/5 * * * *',
      end_time: null,
      enabled: true,
      user_id: null,
      metadata: { tag, kind: 'thread' },
      payload: { assistant_id: 'counter', input: { count: 0 }, interrupt_before: ['increment'] },
    });
    expect(onThread.cron_id).toMatch(UUID);
    const next = new Date(onThread.next_run_date);
    expect(next.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(next.getUTCMinutes() % 5).toBe(0);
    expect(next.getUTCSeconds()).toBe(0);

    const stateless = await client.crons.create('counter', {
      schedule: '@daily',
      metadata: { tag, kind: 'stateless' },
      onRunCompleted: 'keep',
      enabled: false,
    });
    expect(stateless).toMatchObject({ thread_id: null, on_run_completed: 'keep', enabled: false, schedule: '@daily' });
    expect(stateless.next_run_date).toMatch(/T00:00:00\.000Z$/);
    const defaults = await client.crons.create(counterId, { schedule: '0 12 * * *', metadata: { tag } });
    expect(defaults).toMatchObject({ on_run_completed: 'delete', thread_id: null, assistant_id: counterId });

    // search: by thread, by assistant (graph name or id), enabled, sorted, paged, selected fields
    const ids = (crons: { cron_id: string }[]) => crons.map((c) => c.cron_id);
    expect(ids(await client.crons.search({ threadId: thread.thread_id }))).toEqual([onThread.cron_id]);
    expect(ids(await client.crons.search({ assistantId: 'counter', limit: 100 })).sort()).toEqual(
      [onThread.cron_id, stateless.cron_id, defaults.cron_id].sort(),
    );
    expect(ids(await client.crons.search({ assistantId: counterId, enabled: false }))).toEqual([stateless.cron_id]);
    const byNextRun = [onThread, defaults, stateless].sort(
      (x, y) => Date.parse(x.next_run_date) - Date.parse(y.next_run_date),
    );
    expect(ids(await client.crons.search({ sortBy: 'next_run_date', sortOrder: 'asc', limit: 100 }))).toEqual(
      ids(byNextRun),
    );
    const [newest, ...older] = await client.crons.search({ sortBy: 'created_at', sortOrder: 'desc', limit: 1 });
    expect(older).toEqual([]);
    expect(newest!.cron_id).toBe(defaults.cron_id);
    expect(ids(await client.crons.search({ sortBy: 'created_at', sortOrder: 'asc', limit: 1, offset: 1 }))).toEqual([
      stateless.cron_id,
    ]);
    const selected = await client.crons.search({ threadId: thread.thread_id, select: ['cron_id', 'schedule', 'now'] });
    expect(Object.keys(selected[0]!).sort()).toEqual(['cron_id', 'now', 'schedule']);
    expect(await client.crons.search({ assistantId: 'no-such-graph' })).toEqual([]);

    // count
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
    expect(await client.crons.count({ assistantId: 'counter' })).toBe(3);

    // update: metadata merged, a new schedule gives a new next date, an end_time, disabled
    const endTime = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
    const updated = await client.crons.update(onThread.cron_id, {
      schedule: '0 * * * *',
      metadata: { more: 1 },
      endTime,
      input: { count: 5 },
      enabled: false,
    });
    expect(updated).toMatchObject({
      cron_id: onThread.cron_id,
      schedule: '0 * * * *',
      metadata: { tag, kind: 'thread', more: 1 },
      end_time: endTime,
      enabled: false,
      payload: { input: { count: 5 }, interrupt_before: ['increment'] },
    });
    expect(new Date(updated.next_run_date!).getUTCMinutes()).toBe(0);
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(onThread.updated_at));

    // delete; a second delete is a 404
    await client.crons.delete(onThread.cron_id);
    expect(await client.crons.search({ threadId: thread.thread_id })).toEqual([]);
    await expect(client.crons.delete(onThread.cron_id)).rejects.toThrow(/404/);
    await expect(client.crons.update(onThread.cron_id, { enabled: true })).rejects.toThrow(/404/);
  });

  it('the 1.x client (@langchain/react’s): time zone, end_time, metadata filters', async () => {
    const legacy = await legacyClient(current.server.url, current.server.apiKey);
    const tag = `legacy-${storeKind}-${Date.now()}`;
    const thread = await legacy.threads.create();
    const endTime = new Date(Date.now() + 3600_000).toISOString();
    const cron = await legacy.crons.createForThread(thread.thread_id, 'counter', {
      schedule: '30 9 * * *',
      timezone: 'Asia/Kolkata',
      endTime,
      metadata: { tag },
      streamMode: ['values', 'updates'],
      durability: 'async',
    });
    expect(cron).toMatchObject({ timezone: 'Asia/Kolkata', end_time: endTime, metadata: { tag } });
    // 09:30 in India is 04:00 UTC; within the hour's end_time there may be no tick at all
    if (cron.next_run_date !== null) expect(cron.next_run_date).toMatch(/T04:00:00\.000Z$/);
    expect(cron.payload).toMatchObject({ stream_mode: ['values', 'updates'], durability: 'async' });
    expect((await legacy.crons.search({ metadata: { tag } })).map((c: any) => c.cron_id)).toEqual([cron.cron_id]);
    expect(await legacy.crons.count({ metadata: { tag } })).toBe(1);
    // the end_time cleared: the next 04:00 UTC is its next run
    const cleared = await legacy.crons.update(cron.cron_id, { endTime: null, timezone: 'UTC', schedule: '0 4 * * *' });
    expect(cleared).toMatchObject({ end_time: null, timezone: 'UTC' });
    expect(cleared.next_run_date).toMatch(/T04:00:00\.000Z$/);
    await legacy.crons.delete(cron.cron_id);
    expect(await legacy.crons.count({ metadata: { tag } })).toBe(0);
  });

  it('refuses what is not a cron with a 422 naming the field, and unknown threads and assistants with a 404', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${current.server.url}${path}`, {
        method: 'POST',
        headers: { ...current.server.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { error: string; detail: string } };
    };
    const bad = await post('/runs/crons', { assistant_id: 'counter', schedule: '61 * * * *' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/^body\/schedule "61 \* \* \* \*" is not a cron schedule/);
    const seconds = await post('/runs/crons', { assistant_id: 'counter', schedule: '0 0 * * * *' });
    expect(seconds.body.detail).toMatch(/6 fields/);
    const zone = await post('/runs/crons', {
      assistant_id: 'counter',
      schedule: '0 9 * * *',
      timezone: 'Nowhere/Land',
    });
    expect(zone).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/^body\/timezone/) } });
    const missing = await post('/runs/crons', { assistant_id: 'counter' });
    expect(missing).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/schedule/) } });
    const end = await post('/runs/crons', { assistant_id: 'counter', schedule: '0 9 * * *', end_time: 'tomorrow' });
    expect(end).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/end_time/) } });
    // PostgreSQL keeps no NUL character: refused alike in memory (it was a 500 on PostgreSQL)
    const nul = await post('/runs/crons', {
      assistant_id: 'counter',
      schedule: '0 9 * * *',
      metadata: { a: '\u0000' },
    });
    expect(nul).toMatchObject({
      status: 422,
      body: { detail: expect.stringMatching(/^body\/metadata\/a holds a NUL/) },
    });
    const nulSearch = await post('/runs/crons/search', { assistant_id: 'x\u0000' });
    expect(nulSearch).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/^body\/assistant_id/) } });
    // an offset past what PostgreSQL counts in (it was a 500 there)
    const far = await post('/runs/crons/search', { offset: 35187805094050922000 });
    expect(far).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/^body\/offset/) } });
    await expect(client.crons.create('no-such-graph', { schedule: '0 9 * * *' })).rejects.toThrow(/404/);
    await expect(
      client.crons.createForThread(crypto.randomUUID(), 'counter', { schedule: '0 9 * * *' }),
    ).rejects.toThrow(/404/);
    const patch = await fetch(`${current.server.url}/runs/crons/${crypto.randomUUID()}`, {
      method: 'PATCH',
      headers: { ...current.server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ schedule: 'every day' }),
    });
    expect(patch.status).toBe(422);
    // a body-less DELETE with Content-Type: application/json
    const gone = await fetch(`${current.server.url}/runs/crons/${crypto.randomUUID()}`, {
      method: 'DELETE',
      headers: { ...current.server.headers, 'content-type': 'application/json' },
    });
    expect(gone.status).toBe(404);
  });

  it('another workspace’s crons are as absent as unknown ones', async () => {
    const [a, b] = (await createWorkspaces(2)) as [Workspace, Workspace];
    const as = (ws: Workspace) => new Client({ apiUrl: current.server.url, apiKey: ws.apiKey });
    const thread = await as(a).threads.create();
    const cron = await as(a).crons.createForThread(thread.thread_id, 'counter', { schedule: '0 9 * * *' });
    expect(await as(b).crons.search({ limit: 100 })).toEqual([]);
    expect(await as(b).crons.count({})).toBe(0);
    expect(await as(b).crons.search({ threadId: thread.thread_id })).toEqual([]);
    await expect(as(b).crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(/404/);
    await expect(as(b).crons.delete(cron.cron_id)).rejects.toThrow(/404/);
    await expect(as(b).crons.createForThread(thread.thread_id, 'counter', { schedule: '0 9 * * *' })).rejects.toThrow(
      /404/,
    );
    expect((await as(a).crons.search({ limit: 100 })).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    expect((await as(a).crons.search({ threadId: thread.thread_id }))[0]).toMatchObject({ enabled: true });
  });

  it('the Python SDK: create_for_thread, create, update, search, count, delete', async () => {
    const { result } = await runPythonScript<any>(
      pyenv,
      'langgraph_sdk_crons.py',
      [current.server.url, `py-${Date.now()}`],
      {
        LANGGRAPH_API_KEY: current.server.apiKey,
      },
    );
    expect(result.thread_cron).toMatchObject({ assistant_id: counterId, schedule: '0 0 1 1 *', enabled: true });
    expect(result.stateless_cron).toMatchObject({
      thread_id: null,
      on_run_completed: 'keep',
      timezone: 'Europe/Paris',
      end_time: '2031-01-01T00:00:00.000Z',
    });
    expect(result.updated).toMatchObject({ enabled: false, end_time: null, metadata: { source: 'python', step: 2 } });
    expect(result.found_by_metadata).toEqual([result.stateless_cron.cron_id]);
    expect(result.selected_keys).toEqual(['cron_id', 'next_run_date']);
    expect(result.count_by_thread).toBe(1);
    expect(result.count_by_metadata).toBe(1);
    expect(result.after_delete).toBe(0);
    expect(result.delete_again).toBe(404);
    expect(result.bad_schedule).toMatchObject({ status: 422, detail: expect.stringMatching(/body\/schedule/) });
    if (storeKind === 'postgres') {
      // the cron the script kept on its thread runs when due
      await makeDue(result.thread_cron.cron_id);
      await waitFor(
        'the Python cron’s run',
        async () => (await client.runs.list(result.thread_cron.thread_id)).length === 1,
        30_000,
        50,
      );
    }
  });

  it.runIf(storeKind === 'postgres')(
    'starts each due cron’s run once: on its thread, or on a new thread kept or deleted',
    async () => {
      const tag = `due-${Date.now()}`;
      const thread = await client.threads.create();
      const onThread = await client.crons.createForThread(thread.thread_id, 'counter', {
        schedule: '0 0 1 1 *',
        input: {},
        metadata: { tag, kind: 'thread' },
      });
      const kept = await client.crons.create('counter', {
        schedule: '0 0 1 1 *',
        input: {},
        metadata: { tag, kind: 'kept' },
        onRunCompleted: 'keep',
      });
      const deleted = await client.crons.create('counter', {
        schedule: '0 0 1 1 *',
        input: {},
        metadata: { tag, kind: 'deleted' },
      });
      await makeDue(onThread.cron_id, kept.cron_id, deleted.cron_id);
      const runs = await waitFor(
        'the thread cron’s run to end',
        async () => {
          const list = await client.runs.list(thread.thread_id);
          return list.length === 1 && list[0]!.status === 'success' && list;
        },
        30_000,
        50,
      );
      expect(runs[0]!.metadata).toMatchObject({ tag, kind: 'thread', cron_id: onThread.cron_id });
      expect((await client.threads.getState(thread.thread_id)).values).toEqual({ count: 1 });
      const keptThreads = await waitFor(
        'the kept cron’s thread',
        async () => {
          const found = await client.threads.search({ metadata: { cron_id: kept.cron_id } });
          return found.length === 1 && (found[0]!.values as { count?: number }).count === 1 && found; // ran
        },
        30_000,
        50,
      );
      expect(keptThreads[0]!.values).toEqual({ count: 1 });
      expect(keptThreads[0]!.metadata).toMatchObject({ tag, kind: 'kept' });
      // each claimed: the next run is next new year
      for (const cron of await client.crons.search({ limit: 100 }))
        if ([onThread, kept, deleted].some((c) => c.cron_id === cron.cron_id))
          expect(Date.parse(cron.next_run_date!)).toBeGreaterThan(Date.now());
      // the deleted cron's thread is gone when its run ends: none with its id
      await waitFor(
        'the deleted cron’s thread to go',
        async () => (await client.threads.search({ metadata: { cron_id: deleted.cron_id } })).length === 0,
        30_000,
        50,
      );
      // a thread's crons go with it
      await client.threads.delete(thread.thread_id);
      expect(await client.crons.search({ threadId: thread.thread_id })).toEqual([]);
    },
  );
});
