// The thread and run records of both stores (memory, PostgreSQL) belong to a workspace: a record
// of another workspace is as absent as an unknown one to every read and write, and a custom auth
// module's filters (auth/authFilters.ts) mean the same in both (the PostgreSQL store compiles them
// to SQL). Thread ids are per workspace: each workspace may have a thread of one id. Tables made
// by versions before workspaces are migrated in place (their records belong to the default
// workspace), and so are those of versions whose thread ids were global, checkpoints included.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/apiKeys.ts';
import type { AuthFilters } from '../../../../services/agent-server/auth/authFilters.ts';
import type { AgentRecordStore, RunRecord } from '../../../../services/agent-server/store/agentRecords.ts';
import { MemoryRecordStore } from '../../../../services/agent-server/store/memoryRecordStore.ts';
import { postgresPool } from '../../../../services/agent-server/checkpointer.ts';
import { PostgresRecordStore } from '../../../../services/agent-server/store/postgresRecordStore.ts';
import { newThreadRecord } from '../../../../services/agent-server/threads/threadRecords.ts';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { threadConfig, WorkspaceCheckpointer } from '../../../../platform/workspaceThreads.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';

const A = randomUUID();
const B = randomUUID();

const runOf = (threadId: string): RunRecord => {
  const now = new Date().toISOString();
  return {
    run_id: randomUUID(),
    thread_id: threadId,
    assistant_id: randomUUID(),
    created_at: now,
    updated_at: now,
    status: 'success',
    metadata: {},
    kwargs: {},
    multitask_strategy: 'reject',
  };
};
const search = { limit: 100, offset: 0, sortBy: 'created_at', sortOrder: 'desc' } as const;

/** Lost idle connections are expected here (a database dropped WITH (FORCE) under the pool). */
const quiet = { warn: () => {} };

let db: ScratchPostgres;
const stores: Record<string, AgentRecordStore> = {};
beforeAll(async () => {
  db = await scratchPostgres('agent_records');
  stores.memory = new MemoryRecordStore();
  stores.postgres = await PostgresRecordStore.open(postgresPool(db.url, quiet));
});
afterAll(async () => {
  for (const store of Object.values(stores)) await store.close();
  await db?.drop();
});

