// Crons with two agent-server replicas on one PostgreSQL database (crons/postgresCronStore.ts,
// crons/cronScheduler.ts): each replica's scheduler claims due crons with SKIP LOCKED, so every
// tick of every cron starts exactly one run in total, whichever replica claims it; and a tick
// missed while every server was down starts one run (not one per missed tick) when they come
// back. Crons are made due by setting next_run_date in the table, a second ahead so that both
// schedulers, which sleep until the next due cron, wake for it at the same moment; the runs are
// counted per thread (the probe graph appends one message per run, naming the replica).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';
import { startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import { waitFor } from '../../../support/serviceProcess.ts';

let db: ScratchPostgres;
let sql: pg.Client;
let configFile: string;
const replicas: AgentServer[] = [];
let client: Client;

async function startReplica(i: number): Promise<void> {
  replicas[i] = await startAgentServer(`cron-replica-${i}`, {
    configFile,
    env: { ...db.agentServerEnv, AGENT_SERVER_CRON_TICK_MS: '100' },
  });
}

beforeAll(async () => {
  db = await scratchPostgres('agent_cron_replicas');
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  configFile = writeAgentConfig({
    graphs: { probe: `${join(import.meta.dirname, '..', 'fixtures', 'replicaProbeGraph.ts')}:graph` },
  });
  await Promise.all([0, 1].map(startReplica));
  client = new Client({ apiUrl: replicas[0]!.url, apiKey: replicas[0]!.apiKey });
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await Promise.all(replicas.map((r) => r?.stop()));
  await db?.drop();
});

interface Ran {
  run_id: string;
  replica: string;
}
/** The runs that ran on a thread, as the probe graph recorded them. */
async function ranOn(via: Client, threadId: string): Promise<Ran[]> {
  const values: any = (await via.threads.getState(threadId)).values;
  return (values.messages ?? []).filter((m: any) => m.type === 'ai').map((m: any) => JSON.parse(m.content));
}
const probeInput = { messages: [{ role: 'user', content: 'tick' }], ms: 5 };

/** Makes the crons due a little ahead (both schedulers see it and sleep until it); when. */
async function makeDueSoon(cronIds: string[]): Promise<number> {
  const due = await sql.query(
    `UPDATE agent_crons SET next_run_date = now() + interval '1500 milliseconds' WHERE cron_id = ANY($1::uuid[]) RETURNING next_run_date`,
    [cronIds],
  );
  return (due.rows[0].next_run_date as Date).getTime();
}

/** Once every one of the crons is claimed (its next date moved on) and its thread's runs ended. */
async function settled(cronIds: string[], threads: string[], runsPerThread: number): Promise<void> {
  await waitFor(
    'the crons to be claimed',
    async () =>
      (
        await sql.query(
          `SELECT count(*)::int AS n FROM agent_crons WHERE cron_id = ANY($1::uuid[]) AND next_run_date > now()`,
          [cronIds],
        )
      ).rows[0].n === cronIds.length,
    30_000,
    50,
  );
  await waitFor(
    `${runsPerThread} run(s) ended on each thread`,
    async () => {
      for (const thread of threads) {
        const runs = await client.runs.list(thread, { limit: 100 });
        if (runs.length < runsPerThread || runs.some((r) => r.status === 'pending' || r.status === 'running'))
          return false;
      }
      return true;
    },
    60_000,
    100,
  );
}

describe('crons on two replicas of one database', () => {
  it('start exactly one run per due cron per tick in total, over several ticks', async () => {
    const N = 12;
    const ROUNDS = 3;
    const threads = await Promise.all([...Array(N).keys()].map(async () => (await client.threads.create()).thread_id));
    // created through either replica; yearly, so only the ticks this test makes come due
    const crons = await Promise.all(
      threads.map(async (thread, i) => {
        const via = new Client({ apiUrl: replicas[i % 2]!.url, apiKey: replicas[i % 2]!.apiKey });
        return via.crons.createForThread(thread, 'probe', { schedule: '0 0 1 1 *', input: probeInput });
      }),
    );
    const kept = await client.crons.create('probe', {
      schedule: '0 0 1 1 *',
      input: probeInput,
      onRunCompleted: 'keep',
      metadata: { job: 'replicas' },
    });
    const ids = [...crons.map((c) => c.cron_id), kept.cron_id];
    const firedBy = new Map<string, number>();
    /** From each tick to its run's creation (the run record's created_at): what the scheduler adds. */
    const dispatchMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const due = await makeDueSoon(ids);
      await settled(ids, threads, round);
      for (const [i, thread] of threads.entries()) {
        const runs = await client.runs.list(thread, { limit: 100 });
        dispatchMs.push(Date.parse(runs[0]!.created_at) - due);
        expect(runs.length, `runs on thread ${i} after tick ${round}`).toBe(round);
        expect(runs.every((r) => r.status === 'success' && r.metadata?.cron_id === crons[i]!.cron_id)).toBe(true);
        const ran = await ranOn(client, thread);
        expect(ran.map((r) => r.run_id).sort()).toEqual(runs.map((r) => r.run_id).sort());
      }
      const keptThreads = await waitFor(
        'the kept cron’s threads',
        async () => {
          const found = await client.threads.search({ metadata: { cron_id: kept.cron_id }, limit: 100 });
          return found.length >= round && found.every((t) => t.status === 'idle') && found;
        },
        30_000,
        50,
      );
      expect(keptThreads.length, `threads of the kept cron after tick ${round}`).toBe(round);
    }
    for (const thread of threads)
      for (const r of await ranOn(client, thread)) firedBy.set(r.replica, (firedBy.get(r.replica) ?? 0) + 1);
    expect([...firedBy.values()].reduce((a, b) => a + b, 0)).toBe(N * ROUNDS);
    dispatchMs.sort((a, b) => a - b);
    console.log(
      `${N} thread crons × ${ROUNDS} ticks on two replicas: ${N * ROUNDS} runs, run by ${[...firedBy.entries()].map(([port, n]) => `${n} on :${port}`).join(', ')}; ` +
        `tick to run created: median ${dispatchMs[Math.floor(dispatchMs.length / 2)]} ms, max ${dispatchMs.at(-1)} ms`,
    );
  });

  it('a tick missed while every server was down starts one run when they come back, then the schedule goes on', async () => {
    const thread = (await client.threads.create()).thread_id;
    // every minute of an hour two hours ago: 60 ticks missed, and the next one a day away
    const hour = (new Date().getUTCHours() + 22) % 24;
    const cron = await client.crons.createForThread(thread, 'probe', {
      schedule: `* ${hour} * * *`,
      input: probeInput,
    });
    await Promise.all(replicas.map((r) => r.stop()));
    await sql.query(
      `UPDATE agent_crons SET next_run_date = date_trunc('hour', now()) - interval '2 hours' WHERE cron_id = $1`,
      [cron.cron_id],
    );
    await Promise.all([0, 1].map(startReplica));
    client = new Client({ apiUrl: replicas[1]!.url, apiKey: replicas[1]!.apiKey });
    await settled([cron.cron_id], [thread], 1);
    expect((await client.runs.list(thread)).map((r) => r.status)).toEqual(['success']);
    const [after] = await client.crons.search({ threadId: thread });
    const next = new Date(after!.next_run_date!);
    expect(next.getUTCHours()).toBe(hour);
    expect(next.getUTCMinutes()).toBe(0);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });
});
