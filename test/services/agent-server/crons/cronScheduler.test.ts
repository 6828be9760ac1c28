// The cron scheduler of a server with memory persistence (services/agent-server/crons/
// cronScheduler.ts over memoryCronStore.ts), in this process with a real run manager and the
// example "counter" graph (each run adds one to the thread's count). The store's clock is moved
// forward instead of waiting for minutes to pass: the scheduler, the claim and the runs are the
// real ones. On PostgreSQL, with replicas and restarts: cronReplicas.test.ts.
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../platform/logger.ts';
import { WorkspaceCheckpointer } from '../../../../platform/workspaceThreads.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/index.ts';
import { ANONYMOUS } from '../../../../services/agent-server/auth/customAuth.ts';
import { GraphRegistry } from '../../../../services/agent-server/graphRegistry.ts';
import { RunManager } from '../../../../services/agent-server/runs/runManager.ts';
import { MemoryCheckpointer } from '../../../../services/agent-server/store/memoryCheckpointer.ts';
import { MemoryRecordStore } from '../../../../services/agent-server/store/memoryRecordStore.ts';
import { newThreadRecord } from '../../../../services/agent-server/threads/threadRecords.ts';
import { MemoryCronStore } from '../../../../services/agent-server/crons/memoryCronStore.ts';
import { CronScheduler } from '../../../../services/agent-server/crons/cronScheduler.ts';
import { nextRunDate, type CronRecord } from '../../../../services/agent-server/crons/cronRecords.ts';
import { cronAssistantId, startCronRun } from '../../../../services/agent-server/crons/cronRun.ts';
import { repoRoot, waitFor } from '../../../support/serviceProcess.ts';

const scope = { workspaceId: DEFAULT_WORKSPACE_ID };
const MINUTE = 60_000;

async function setup() {
  const checkpointer = new WorkspaceCheckpointer(new MemoryCheckpointer());
  const records = new MemoryRecordStore();
  const graphs = await GraphRegistry.load(
    [{ graphId: 'counter', file: join(repoRoot, 'examples/agent-server/counterGraph.ts'), exportName: 'graph' }],
    checkpointer,
  );
  const runs = new RunManager({ graphs, store: records, checkpointer, logger: createLogger('test', 'silent') });
  // The store's clock starts half-way through a minute: no tick comes before the test moves it on.
  let offset = 30_000 - (Date.now() % MINUTE);
  const clock = () => new Date(Date.now() + offset);
  const store = new MemoryCronStore(clock);
  const scheduler = new CronScheduler({
    store,
    start: (stored) => startCronRun(runs, stored),
    logger: createLogger('test', 'silent'),
    tickMs: 60_000,
  });
  const assistantId = await cronAssistantId(runs, 'counter', DEFAULT_WORKSPACE_ID);
  const newCron = async (over: Partial<CronRecord>): Promise<CronRecord> => {
    const now = clock().toISOString();
    const cron: CronRecord = {
      cron_id: randomUUID(),
      assistant_id: assistantId,
      thread_id: null,
      on_run_completed: null,
      end_time: null,
      schedule: '* * * * *',
      timezone: null,
      created_at: now,
      updated_at: now,
      payload: { input: {} },
      user_id: null,
      next_run_date: null,
      metadata: {},
      enabled: true,
      ...over,
    };
    cron.next_run_date = nextRunDate(cron, clock());
    await store.create({ workspaceId: DEFAULT_WORKSPACE_ID, auth: ANONYMOUS, cron });
    return cron;
  };
  const newThread = async () => {
    const id = randomUUID();
    await records.createThread(DEFAULT_WORKSPACE_ID, newThreadRecord(id, {}));
    return id;
  };
  /** The count of a thread: how many cron runs ran on it, once none is running. */
  const counted = async (threadId: string) => {
    await waitFor(
      'the thread’s runs to end',
      async () => (await records.getThread(scope, threadId))?.status === 'idle',
      10_000,
      10,
    );
    return ((await records.getThread(scope, threadId))?.values?.count as number | undefined) ?? 0;
  };
  return {
    runs,
    records,
    store,
    scheduler,
    newCron,
    newThread,
    counted,
    clock,
    advance: (ms: number) => {
      offset += ms;
    },
  };
}

let stopping: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopping?.();
  stopping = undefined;
});