describe.each(['memory', 'postgres'])('%s store', (name) => {
  const store = () => stores[name]!;

  it('keeps each workspace’s threads and runs to itself', async () => {
    const mine = newThreadRecord(randomUUID(), { tag: name });
    const theirs = newThreadRecord(randomUUID(), { tag: name });
    expect(await store().createThread(A, mine)).toBeDefined();
    expect(await store().createThread(B, theirs)).toBeDefined();
    // Thread ids are per workspace: B may have a thread of A's id, its own.
    expect(await store().createThread(A, newThreadRecord(mine.thread_id, { again: true }))).toBeUndefined();

    expect((await store().getThread({ workspaceId: A }, mine.thread_id))?.metadata).toEqual({ tag: name });
    expect(await store().getThread({ workspaceId: B }, mine.thread_id)).toBeUndefined();
    expect(
      await store().updateThread({ workspaceId: B }, mine.thread_id, { metadata: { hacked: true } }),
    ).toBeUndefined();
    expect(await store().deleteThread({ workspaceId: B }, mine.thread_id)).toBe(false);
    expect((await store().getThread({ workspaceId: A }, mine.thread_id))?.metadata).toEqual({ tag: name });

    const found = await store().searchThreads({ workspaceId: A }, { ...search, metadata: { tag: name } });
    expect(found.threads.map((t) => t.thread_id)).toEqual([mine.thread_id]);
    expect(found.total).toBe(1);
    expect((await store().searchThreads({ workspaceId: B }, { ...search, ids: [mine.thread_id] })).total).toBe(0);

    const run = runOf(mine.thread_id);
    await store().putRun(A, run);
    expect((await store().getRun({ workspaceId: A }, mine.thread_id, run.run_id))?.run_id).toBe(run.run_id);
    expect(await store().getRun({ workspaceId: B }, mine.thread_id, run.run_id)).toBeUndefined();
    expect(await store().listRuns({ workspaceId: B }, mine.thread_id, { limit: 10, offset: 0 })).toEqual([]);
    expect(await store().deleteRun({ workspaceId: B }, mine.thread_id, run.run_id)).toBe(false);
    // B writing a run of A's id changes nothing of A's.
    await store().putRun(B, { ...run, status: 'error' });
    expect((await store().getRun({ workspaceId: A }, mine.thread_id, run.run_id))?.status).toBe('success');

    expect(await store().deleteThread({ workspaceId: A }, mine.thread_id)).toBe(true);
    expect(await store().getRun({ workspaceId: A }, mine.thread_id, run.run_id)).toBeUndefined();
  });

  it('holds two workspaces’ threads of one id apart: records, runs, searches, deletes', async () => {
    const id = randomUUID();
    expect((await store().createThread(A, newThreadRecord(id, { of: 'A' })))?.metadata).toEqual({ of: 'A' });
    expect((await store().createThread(B, newThreadRecord(id, { of: 'B' })))?.metadata).toEqual({ of: 'B' });
    expect(await store().createThread(B, newThreadRecord(id, { of: 'B again' }))).toBeUndefined();
    const [runA, runB] = [runOf(id), runOf(id)];
    await store().putRun(A, runA);
    await store().putRun(B, runB);
    await store().updateThread({ workspaceId: B }, id, { status: 'busy' });
    for (const [ws, of, run, other] of [
      [A, 'A', runA, runB],
      [B, 'B', runB, runA],
    ] as const) {
      expect((await store().getThread({ workspaceId: ws }, id))?.metadata).toEqual({ of });
      expect(
        (await store().searchThreads({ workspaceId: ws }, { ...search, ids: [id] })).threads.map((t) => t.metadata),
      ).toEqual([{ of }]);
      expect((await store().listRuns({ workspaceId: ws }, id, { limit: 10, offset: 0 })).map((r) => r.run_id)).toEqual([
        run.run_id,
      ]);
      expect(await store().getRun({ workspaceId: ws }, id, other.run_id)).toBeUndefined();
      expect(await store().deleteRun({ workspaceId: ws }, id, other.run_id)).toBe(false);
    }
    expect((await store().getThread({ workspaceId: A }, id))?.status).toBe('idle');
    expect(await store().deleteThread({ workspaceId: A }, id)).toBe(true);
    expect((await store().getThread({ workspaceId: B }, id))?.metadata).toEqual({ of: 'B' });
    expect((await store().getRun({ workspaceId: B }, id, runB.run_id))?.run_id).toBe(runB.run_id);
  });

  it('applies auth filters to the thread’s metadata, as isAuthMatching does', async () => {
    const tag = randomUUID();
    const thread = newThreadRecord(randomUUID(), { tag, owner: 'alice', teams: ['red', 'blue'], count: 5 });
    await store().createThread(A, thread);
    const run = runOf(thread.thread_id);
    await store().putRun(A, run);
    const cases: [AuthFilters, boolean][] = [
      [{ owner: 'alice' }, true],
      [{ owner: 'bob' }, false],
      [{ owner: { $eq: 'alice' } }, true],
      [{ owner: { $eq: 'bob' } }, false],
      [{ teams: { $contains: 'red' } }, true],
      [{ teams: { $contains: ['red', 'blue'] } }, true],
      [{ teams: { $contains: ['red', 'green'] } }, false],
      [{ owner: { $contains: 'alice' } }, false], // not an array
      [{ count: '5' }, false], // a number is not the string
      [{ missing: 'x' }, false],
      [{ owner: 'alice', teams: { $contains: 'blue' } }, true],
    ];
    for (const [filters, visible] of cases) {
      const scope = { workspaceId: A, filters };
      const what = JSON.stringify(filters);
      expect(Boolean(await store().getThread(scope, thread.thread_id)), what).toBe(visible);
      expect((await store().searchThreads(scope, { ...search, metadata: { tag } })).total, what).toBe(visible ? 1 : 0);
      expect(Boolean(await store().getRun(scope, thread.thread_id, run.run_id)), what).toBe(visible);
      expect((await store().listRuns(scope, thread.thread_id, { limit: 10, offset: 0 })).length, what).toBe(
        visible ? 1 : 0,
      );
      expect(Boolean(await store().updateThread(scope, thread.thread_id, { status: 'idle' })), what).toBe(visible);
    }
    expect(await store().deleteRun({ workspaceId: A, filters: { owner: 'bob' } }, thread.thread_id, run.run_id)).toBe(
      false,
    );
    expect(await store().deleteThread({ workspaceId: A, filters: { owner: 'bob' } }, thread.thread_id)).toBe(false);
    expect(await store().deleteThread({ workspaceId: A, filters: { owner: 'alice' } }, thread.thread_id)).toBe(true);
  });
});

