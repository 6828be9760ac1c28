// Crons under a custom auth module (langgraph.json `auth.path`; the test's ownerAuth.ts stamps
// an owner on what a user creates and shows each user only their own): a cron is its creator's
// (crons:create stamps it, crons:search/update/delete filter on its metadata), a user cannot put
// a cron on another's thread, and the runs a cron starts act as its creator: on PostgreSQL, a
// due cron's new thread is its creator's. And a server with runs switched off
// (`http.disable_runs`) serves no crons and says so in /info.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

let server: AgentServer;
let noRuns: AgentServer;
let db: ScratchPostgres;
beforeAll(async () => {
  db = await scratchPostgres('agent_cron_auth');
  const ownerAuth = writeAgentConfig({
    graphs: { counter: exampleGraph('counterGraph') },
    auth: { path: `${join(import.meta.dirname, '..', 'fixtures', 'ownerAuth.ts')}:auth` },
  });
  const runsOff = writeAgentConfig({ graphs: { counter: exampleGraph('counterGraph') }, http: { disable_runs: true } });
  [server, noRuns] = await Promise.all([
    startAgentServer('cron-auth', { configFile: ownerAuth, env: db.agentServerEnv }),
    startAgentServer('cron-no-runs', { configFile: runsOff }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.stop(), noRuns?.stop()]);
  await db?.drop();
});

const as = (user: string) =>
  new Client({ apiUrl: server.url, apiKey: null, defaultHeaders: { authorization: `Bearer token-${user}` } });

describe('crons under an auth module', () => {
  it('are their creator’s: stamped with the owner, invisible and untouchable to others', async () => {
    const [alice, bob] = [as('alice'), as('bob')];
    const thread = await alice.threads.create();
    const cron = await alice.crons.createForThread(thread.thread_id, 'counter', { schedule: '0 9 * * *' });
    expect(cron).toMatchObject({ user_id: 'alice', metadata: { owner: 'alice' } });
    const own = await bob.crons.create('counter', { schedule: '0 9 * * *' });
    expect(own).toMatchObject({ user_id: 'bob', metadata: { owner: 'bob' } });

    expect((await alice.crons.search({ limit: 100 })).map((c) => c.cron_id)).toEqual([cron.cron_id]);
    expect((await bob.crons.search({ limit: 100 })).map((c) => c.cron_id)).toEqual([own.cron_id]);
    expect(await bob.crons.count({ threadId: thread.thread_id })).toBe(0);
    await expect(bob.crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(/404/);
    await expect(bob.crons.delete(cron.cron_id)).rejects.toThrow(/404/);
    await expect(bob.crons.createForThread(thread.thread_id, 'counter', { schedule: '0 9 * * *' })).rejects.toThrow(
      /404/,
    );
    expect((await alice.crons.update(cron.cron_id, { metadata: { note: 'mine' } })).metadata).toEqual({
      owner: 'alice',
      note: 'mine',
    });
    await alice.crons.delete(cron.cron_id);
    await bob.crons.delete(own.cron_id);
  });

  it('start runs as their creator: a due cron’s new thread is the creator’s to see', async () => {
    const [alice, bob] = [as('alice'), as('bob')];
    const cron = await alice.crons.create('counter', { schedule: '0 0 1 1 *', input: {}, onRunCompleted: 'keep' });
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query('UPDATE agent_crons SET next_run_date = now() WHERE cron_id = $1', [cron.cron_id]);
    } finally {
      await sql.end();
    }
    const [thread] = await waitFor(
      'the cron’s thread',
      async () => {
        const found = await alice.threads.search({ metadata: { cron_id: cron.cron_id } });
        return found.length === 1 && (found[0]!.values as { count?: number }).count === 1 && found; // ran
      },
      30_000,
      50,
    );
    expect(thread!.metadata).toMatchObject({ owner: 'alice', cron_id: cron.cron_id });
    expect(thread!.values).toEqual({ count: 1 });
    expect(await bob.threads.search({ metadata: { cron_id: cron.cron_id } })).toEqual([]);
  });
});

describe('a server with runs switched off', () => {
  it('serves no crons, and /info says so', async () => {
    const info: any = await (await fetch(`${noRuns.url}/info`)).json();
    expect(info.flags).toMatchObject({ runs: false, crons: false });
    const res = await fetch(`${noRuns.url}/runs/crons/search`, {
      method: 'POST',
      headers: { ...noRuns.headers, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
  });
});
