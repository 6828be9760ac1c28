// Threads whose TTL has run out (store/agentRecords.ts ThreadTtl) are swept every
// `checkpointer.ttl.sweep_interval_minutes`: deleted with their runs and checkpoints (`delete`),
// or left with the latest checkpoint of each namespace (`keep_latest`, after which the TTL starts
// again). A thread running something is not swept. Every replica sweeps; each thread is deleted
// by whichever gets it first (the delete checks the expiry again in the same statement).
import type { Logger } from '../../../platform/logger.ts';
import { startPeriodicTask, type PeriodicTask } from '../../../platform/periodicTask.ts';
import type { WorkspaceCheckpointer } from '../../../platform/workspaceThreads.ts';
import type { AgentRecordStore } from '../store/agentRecords.ts';
import type { CheckpointMaintenance } from './checkpointMaintenance.ts';

export interface ThreadSweeperDeps {
  store: AgentRecordStore;
  checkpointer: WorkspaceCheckpointer;
  checkpoints: CheckpointMaintenance;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/** How many threads one sweep takes at most (the next sweep takes the rest). */
const SWEEP_LIMIT = 1000;
const BATCH = 100;

/** Sweeps the threads expired at `now`; how many it swept. */
export async function sweepExpiredThreads(deps: ThreadSweeperDeps, now = new Date().toISOString()): Promise<number> {
  let swept = 0;
  while (swept < SWEEP_LIMIT) {
    const expired = await deps.store.expiredThreads(now, BATCH);
    if (expired.length === 0) break;
    let progressed = false;
    for (const { workspaceId, thread } of expired) {
      const key = { workspaceId, threadId: thread.thread_id };
      if (thread.ttl?.strategy === 'keep_latest') {
        await deps.checkpoints.keepLatest(key);
        // Pruned: a change, so the TTL starts again.
        await deps.store.updateThread({ workspaceId }, thread.thread_id, { updated_at: new Date().toISOString() });
      } else if (await deps.store.deleteExpiredThread(workspaceId, thread.thread_id, now)) {
        await deps.checkpointer.deleteThreadOf(key);
      } else continue; // changed or deleted meanwhile
      progressed = true;
      swept++;
    }
    if (!progressed) break;
  }
  if (swept > 0) deps.logger.info({ swept }, 'threads past their TTL swept');
  return swept;
}

export function startThreadSweeper(deps: ThreadSweeperDeps, everyMs: number): PeriodicTask {
  return startPeriodicTask({
    name: 'thread TTL sweeper',
    everyMs,
    logger: deps.logger,
    run: async () => void (await sweepExpiredThreads(deps)),
  });
}