describe('PostgreSQL tables of versions before workspaces', () => {
  it('are migrated in place: their threads and runs belong to the default workspace', async () => {
    const old = await scratchPostgres('agent_records_old');
    try {
      const client = new pg.Client({ connectionString: old.url });
      await client.connect();
      // The tables as the agent server made them before workspaces.
      await client.query(`
        CREATE TABLE agent_threads (thread_id uuid PRIMARY KEY, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
          state_updated_at timestamptz NOT NULL, metadata jsonb NOT NULL, status text NOT NULL, config jsonb NOT NULL, "values" jsonb,
          interrupts jsonb NOT NULL, error jsonb);
        CREATE INDEX agent_threads_metadata ON agent_threads USING gin (metadata jsonb_path_ops);
        CREATE TABLE agent_runs (run_id uuid PRIMARY KEY, thread_id uuid NOT NULL REFERENCES agent_threads (thread_id) ON DELETE CASCADE,
          created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, record jsonb NOT NULL, status text NOT NULL);
        CREATE INDEX agent_runs_thread ON agent_runs (thread_id, created_at DESC);`);
      const threadId = randomUUID();
      const run = runOf(threadId);
      await client.query(
        `INSERT INTO agent_threads VALUES ($1, now(), now(), now(), '{"old": true}', 'idle', '{}', NULL, '{}', NULL)`,
        [threadId],
      );
      await client.query(`INSERT INTO agent_runs VALUES ($1, $2, now(), now(), $3, 'success')`, [
        run.run_id,
        threadId,
        JSON.stringify(run),
      ]);
      await client.end();

      for (let start = 0; start < 2; start++) {
        const store = await PostgresRecordStore.open(postgresPool(old.url, quiet)); // twice: the migration is idempotent
        expect((await store.getThread({ workspaceId: DEFAULT_WORKSPACE_ID }, threadId))?.metadata).toEqual({
          old: true,
        });
        expect(await store.getThread({ workspaceId: A }, threadId)).toBeUndefined();
        expect((await store.getRun({ workspaceId: DEFAULT_WORKSPACE_ID }, threadId, run.run_id))?.run_id).toBe(
          run.run_id,
        );
        const fresh = newThreadRecord(randomUUID(), {});
        await store.createThread(A, fresh);
        expect(await store.getThread({ workspaceId: A }, fresh.thread_id)).toBeDefined();
        await store.close();
      }
    } finally {
      await old.drop();
    }
  });
});

