// Deletes expired items of the long-term store every `store.ttl.sweep_interval_minutes`. Each
// replica runs one: a sweep is one DELETE of the rows whose time has passed, so several at once
// delete each row once and cost nothing more. Expired items are never returned before their
// sweep either; the sweep only gives their space back.
import type { Logger } from '../../../platform/logger.ts';
import { startPeriodicTask, type PeriodicTask } from '../../../platform/periodicTask.ts';
import type { LongTermStore } from './store.ts';

export function startTtlSweeper(
  store: Pick<LongTermStore, 'sweep'>,
  intervalMinutes: number,
  logger: Pick<Logger, 'info' | 'warn'>,
): PeriodicTask {
  return startPeriodicTask({
    name: 'store TTL sweep',
    everyMs: intervalMinutes * 60_000,
    logger,
    run: async () => {
      const deleted = await store.sweep();
      if (deleted > 0) logger.info({ deleted }, 'deleted expired store items');
    },
  });
}
