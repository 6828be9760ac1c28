// The run manager keeps a finished run in memory only while a route can still reach it: every
// route to a run goes through its thread, so a stateless run whose temporary thread is deleted
// is forgotten when it ends (keeping it a minute held tens of thousands of runs' events under
// load), while a run on a kept thread stays joinable.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createLogger } from '../../../../platform/logger.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/index.ts';
import { Caller } from '../../../../services/agent-server/auth/callers.ts';
import { ANONYMOUS } from '../../../../services/agent-server/auth/customAuth.ts';
import { GraphRegistry } from '../../../../services/agent-server/graphRegistry.ts';
import { RunManager, type RunManagerDeps } from '../../../../services/agent-server/runs/runManager.ts';
import type { PostgresRunQueue } from '../../../../services/agent-server/runs/postgresRunQueue.ts';
import type { RunOutcome } from '../../../../services/agent-server/runs/activeRun.ts';
import type { RunRecord } from '../../../../services/agent-server/store/agentRecords.ts';
import { MemoryCheckpointer } from '../../../../services/agent-server/store/memoryCheckpointer.ts';
import { MemoryRecordStore } from '../../../../services/agent-server/store/memoryRecordStore.ts';
import { WorkspaceCheckpointer } from '../../../../platform/workspaceThreads.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

async function runManager(sharedQueue?: RunManagerDeps['sharedQueue']) {
  const checkpointer = new WorkspaceCheckpointer(new MemoryCheckpointer());
  const store = new MemoryRecordStore();
  const graphs = await GraphRegistry.load(
    [{ graphId: 'noop', file: join(repoRoot, 'examples/agent-server/noopGraph.ts'), exportName: 'graph' }],
    checkpointer,
  );
  return {
    runs: new RunManager({ graphs, store, checkpointer, logger: createLogger('test', 'silent'), sharedQueue }),
    store,
  };
}

/**
 * The one answer of the shared queue these tests need: the run is owned by this server (its
 * claim committed), and ends when `end` is called. The queue itself, on PostgreSQL with three
 * servers: replicas.test.ts.
 */
function claimedByThisServer() {
  let end!: (outcome: RunOutcome | null) => void;
  const ended = new Promise<RunOutcome | null>((resolve) => (end = resolve));
  const queue = { url: 'http://this-server', follow: async () => ({ owner: 'http://this-server', ended }) };
  return { sharedQueue: () => queue as unknown as PostgresRunQueue, end };
}

const caller = new Caller(DEFAULT_WORKSPACE_ID, ANONYMOUS);
const input = { messages: [{ role: 'user', content: 'hello' }] };

describe('RunManager', () => {
  it('forgets a stateless run when it ends and its temporary thread is deleted', async () => {
    const { runs, store } = await runManager();
    const run = await runs.create(undefined, { assistant_id: 'noop', input }, caller);
    expect(runs.get(run.record.run_id, DEFAULT_WORKSPACE_ID)).toBe(run);
    expect((await run.outcome).status).toBe('success');
    expect(runs.get(run.record.run_id, DEFAULT_WORKSPACE_ID)).toBeUndefined();
    expect(await store.getThread({ workspaceId: DEFAULT_WORKSPACE_ID }, run.record.thread_id)).toBeUndefined();
  });

  it('keeps a stateless run made in the background joinable a while (GET /runs/{id}/stream), its thread gone', async () => {
    const { runs, store } = await runManager();
    const run = await runs.create(undefined, { assistant_id: 'noop', input }, caller, { background: true });
    expect((await run.outcome).status).toBe('success');
    expect(runs.get(run.record.run_id, DEFAULT_WORKSPACE_ID)).toBe(run);
    expect(await runs.locate(run.record.run_id, DEFAULT_WORKSPACE_ID)).toBe(run.record);
    expect(await runs.locate(run.record.run_id, '00000000-0000-4000-8000-00000000beef')).toBeUndefined();
    expect(await store.getThread({ workspaceId: DEFAULT_WORKSPACE_ID }, run.record.thread_id)).toBeUndefined();
  });

  it('keeps a finished run joinable when its thread stays (a thread’s, or a stateless one with on_completion keep)', async () => {
    const { runs } = await runManager();
    const onThread = await runs.create(
      '00000000-0000-4000-8000-000000000001',
      { assistant_id: 'noop', input, if_not_exists: 'create' },
      caller,
    );
    const kept = await runs.create(undefined, { assistant_id: 'noop', input, on_completion: 'keep' }, caller);
    for (const run of [onThread, kept]) {
      expect((await run.outcome).status).toBe('success');
      expect(runs.get(run.record.run_id, DEFAULT_WORKSPACE_ID)).toBe(run);
    }
  });

  // A claim's notice (and its row) reach the other replicas as the claim commits: a stream one of
  // them relays to this server can arrive before the claim's answer has. It was answered with a
  // stream of no events (replicas.test.ts, once on CI).
  const record: RunRecord = {
    run_id: '00000000-0000-7000-8000-0000000000aa',
    thread_id: '00000000-0000-4000-8000-0000000000bb',
    assistant_id: 'noop',
    created_at: '2026-11-27T00:00:00.000Z',
    updated_at: '2026-11-27T00:00:00.000Z',
    status: 'running',
    metadata: {},
    kwargs: {},
    multitask_strategy: 'enqueue',
  };
  const work = {
    body: { assistant_id: 'noop', input },
    streamModes: ['values' as const],
    auth: ANONYMOUS,
    temporary: false,
  };

  it('a run this server claimed, asked for before the claim is taken in here, is the run it executes once it is', async () => {
    const { sharedQueue } = claimedByThisServer();
    const { runs } = await runManager(sharedQueue);
    let followed: unknown = 'pending';
    const following = runs.follow({ ...record }, DEFAULT_WORKSPACE_ID).then((run) => (followed = run));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(followed).toBe('pending');
    const adopted = runs.adopt({ ...record }, work, DEFAULT_WORKSPACE_ID);
    await following;
    expect(followed).toBe(adopted);
    expect(await runs.claimedHere(record.run_id, new Promise(() => undefined))).toBe(adopted);
  });

  it('a run this server claimed that ends before it is taken in here is followed to its end', async () => {
    const { sharedQueue, end } = claimedByThisServer();
    const { runs } = await runManager(sharedQueue);
    const following = runs.follow({ ...record }, DEFAULT_WORKSPACE_ID);
    end({ status: 'interrupted', values: null });
    const run = await following;
    expect(run?.done).toBe(true);
    expect((await run!.outcome).status).toBe('interrupted');
  });
});