describe('PostgreSQL tables of versions whose thread ids were global', () => {
  it('are migrated in place: each thread, its runs and its checkpoints become its workspace’s, and the id is free in others', async () => {
    const old = await scratchPostgres('agent_records_global');
    try {
      const client = new pg.Client({ connectionString: old.url });
      await client.connect();
      // The tables as the previous version made them: the thread's key its id alone.
      await client.query(`
        CREATE TABLE agent_threads (thread_id uuid PRIMARY KEY, workspace_id uuid NOT NULL, created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL, state_updated_at timestamptz NOT NULL, metadata jsonb NOT NULL, status text NOT NULL,
          config jsonb NOT NULL, "values" jsonb, interrupts jsonb NOT NULL, error jsonb);
        CREATE INDEX agent_threads_metadata ON agent_threads USING gin (metadata jsonb_path_ops);
        CREATE TABLE agent_runs (run_id uuid PRIMARY KEY, thread_id uuid NOT NULL REFERENCES agent_threads (thread_id) ON DELETE CASCADE,
          workspace_id uuid NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, record jsonb NOT NULL, status text NOT NULL,
          seq bigserial, owner uuid, available_at timestamptz NOT NULL DEFAULT now(), cancel_action text, work jsonb, outcome jsonb,
          watched boolean NOT NULL DEFAULT false);
        CREATE INDEX agent_runs_thread ON agent_runs (thread_id, created_at DESC);
        CREATE INDEX agent_threads_workspace ON agent_threads (workspace_id, created_at DESC);
        CREATE UNIQUE INDEX agent_runs_one_running ON agent_runs (thread_id) WHERE status = 'running';
        CREATE INDEX agent_runs_pending ON agent_runs (seq) WHERE status = 'pending';
        CREATE INDEX agent_runs_unfinished ON agent_runs (thread_id, seq) WHERE status IN ('pending', 'running');`);
      const threadId = randomUUID();
      const run = runOf(threadId);
      await client.query(
        `INSERT INTO agent_threads VALUES ($1, $2, now(), now(), now(), '{"old": true}', 'idle', '{}', NULL, '{}', NULL)`,
        [threadId, A],
      );
      await client.query(
        `INSERT INTO agent_runs (run_id, thread_id, workspace_id, created_at, updated_at, record, status) VALUES ($1, $2, $3, now(), now(), $4, 'success')`,
        [run.run_id, threadId, A, JSON.stringify(run)],
      );
      await client.end();
      // and the thread's checkpoints, as the previous version wrote them: under the bare thread id
      const saverPool = postgresPool(old.url, quiet);
      const saver = new PostgresSaver(saverPool);
      await saver.setup();
      const graph = (checkpointer: PostgresSaver | WorkspaceCheckpointer) =>
        new StateGraph(MessagesAnnotation)
          .addNode('reply', (state) => ({ messages: [{ role: 'ai', content: `seen ${state.messages.length}` }] }))
          .addEdge('__start__', 'reply')
          .compile({ checkpointer });
      await graph(saver).invoke(
        { messages: [{ role: 'user', content: 'before the upgrade' }] },
        { configurable: { thread_id: threadId } },
      );

      for (let start = 0; start < 2; start++) {
        const store = await PostgresRecordStore.open(postgresPool(old.url, quiet)); // twice: the migration is idempotent
        expect((await store.getThread({ workspaceId: A }, threadId))?.metadata).toEqual({ old: true });
        expect((await store.getRun({ workspaceId: A }, threadId, run.run_id))?.run_id).toBe(run.run_id);
        if (start === 0) {
          expect((await store.createThread(B, newThreadRecord(threadId, { of: 'B' })))?.metadata).toEqual({ of: 'B' });
          await store.putRun(B, runOf(threadId));
        }
        expect((await store.getThread({ workspaceId: B }, threadId))?.metadata).toEqual({ of: 'B' });
        expect(await store.listRuns({ workspaceId: A }, threadId, { limit: 10, offset: 0 })).toHaveLength(1);
        const state = await graph(new WorkspaceCheckpointer(saver)).getState(
          threadConfig({ workspaceId: A, threadId }),
        );
        expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual([
          'before the upgrade',
          'seen 1',
        ]);
        expect(
          (await graph(new WorkspaceCheckpointer(saver)).getState(threadConfig({ workspaceId: B, threadId }))).values,
        ).toEqual({});
        await store.close();
      }
      // one running run per thread: per workspace's thread
      const check = new pg.Client({ connectionString: old.url });
      await check.connect();
      const index = await check.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'agent_runs_one_running'`);
      expect(index.rows[0].indexdef).toMatch(/\(workspace_id, thread_id\)/);
      await check.end();
      await saverPool.end();
    } finally {
      await old.drop();
    }
  });
});

describe('a PostgreSQL connection the server ends', () => {
  it('is replaced at the next query, and the process does not crash on the idle one', async () => {
    const scratch = await scratchPostgres('agent_records_lost');
    const warnings: string[] = [];
    const store = await PostgresRecordStore.open(
      postgresPool(scratch.url, { warn: (_fields: unknown, message?: string) => void warnings.push(String(message)) }),
    );
    try {
      const thread = newThreadRecord(randomUUID(), {});
      await store.createThread(A, thread); // the pool now holds an idle connection
      const admin = new pg.Client({ connectionString: scratch.url });
      await admin.connect();
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      await admin.end();
      // Without an 'error' listener on the pool, the idle client's error ends the process here.
      for (let i = 0; i < 50 && warnings.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(warnings).toEqual([expect.stringMatching(/idle PostgreSQL connection was lost/)]);
      expect((await store.getThread({ workspaceId: A }, thread.thread_id))?.thread_id).toBe(thread.thread_id);
    } finally {
      await store.close();
      await scratch.drop();
    }
  });
});