describe('the cron scheduler (memory)', () => {
  it('starts nothing before a cron is due, one run at its tick, and one for several ticks missed', async () => {
    const t = await setup();
    const thread = await t.newThread();
    const cron = await t.newCron({ thread_id: thread });
    expect(await t.scheduler.tick()).toBe(0);
    t.advance(MINUTE);
    expect(await t.scheduler.tick()).toBe(1);
    expect(await t.scheduler.tick()).toBe(0); // the tick is taken
    expect(await t.counted(thread)).toBe(1);
    // five ticks pass with nobody looking: one run, and the next date is the next tick after now
    t.advance(5 * MINUTE);
    expect(await t.scheduler.tick()).toBe(1);
    expect(await t.counted(thread)).toBe(2);
    const after = (await t.store.get(scope, cron.cron_id))!;
    expect(Date.parse(after.next_run_date!)).toBeGreaterThan(t.clock().getTime());
    expect(Date.parse(after.next_run_date!) - t.clock().getTime()).toBeLessThanOrEqual(MINUTE);
    // each run carries the cron's metadata and id
    const runs = await t.records.listRuns(scope, thread, { limit: 10, offset: 0 });
    expect(runs.map((r) => r.metadata.cron_id)).toEqual([cron.cron_id, cron.cron_id]);
    expect(runs.every((r) => r.multitask_strategy === 'enqueue')).toBe(true);
  });

  it('runs a cron without a thread on a new thread each time: kept, or deleted when the run ends', async () => {
    const t = await setup();
    const kept = await t.newCron({ on_run_completed: 'keep', metadata: { job: 'kept' } });
    const deleted = await t.newCron({ on_run_completed: 'delete', metadata: { job: 'deleted' } });
    const started: string[] = [];
    const scheduler = new CronScheduler({
      store: t.store,
      start: async (stored) => {
        const run = await startCronRun(t.runs, stored);
        started.push(run.record.thread_id);
        await run.outcome;
        return run;
      },
      logger: createLogger('test', 'silent'),
      tickMs: 60_000,
    });
    for (let i = 0; i < 2; i++) {
      t.advance(MINUTE);
      expect(await scheduler.tick()).toBe(2);
    }
    expect(new Set(started).size).toBe(4);
    const search = async (job: string) =>
      (
        await t.records.searchThreads(scope, {
          metadata: { job },
          limit: 10,
          offset: 0,
          sortBy: 'created_at',
          sortOrder: 'asc',
        })
      ).threads;
    const keptThreads = await search('kept');
    expect(keptThreads).toHaveLength(2);
    for (const thread of keptThreads) {
      expect(thread.metadata).toMatchObject({ job: 'kept', cron_id: kept.cron_id });
      expect(thread.values).toEqual({ count: 1 });
    }
    await waitFor('the deleted cron’s threads to go', async () => (await search('deleted')).length === 0, 10_000, 10);
    expect(deleted.on_run_completed).toBe('delete');
  });

  it('starts no run of a disabled cron, nor of one past its end_time (which is kept, with no next date)', async () => {
    const t = await setup();
    const thread = await t.newThread();
    await t.newCron({ thread_id: thread, enabled: false });
    // ending half a minute after its first tick
    const ending = await t.newCron({ thread_id: thread });
    const firstTick = Date.parse(ending.next_run_date!);
    await t.store.update(scope, ending.cron_id, (c) => ({
      ...c,
      end_time: new Date(firstTick + 30_000).toISOString(),
    }));
    t.advance(firstTick - t.clock().getTime() + 1);
    expect(await t.scheduler.tick()).toBe(1); // the ending cron, within its end_time; its next tick is past it
    expect((await t.store.get(scope, ending.cron_id))?.next_run_date).toBeNull();
    t.advance(10 * MINUTE);
    expect(await t.scheduler.tick()).toBe(0);
    expect(await t.counted(thread)).toBe(1);
    expect(await t.store.get(scope, ending.cron_id)).toMatchObject({ cron_id: ending.cron_id, next_run_date: null });
  });

  it('deletes a cron whose thread is gone at its tick', async () => {
    const t = await setup();
    const thread = await t.newThread();
    const cron = await t.newCron({ thread_id: thread });
    await t.records.deleteThread(scope, thread);
    t.advance(MINUTE);
    expect(await t.scheduler.tick()).toBe(0);
    expect(await t.store.get(scope, cron.cron_id)).toBeUndefined();
  });

  it('runs by itself once started: sleeps until the next due cron, wakes when told, stops when asked', async () => {
    const t = await setup();
    t.scheduler.start();
    stopping = () => t.scheduler.stop();
    const thread = await t.newThread();
    await t.newCron({ thread_id: thread });
    t.advance(MINUTE);
    t.scheduler.wake();
    await waitFor('the cron’s first run', async () => (await t.counted(thread)) === 1, 10_000, 10);
    // a cron due again: the scheduler, asleep until then, takes it without being woken
    const soon = await t.newCron({ thread_id: thread });
    await t.store.update(scope, soon.cron_id, (c) => ({
      ...c,
      next_run_date: new Date(t.clock().getTime() + 50).toISOString(),
    }));
    t.scheduler.wake(); // it learns of the new date; then it sleeps until it
    await waitFor('the second cron’s run', async () => (await t.counted(thread)) === 2, 10_000, 10);
    await t.scheduler.stop();
    stopping = undefined;
  });
});
